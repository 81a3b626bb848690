package semconv

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Content keys of dialects whose messages live outside the gen_ai.* message
// attributes. They are read by [Messages] only, never promoted: the
// artifact keeps them as they came.
const (
	AIPrompt          = "ai.prompt"             // Vercel: JSON {system?, prompt?, messages?} on the outer span
	AIResponseText    = "ai.response.text"      // Vercel: the answer's text
	AIResponseToolCls = "ai.response.toolCalls" // Vercel: JSON [{toolCallId, toolName, input|args}]
	AIResponseReason  = "ai.response.reasoning" // Vercel: reasoning text
	OIInputMimeType   = "input.mime_type"
	OIOutputMimeType  = "output.mime_type"
	EventContent      = "gen_ai.event.content" // a deprecated per-message event's body as JSON (Semantic Kernel)
)

// Part is one part of a message in the GenAI conventions' message schema
// (gen_ai.input.messages, gen_ai.output.messages, gen_ai.system_instructions).
// Which members are set depends on Type: text and reasoning have Content;
// tool_call has ID, Name and Arguments; tool_call_response has ID and
// Response; blob has Modality, MimeType and Content (base64); uri has
// Modality, MimeType and URI. A part of any other type keeps its type and,
// in Content, its JSON text.
type Part struct {
	Type      string
	Content   string
	ID        string
	Name      string
	Arguments any
	Response  any
	Modality  string
	MimeType  string
	URI       string
}

// Part types of the conventions' message schema.
const (
	PartText         = "text"
	PartToolCall     = "tool_call"
	PartToolResponse = "tool_call_response"
	PartReasoning    = "reasoning"
	PartBlob         = "blob"
	PartURI          = "uri"
)

// MarshalJSON writes the part in the conventions' shape, type first: the
// members its type requires always, the others only when set.
func (p Part) MarshalJSON() ([]byte, error) {
	b := []byte(`{"type":`)
	b = appendJSON(b, p.Type)
	member := func(name string, v any) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b = appendJSON(b, v)
	}
	switch p.Type {
	case PartText, PartReasoning:
		member("content", p.Content)
	case PartToolCall:
		member("id", p.ID)
		member("name", p.Name)
		if p.Arguments != nil {
			member("arguments", p.Arguments)
		}
	case PartToolResponse:
		member("id", p.ID)
		member("response", p.Response)
	case PartBlob:
		member("modality", p.Modality)
		if p.MimeType != "" {
			member("mime_type", p.MimeType)
		}
		member("content", p.Content)
	case PartURI:
		member("modality", p.Modality)
		if p.MimeType != "" {
			member("mime_type", p.MimeType)
		}
		member("uri", p.URI)
	default:
		if p.Content != "" {
			member("content", p.Content)
		}
	}
	return append(b, '}'), nil
}

// appendJSON appends v as JSON, without escaping HTML characters; a value
// that cannot be written (a NaN inside decoded content) is written as null.
func appendJSON(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// Message is one message in the conventions' shape. FinishReason is set
// on output messages only.
type Message struct {
	Role         string `json:"role"`
	Parts        []Part `json:"parts"`
	Name         string `json:"name,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// Text returns the message's text parts joined by newlines.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == PartText {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Content)
		}
	}
	return b.String()
}

// Conversation is what a model call was sent and what it answered, in the
// GenAI conventions' shape whatever dialect the span was written in.
type Conversation struct {
	// System holds the system instructions: gen_ai.system_instructions,
	// and the parts of every system-role message of the input (dialects
	// put them among the messages; the conventions keep them apart).
	System []Part
	// Input are the messages sent, system messages excepted.
	Input []Message
	// Output are the messages returned, one per choice.
	Output []Message
}

// Messages reads a span's conversation from wherever its dialect keeps it,
// first source that has any content winning, separately for input and
// output:
//
//   - gen_ai.input.messages / gen_ai.output.messages /
//     gen_ai.system_instructions (JSON string or structured);
//   - the gen_ai.client.inference.operation.details event;
//   - Langfuse langfuse.observation.input / .output;
//   - Genkit genkit:input / genkit:output;
//   - Vercel ai.prompt.messages, ai.prompt, ai.response.text,
//     ai.response.toolCalls;
//   - OpenLLMetry gen_ai.prompt.N.* / gen_ai.completion.N.*;
//   - OpenInference llm.input_messages.N.message.* /
//     llm.output_messages.N.message.*;
//   - the deprecated gen_ai.prompt / gen_ai.completion (JSON), and the
//     per-message events gen_ai.system.message … gen_ai.choice and
//     gen_ai.content.prompt / .completion;
//   - input.value / output.value, when that is all there is.
//
// Message shapes are recognized by their members, not by who sent them:
// the conventions' parts, OpenAI chat (content, tool_calls, tool_call_id),
// Anthropic content blocks (tool_use, tool_result, thinking), Vercel parts
// (tool-call, tool-result), Genkit parts (toolRequest, toolResponse, media)
// and LangChain's serialized messages. The view is derived when read: the
// span is not changed. Messages allocates; it is for reading, not for the
// path every span takes.
func Messages(sp ptrace.Span) Conversation {
	attrs := sp.Attributes()
	var c Conversation
	get := func(k string) (any, bool) {
		v, ok := attrs.Get(k)
		if !ok {
			return nil, false
		}
		return valueAny(v), true
	}
	details := findEvent(sp.Events(), EventInferenceDetails)

	// System instructions.
	if v, ok := get(SystemInstructions); ok {
		c.System = append(c.System, partsOf(v)...)
	} else if details != nil {
		if v, ok := details[SystemInstructions]; ok {
			c.System = append(c.System, partsOf(v)...)
		}
	}

	c.Input = firstMessages(
		func() []Message { return attrMessages(get, InputMessages, RoleUser) },
		func() []Message { return mapMessages(details, InputMessages, RoleUser) },
		func() []Message { return attrMessages(get, LFObservationInput, RoleUser) },
		func() []Message { return genkitInput(get) },
		func() []Message { return attrMessages(get, AIPromptMessages, RoleUser) },
		func() []Message { return vercelPrompt(get, &c) },
		func() []Message { return flatMessages(attrs, TLPromptPrefix, "", RoleUser) },
		func() []Message { return flatMessages(attrs, OIInputMessages+".", "message.", RoleUser) },
		func() []Message { return attrMessages(get, Prompt, RoleUser) },
		func() []Message { return eventMessages(sp.Events(), false) },
		func() []Message { return valueMessages(get, OIInputValue, RoleUser) },
	)
	c.Output = firstMessages(
		func() []Message { return attrMessages(get, OutputMessages, RoleAssistant) },
		func() []Message { return mapMessages(details, OutputMessages, RoleAssistant) },
		func() []Message { return attrMessages(get, LFObservationOutput, RoleAssistant) },
		func() []Message { return genkitOutput(get) },
		func() []Message { return vercelResponse(get) },
		func() []Message { return flatMessages(attrs, TLCompletionPrefix, "", RoleAssistant) },
		func() []Message { return flatMessages(attrs, OIOutputMessages+".", "message.", RoleAssistant) },
		func() []Message { return attrMessages(get, Completion, RoleAssistant) },
		func() []Message { return eventMessages(sp.Events(), true) },
		func() []Message { return valueMessages(get, OIOutputValue, RoleAssistant) },
	)

	c.Input = expandStringified(c.Input)
	// A request document in input.value may hold the only copy of the
	// system prompt (Anthropic's top-level "system", which OpenInference's
	// flattened messages leave out:
	// testdata/real/openinference-anthropic/payloads/tool-loop.traces.json).
	if len(c.System) == 0 && !hasRole(c.Input, RoleSystem) {
		if v, ok := get(OIInputValue); ok {
			if m, ok := v.(map[string]any); ok && m["system"] != nil {
				c.System = partsOf(m["system"])
			}
		}
	}
	// System-role messages go with the instructions.
	in := c.Input[:0]
	for _, m := range c.Input {
		if m.Role == RoleSystem || m.Role == "developer" {
			c.System = append(c.System, m.Parts...)
			continue
		}
		in = append(in, m)
	}
	c.Input = in
	// An output message without its own finish reason takes the span's.
	if fr := spanFinishReasons(attrs); len(fr) > 0 {
		for i := range c.Output {
			if c.Output[i].FinishReason == "" && i < len(fr) {
				c.Output[i].FinishReason = NormalizeFinishReason(fr[i])
			} else if c.Output[i].FinishReason == "" && len(fr) == 1 {
				c.Output[i].FinishReason = NormalizeFinishReason(fr[0])
			}
		}
	}
	if c.System == nil {
		c.System = []Part{}
	}
	for _, ms := range [...][]Message{c.Input, c.Output} {
		for i := range ms {
			if ms[i].Parts == nil {
				ms[i].Parts = []Part{}
			}
		}
	}
	return c
}

// Roles of the conventions' message schema.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

func firstMessages(srcs ...func() []Message) []Message {
	for _, f := range srcs {
		if m := f(); len(m) > 0 {
			return m
		}
	}
	return []Message{}
}

func spanFinishReasons(attrs pcommon.Map) []string {
	if v, ok := attrs.Get(ResponseFinishReasons); ok && v.Type() == pcommon.ValueTypeSlice {
		var out []string
		for _, e := range v.Slice().All() {
			out = append(out, e.AsString())
		}
		return out
	}
	for _, k := range [...]string{AIFinishReason, TLFinishReason, OIFinishReason} {
		if v, ok := attrs.Get(k); ok && v.Type() == pcommon.ValueTypeStr {
			return []string{v.Str()}
		}
	}
	return nil
}

// valueAny turns an attribute value into plain Go data; a string that
// holds a JSON object or array is decoded.
func valueAny(v pcommon.Value) any {
	if v.Type() == pcommon.ValueTypeStr {
		return maybeJSON(v.Str())
	}
	return v.AsRaw()
}

// maybeJSON decodes s when it is a JSON object or array, else returns s.
func maybeJSON(s string) any {
	t := strings.TrimSpace(s)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return s
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil || d.More() {
		return s
	}
	return out
}

func attrMessages(get func(string) (any, bool), key, role string) []Message {
	v, ok := get(key)
	if !ok {
		return nil
	}
	return messagesOf(v, role)
}

func mapMessages(m map[string]any, key, role string) []Message {
	if m == nil {
		return nil
	}
	v, ok := m[key]
	if !ok {
		return nil
	}
	if s, ok := v.(string); ok {
		v = maybeJSON(s)
	}
	return messagesOf(v, role)
}

// valueMessages reads OpenInference input.value / output.value: a request
// or response document when it is JSON, else one text message.
func valueMessages(get func(string) (any, bool), key, role string) []Message {
	v, ok := get(key)
	if !ok {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		// An OpenAI-style request ({messages}) or response ({choices}), or a
		// framework's {input}/{output} envelope.
		for _, k := range [...]string{"messages", "choices", "candidates", "message", "generations"} {
			if _, has := m[k]; has {
				return messagesOf(m, role)
			}
		}
		for _, k := range [...]string{"input", "output", "content", "text", "query", "question", "answer", "result"} {
			if s, ok := m[k].(string); ok {
				return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: s}}}}
			}
		}
		return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: jsonText(v)}}}}
	}
	return messagesOf(v, role)
}

// messagesOf reads a message list in any of the shapes Messages knows.
func messagesOf(v any, role string) []Message {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		if t == "" {
			return nil
		}
		if d := maybeJSON(t); d != any(t) {
			if _, isStr := d.(string); !isStr {
				return messagesOf(d, role)
			}
		}
		return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: t}}}}
	case []any:
		var out []Message
		for _, e := range t {
			switch m := e.(type) {
			case map[string]any:
				out = append(out, messagesFromMap(m, role)...)
			case string:
				out = append(out, Message{Role: role, Parts: []Part{{Type: PartText, Content: m}}})
			}
		}
		return out
	case map[string]any:
		return messagesFromMap(t, role)
	}
	return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: jsonText(v)}}}}
}

// messagesFromMap reads one object: a message, or an envelope holding
// messages (a request's messages, a response's choices or candidates).
func messagesFromMap(m map[string]any, role string) []Message {
	if msgs, ok := m["messages"]; ok {
		out := messagesOf(msgs, role)
		if sys, ok := m["system"]; ok {
			out = append([]Message{{Role: RoleSystem, Parts: partsOf(sys)}}, out...)
		}
		return out
	}
	for _, k := range [...]string{"choices", "candidates"} {
		if cs, ok := m[k].([]any); ok {
			var out []Message
			for _, c := range cs {
				if cm, ok := c.(map[string]any); ok {
					out = append(out, messagesFromMap(cm, role)...)
				}
			}
			return out
		}
	}
	if inner, ok := m["message"].(map[string]any); ok {
		msgs := messagesFromMap(inner, role)
		fr := strOf(m["finish_reason"])
		if fr == "" {
			fr = strOf(m["finishReason"])
		}
		if fr != "" {
			for i := range msgs {
				if msgs[i].FinishReason == "" {
					msgs[i].FinishReason = NormalizeFinishReason(fr)
				}
			}
		}
		return msgs
	}
	if gens, ok := m["generations"].([]any); ok { // LangChain LLMResult
		var out []Message
		for _, g := range gens {
			out = append(out, messagesOf(g, role)...)
		}
		return out
	}
	msg, ok := normMessage(m, role)
	if !ok {
		return nil
	}
	return []Message{msg}
}

// normMessage reads one message object of any known shape.
func normMessage(m map[string]any, role string) (Message, bool) {
	// OpenAI Responses API items: a call or its output is a message of its own.
	switch strOf(m["type"]) {
	case "function_call":
		p, _ := blockPart(m)
		return Message{Role: RoleAssistant, Parts: []Part{p}}, true
	case "function_call_output":
		p, _ := blockPart(m)
		return Message{Role: RoleTool, Parts: []Part{p}}, true
	}
	// LangChain's serialized message: {"lc":1,"id":[…,"HumanMessage"],"kwargs":{…}}.
	if kw, ok := m["kwargs"].(map[string]any); ok {
		if ids, ok := m["id"].([]any); ok && len(ids) > 0 {
			m = kw
			switch strOf(ids[len(ids)-1]) {
			case "HumanMessage", "HumanMessageChunk":
				role = RoleUser
			case "AIMessage", "AIMessageChunk":
				role = RoleAssistant
			case "SystemMessage":
				role = RoleSystem
			case "ToolMessage":
				role = RoleTool
			}
		}
	}
	if r := normRole(strOf(m["role"])); r != "" {
		role = r
	} else if r := normRole(strOf(m["type"])); r != "" && m["content"] != nil {
		role = r // LangChain dict messages: {"type":"human","content":…}
	}
	msg := Message{Role: role, Name: strOf(m["name"])}
	if fr := strOf(m["finish_reason"]); fr != "" {
		msg.FinishReason = NormalizeFinishReason(fr)
	}
	toolCallID := strOf(m["tool_call_id"])
	if toolCallID == "" {
		toolCallID = strOf(m["toolCallId"])
	}
	if ps, ok := m["parts"]; ok {
		msg.Parts = partsOf(ps)
	} else if ct, ok := m["content"]; ok {
		// A string with a tool call id is that call's result, whatever
		// the role: OpenInference's Anthropic instrumentation records a
		// tool_result block as a "user" message with tool_call_id.
		if s, isStr := ct.(string); isStr && (role == RoleTool || toolCallID != "") {
			msg.Parts = []Part{{Type: PartToolResponse, ID: toolCallID, Response: maybeJSON(s)}}
		} else {
			msg.Parts = partsOf(ct)
		}
	} else if t, ok := m["text"].(string); ok {
		msg.Parts = []Part{{Type: PartText, Content: t}}
	}
	for _, k := range [...]string{"reasoning_content", "reasoning"} {
		if s, ok := m[k].(string); ok && s != "" {
			msg.Parts = append([]Part{{Type: PartReasoning, Content: s}}, msg.Parts...)
		}
	}
	if tcs, ok := m["tool_calls"].([]any); ok {
		for _, tc := range tcs {
			if tm, ok := tc.(map[string]any); ok {
				msg.Parts = append(msg.Parts, toolCallPart(tm))
			}
		}
	}
	if fc, ok := m["function_call"].(map[string]any); ok {
		msg.Parts = append(msg.Parts, toolCallPart(fc))
	}
	if len(msg.Parts) == 0 {
		if len(m) == 0 || m["role"] == nil && m["content"] == nil {
			return Message{}, false
		}
		msg.Parts = []Part{}
	}
	return msg, true
}

func normRole(r string) string {
	switch strings.ToLower(r) {
	case "":
		return ""
	case "system":
		return RoleSystem
	case "user", "human":
		return RoleUser
	case "assistant", "model", "ai", "bot":
		return RoleAssistant
	case "tool", "function", "ipython":
		return RoleTool
	case "developer":
		return "developer"
	}
	return r
}

// toolCallPart reads a tool call: OpenAI {id, function:{name, arguments}},
// flat {id, name, arguments}, LangChain {id, name, args}.
func toolCallPart(tc map[string]any) Part {
	p := Part{Type: PartToolCall, ID: strOf(tc["id"]), Name: strOf(tc["name"])}
	args, hasArgs := tc["arguments"]
	if fn, ok := tc["function"].(map[string]any); ok {
		if p.Name == "" {
			p.Name = strOf(fn["name"])
		}
		if a, ok := fn["arguments"]; ok {
			args, hasArgs = a, true
		}
	}
	if !hasArgs {
		args, hasArgs = tc["args"]
	}
	if !hasArgs {
		args, hasArgs = tc["input"]
	}
	if hasArgs {
		p.Arguments = argsValue(args)
	}
	return p
}

// argsValue decodes arguments sent as a JSON string.
func argsValue(a any) any {
	if s, ok := a.(string); ok {
		return maybeJSON(s)
	}
	return a
}

// partsOf reads a message's content: a string, or a list of parts or
// content blocks of any known shape.
func partsOf(v any) []Part {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		if d := maybeJSON(t); d != any(t) {
			if l, ok := d.([]any); ok && looksLikeParts(l) {
				return partsOf(l)
			}
		}
		return []Part{{Type: PartText, Content: t}}
	case []any:
		var out []Part
		for _, e := range t {
			if p, ok := partOf(e); ok {
				out = append(out, p)
			}
		}
		return out
	case map[string]any:
		if p, ok := partOf(t); ok {
			return []Part{p}
		}
		return nil
	}
	return []Part{{Type: PartText, Content: jsonText(v)}}
}

// looksLikeParts tells a JSON list of content blocks (Anthropic content
// passed through as a string) from a text that happens to be a JSON list.
func looksLikeParts(l []any) bool {
	if len(l) == 0 {
		return false
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["type"].(string); !ok {
			if _, ok := m["text"]; !ok {
				return false
			}
		}
	}
	return true
}

// partOf reads one part or content block.
func partOf(e any) (Part, bool) {
	switch b := e.(type) {
	case string:
		return Part{Type: PartText, Content: b}, true
	case map[string]any:
		return blockPart(b)
	case nil:
		return Part{}, false
	}
	return Part{Type: PartText, Content: jsonText(e)}, true
}

func blockPart(b map[string]any) (Part, bool) {
	typ := strOf(b["type"])
	switch typ {
	case "text", "input_text", "output_text":
		if s, ok := b["content"].(string); ok {
			return Part{Type: PartText, Content: s}, true
		}
		return Part{Type: PartText, Content: strOf(b["text"])}, true
	case PartToolCall, "tool_use", "tool-call", "function_call":
		p := Part{Type: PartToolCall, ID: firstStr(b, "id", "toolCallId", "call_id"), Name: firstStr(b, "name", "toolName")}
		for _, k := range [...]string{"arguments", "input", "args"} {
			if a, ok := b[k]; ok {
				p.Arguments = argsValue(a)
				break
			}
		}
		return p, true
	case PartToolResponse, "tool_result", "tool-result", "function_call_output":
		p := Part{Type: PartToolResponse, ID: firstStr(b, "id", "tool_use_id", "toolCallId", "call_id")}
		for _, k := range [...]string{"response", "result", "output", "content"} {
			if r, ok := b[k]; ok {
				p.Response = unwrapResult(r)
				break
			}
		}
		return p, true
	case PartReasoning, "thinking", "redacted_thinking":
		return Part{Type: PartReasoning, Content: firstStr(b, "content", "thinking", "text", "data")}, true
	case PartBlob:
		return Part{Type: PartBlob, Modality: strOf(b["modality"]), MimeType: firstStr(b, "mime_type", "media_type"), Content: strOf(b["content"])}, true
	case PartURI:
		return Part{Type: PartURI, Modality: strOf(b["modality"]), MimeType: firstStr(b, "mime_type", "media_type"), URI: strOf(b["uri"])}, true
	case "image_url":
		u := strOf(b["image_url"])
		if m, ok := b["image_url"].(map[string]any); ok {
			u = strOf(m["url"])
		}
		return Part{Type: PartURI, Modality: "image", URI: u}, true
	case "image", "file", "document", "audio":
		return mediaPart(typ, b), true
	case "":
		// Genkit parts carry no type: {text}, {toolRequest}, {toolResponse},
		// {media}, {reasoning}.
		if tr, ok := b["toolRequest"].(map[string]any); ok {
			p := Part{Type: PartToolCall, ID: strOf(tr["ref"]), Name: strOf(tr["name"])}
			if a, ok := tr["input"]; ok {
				p.Arguments = argsValue(a)
			}
			return p, true
		}
		if tr, ok := b["toolResponse"].(map[string]any); ok {
			return Part{Type: PartToolResponse, ID: strOf(tr["ref"]), Response: unwrapResult(tr["output"])}, true
		}
		if md, ok := b["media"].(map[string]any); ok {
			return Part{Type: PartURI, Modality: modalityOf(strOf(md["contentType"])), MimeType: strOf(md["contentType"]), URI: strOf(md["url"])}, true
		}
		if s, ok := b["reasoning"].(string); ok {
			return Part{Type: PartReasoning, Content: s}, true
		}
		if s, ok := b["text"].(string); ok {
			return Part{Type: PartText, Content: s}, true
		}
		if s, ok := b["content"].(string); ok {
			return Part{Type: PartText, Content: s}, true
		}
		return Part{}, false
	}
	return Part{Type: typ, Content: jsonText(b)}, true
}

// mediaPart reads an image, file, document or audio block: Anthropic's
// {source:{type:base64|url, media_type, data|url}}, Vercel's {image|data,
// mediaType}.
func mediaPart(typ string, b map[string]any) Part {
	modality := typ
	if typ == "file" || typ == "document" {
		modality = ""
	}
	mime := firstStr(b, "mime_type", "media_type", "mediaType", "mimeType")
	if src, ok := b["source"].(map[string]any); ok {
		if mime == "" {
			mime = firstStr(src, "media_type", "mime_type")
		}
		if modality == "" {
			modality = modalityOf(mime)
		}
		if u := strOf(src["url"]); u != "" {
			return Part{Type: PartURI, Modality: modality, MimeType: mime, URI: u}
		}
		return Part{Type: PartBlob, Modality: modality, MimeType: mime, Content: strOf(src["data"])}
	}
	if modality == "" {
		modality = modalityOf(mime)
	}
	data := firstStr(b, "image", "data", "url", "uri")
	if strings.Contains(data, "://") {
		return Part{Type: PartURI, Modality: modality, MimeType: mime, URI: data}
	}
	return Part{Type: PartBlob, Modality: modality, MimeType: mime, Content: data}
}

func modalityOf(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	}
	return "document"
}

// unwrapResult takes a Vercel v5 tool output ({type:"text"|"json", value})
// down to its value, and decodes a JSON string.
func unwrapResult(r any) any {
	if m, ok := r.(map[string]any); ok && len(m) == 2 {
		if _, ok := m["type"].(string); ok {
			if v, ok := m["value"]; ok {
				return argsValue(v)
			}
		}
	}
	return argsValue(r)
}

func strOf(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case json.Number:
		return s.String()
	}
	return ""
}

func firstStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := strOf(m[k]); s != "" {
			return s
		}
	}
	return ""
}

// jsonText writes v as compact JSON, for content no shape explains.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimRight(b.String(), "\n")
}

// findEvent returns the attributes of the first event named name.
func findEvent(evs ptrace.SpanEventSlice, name string) map[string]any {
	for _, ev := range evs.All() {
		if ev.Name() == name {
			return ev.Attributes().AsRaw()
		}
	}
	return nil
}

// eventMessages reads the deprecated per-message span events: input from
// gen_ai.system/user/assistant/tool.message and gen_ai.content.prompt,
// output from gen_ai.choice and gen_ai.content.completion.
func eventMessages(evs ptrace.SpanEventSlice, output bool) []Message {
	var out []Message
	for _, ev := range evs.All() {
		name := ev.Name()
		a := ev.Attributes()
		body := a.AsRaw()
		if v, ok := a.Get(EventContent); ok {
			if m, ok := valueAny(v).(map[string]any); ok {
				body = m
			}
		}
		switch {
		case output && name == EventChoice:
			m := body
			if inner, ok := m["message"].(map[string]any); ok {
				merged := map[string]any{}
				for k, v := range inner {
					merged[k] = v
				}
				if tc, ok := m["tool_calls"]; ok && merged["tool_calls"] == nil {
					merged["tool_calls"] = tc
				}
				merged["finish_reason"] = m["finish_reason"]
				m = merged
			}
			if msg, ok := normMessage(m, RoleAssistant); ok {
				out = append(out, msg)
			}
		case output && name == EventContentCompletion:
			if v, ok := a.Get(Completion); ok {
				out = append(out, messagesOf(valueAny(v), RoleAssistant)...)
			}
		case !output && name == EventContentPrompt:
			if v, ok := a.Get(Prompt); ok {
				out = append(out, messagesOf(valueAny(v), RoleUser)...)
			}
		case !output:
			var role string
			switch name {
			case EventSystemMessage:
				role = RoleSystem
			case EventUserMessage:
				role = RoleUser
			case EventAssistantMessage:
				role = RoleAssistant
			case EventToolMessage:
				role = RoleTool
				if id := strOf(body["id"]); id != "" && body["tool_call_id"] == nil {
					body["tool_call_id"] = id
				}
			default:
				continue
			}
			if msg, ok := normMessage(body, role); ok {
				out = append(out, msg)
			}
		}
	}
	return out
}

// flatMessages rebuilds flattened messages: prefix + "<i>." + inner +
// field, with fields such as role, content, tool_call_id,
// tool_calls.<j>.{id,name,arguments} (OpenLLMetry) and
// contents.<j>.message_content.{type,text} or
// tool_calls.<j>.tool_call.{id,function.name,function.arguments}
// (OpenInference).
func flatMessages(attrs pcommon.Map, prefix, inner, role string) []Message {
	byIdx := map[int]map[string]any{}
	for k, v := range attrs.All() {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		rest := k[len(prefix):]
		dot := strings.IndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		i, err := strconv.Atoi(rest[:dot])
		if err != nil || i < 0 {
			continue
		}
		field := strings.TrimPrefix(rest[dot+1:], inner)
		if byIdx[i] == nil {
			byIdx[i] = map[string]any{}
		}
		setPath(byIdx[i], field, valueAny(v))
	}
	if len(byIdx) == 0 {
		return nil
	}
	idx := make([]int, 0, len(byIdx))
	for i := range byIdx {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []Message
	for _, i := range idx {
		m := byIdx[i]
		normalizeFlat(m)
		if msg, ok := normMessage(m, role); ok {
			out = append(out, msg)
		}
	}
	return out
}

// setPath stores v under a dotted path, numeric segments becoming list
// indexes (kept as maps keyed by index until normalizeFlat).
func setPath(m map[string]any, path string, v any) {
	for {
		dot := strings.IndexByte(path, '.')
		if dot < 0 {
			if _, exists := m[path]; !exists {
				m[path] = v
			}
			return
		}
		seg := path[:dot]
		next, ok := m[seg].(map[string]any)
		if !ok {
			if _, exists := m[seg]; exists {
				return // a scalar already sits here
			}
			next = map[string]any{}
			m[seg] = next
		}
		m, path = next, path[dot+1:]
	}
}

// normalizeFlat turns maps keyed by indexes into ordered lists, and
// OpenInference's wrappers (tool_call, message_content) into plain
// objects, so normMessage reads them like JSON messages.
func normalizeFlat(m map[string]any) {
	for k, v := range m {
		sub, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if l, ok := indexedList(sub); ok {
			for j, e := range l {
				em, ok := e.(map[string]any)
				if !ok {
					continue
				}
				for _, w := range [...]string{"tool_call", "message_content"} {
					if inner, ok := em[w].(map[string]any); ok {
						em = inner
					}
				}
				normalizeFlat(em)
				if img, ok := em["image"].(map[string]any); ok { // OpenInference image.image.url
					if in, ok := img["image"].(map[string]any); ok {
						em["type"] = "image_url"
						em["image_url"] = map[string]any{"url": in["url"]}
					}
				}
				l[j] = em
			}
			m[k] = l
			continue
		}
		normalizeFlat(sub)
	}
	// OpenInference "contents" is the content list.
	if c, ok := m["contents"]; ok && m["content"] == nil {
		m["content"] = c
	}
}

func indexedList(m map[string]any) ([]any, bool) {
	if len(m) == 0 {
		return nil, false
	}
	idx := make([]int, 0, len(m))
	for k := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 {
			return nil, false
		}
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		out = append(out, m[strconv.Itoa(i)])
	}
	return out, true
}

// vercelPrompt reads ai.prompt, the outer span's {system?, prompt?,
// messages?}; its system goes to c.System.
func vercelPrompt(get func(string) (any, bool), c *Conversation) []Message {
	v, ok := get(AIPrompt)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return messagesOf(v, RoleUser)
	}
	var out []Message
	if sys, ok := m["system"]; ok && sys != nil {
		out = append(out, Message{Role: RoleSystem, Parts: partsOf(sys)})
	}
	if p, ok := m["prompt"]; ok && p != nil {
		out = append(out, messagesOf(p, RoleUser)...)
	}
	if msgs, ok := m["messages"]; ok && msgs != nil {
		out = append(out, messagesOf(msgs, RoleUser)...)
	}
	return out
}

// vercelResponse reads ai.response.text, ai.response.reasoning and
// ai.response.toolCalls as one assistant message.
func vercelResponse(get func(string) (any, bool)) []Message {
	var parts []Part
	if v, ok := get(AIResponseReason); ok {
		if s, ok := v.(string); ok && s != "" {
			parts = append(parts, Part{Type: PartReasoning, Content: s})
		}
	}
	if v, ok := get(AIResponseText); ok {
		if s, ok := v.(string); ok && s != "" {
			parts = append(parts, Part{Type: PartText, Content: s})
		} else if !ok {
			parts = append(parts, Part{Type: PartText, Content: jsonText(v)})
		}
	}
	if v, ok := get(AIResponseToolCls); ok {
		if l, ok := v.([]any); ok {
			for _, e := range l {
				if tc, ok := e.(map[string]any); ok {
					p, _ := blockPart(map[string]any{"type": "tool-call", "toolCallId": tc["toolCallId"], "toolName": tc["toolName"], "input": firstOf(tc, "input", "args")})
					parts = append(parts, p)
				}
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []Message{{Role: RoleAssistant, Parts: parts}}
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// genkitInput reads genkit:input: a model request {messages, …} on a
// model span, anything else as one user message.
func genkitInput(get func(string) (any, bool)) []Message {
	v, ok := get(GenkitInput)
	if !ok {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		if _, has := m["messages"]; has {
			return messagesOf(m["messages"], RoleUser)
		}
	}
	return messagesOf(v, RoleUser)
}

// genkitOutput reads genkit:output: a model response {message |
// candidates, finishReason, usage}, else one assistant message.
func genkitOutput(get func(string) (any, bool)) []Message {
	v, ok := get(GenkitOutput)
	if !ok {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		if _, has := m["message"]; has {
			return messagesFromMap(m, RoleAssistant)
		}
		if _, has := m["candidates"]; has {
			return messagesFromMap(m, RoleAssistant)
		}
	}
	return messagesOf(v, RoleAssistant)
}

// expandStringified undoes an instrumentation that wrote a whole message
// list as the text of one user message (OpenLLMetry JS 0.27.0 does so for
// the OpenAI Responses API's input list:
// testdata/real/openllmetry-openai/payloads/responses-tool-loop.traces.json).
// It applies only when the text is a JSON list whose every item is a
// message or a Responses API item.
func expandStringified(in []Message) []Message {
	if len(in) != 1 || in[0].Role != RoleUser || len(in[0].Parts) != 1 || in[0].Parts[0].Type != PartText {
		return in
	}
	l, ok := maybeJSON(in[0].Parts[0].Content).([]any)
	if !ok || len(l) == 0 {
		return in
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return in
		}
		if _, hasRole := m["role"].(string); hasRole {
			continue
		}
		switch strOf(m["type"]) {
		case "message", "function_call", "function_call_output", "reasoning":
			continue
		}
		return in
	}
	if out := messagesOf(l, RoleUser); len(out) > 0 {
		return out
	}
	return in
}

func hasRole(ms []Message, role string) bool {
	for _, m := range ms {
		if m.Role == role {
			return true
		}
	}
	return false
}
