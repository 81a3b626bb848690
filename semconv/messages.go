package semconv

import (
	"bytes"
	"encoding/json"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Content keys of dialects whose messages live outside the gen_ai.* message
// attributes. Where [Messages] reads them is the dialect table's content
// section (dialects.yaml); they are never promoted: the artifact keeps
// them as they came.
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

// Messages reads a span's conversation from wherever its dialect keeps it:
// the dialect table's content section (semconv/dialects/dialects.yaml,
// docs/dialects.md, and any file laid over it with [UseDialects]) lists
// the places, per side, the first that has any content winning,
// separately for system instructions, input and output. The embedded
// table tries, in order:
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
//   - request and response bodies kept whole, when that is all there is:
//     Google ADK's gcp.vertex.agent.llm_request / llm_response,
//     input.value / output.value, traceloop.entity.input / output;
//   - any attribute named *input holding a message list, or *output
//     holding a result with tool calls (Mastra's mastra.model_step.*).
//
// Message shapes are recognized by their members, not by who sent them
// (one file per shape family: messages_openai.go, messages_parts.go,
// messages_anthropic.go, messages_bedrock.go, messages_gemini.go,
// messages_genkit.go, messages_vercel.go, messages_flat.go,
// messages_events.go, messages_bodies.go): the conventions' parts, OpenAI
// chat (content, tool_calls, tool_call_id) and Responses API items,
// Anthropic content blocks (tool_use, tool_result, thinking), Bedrock
// Converse blocks (toolUse, toolResult, reasoningContent), Gemini parts
// (functionCall, functionResponse, thought, inlineData, fileData), Vercel
// parts (tool-call, tool-result), Genkit parts (toolRequest, toolResponse,
// media) and LangChain's serialized messages. Nothing is dropped: content
// no rule reads is kept as a text part holding its JSON. The view is derived when read: the
// span is not changed. Messages allocates; it is for reading, not for the
// path every span takes.
func Messages(sp ptrace.Span) Conversation {
	ct := &active.Load().content
	r := spanContent{attrs: sp.Attributes(), evs: sp.Events()}
	var c Conversation
	for i := range ct.system {
		if ps := r.system(&ct.system[i]); len(ps) > 0 {
			c.System = ps
			break
		}
	}
	c.Input = expandStringified(r.first(ct.input, RoleUser))
	c.Output = r.first(ct.output, RoleAssistant)
	if len(c.System) == 0 && !hasRole(c.Input, RoleSystem) {
		c.System = r.bodySystem(ct.input)
	}
	// System-role messages go with the instructions.
	in := c.Input[:0]
	for _, m := range c.Input {
		if m.Role == RoleSystem || m.Role == "developer" {
			c.System = appendNew(c.System, m.Parts)
			continue
		}
		in = append(in, m)
	}
	c.Input = in
	// An output message without its own finish reason takes the span's.
	if fr := r.finishReasons(ct.finish); len(fr) > 0 {
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

// appendNew appends the parts of ps that dst does not hold already: an
// instrumentation that writes gen_ai.system_instructions and also keeps the
// system message among the input (OpenLIT) states one instruction twice.
func appendNew(dst, ps []Part) []Part {
	for _, p := range ps {
		dup := false
		for _, q := range dst {
			if q.Type == p.Type && q.Content == p.Content && p.Type == PartText {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, p)
		}
	}
	return dst
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
	if v, ok := decodeJSON(t); ok {
		return v
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil || d.More() {
		return s
	}
	return out
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

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func hasRole(ms []Message, role string) bool {
	for _, m := range ms {
		if m.Role == role {
			return true
		}
	}
	return false
}
