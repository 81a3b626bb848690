package semconv

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Message lists and the documents around them: a list of messages, one
// message, or a provider's request or response body kept whole in one
// attribute (OpenInference input.value / output.value, Google ADK's
// gcp.vertex.agent.llm_request / llm_response, OpenLLMetry's
// traceloop.entity.input / output): OpenAI chat {messages} and
// {choices}, the Responses API {input, instructions} and {output},
// Anthropic {system, messages} and {role, content}, Bedrock Converse
// {system, messages} and {output: {message}}, Gemini {contents,
// systemInstruction} and {candidates}, LangChain {generations}.

// LLM request and response bodies Google's Agent Development Kit keeps as
// JSON attributes of its call_llm span.
const (
	ADKLLMRequest  = "gcp.vertex.agent.llm_request"
	ADKLLMResponse = "gcp.vertex.agent.llm_response"
)

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

// messagesOf reads a message list in any of the shapes Messages knows.
// Nothing in it is dropped: an item no rule reads is a message holding
// its JSON as text.
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
		if looksLikeParts(t) && !anyMessage(t) {
			// A list of content blocks is one message's content.
			if ps := partsOf(t); len(ps) > 0 {
				return []Message{{Role: role, Parts: ps}}
			}
		}
		var out []Message
		for _, e := range t {
			switch m := e.(type) {
			case map[string]any:
				out = append(out, messagesFromMap(m, role)...)
			case string:
				out = append(out, Message{Role: role, Parts: []Part{{Type: PartText, Content: m}}})
			case nil:
			default:
				out = append(out, Message{Role: role, Parts: []Part{{Type: PartText, Content: jsonText(m)}}})
			}
		}
		return out
	case map[string]any:
		return messagesFromMap(t, role)
	}
	return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: jsonText(v)}}}}
}

// anyMessage tells a list that holds messages (or Responses API items)
// from a list of one message's content blocks.
func anyMessage(l []any) bool {
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["role"]; ok {
			return true
		}
		switch strOf(m["type"]) {
		case "message", "function_call", "function_call_output", "reasoning":
			return true
		}
	}
	return false
}

// allContent reports whether every item of l is an object with content.
func allContent(l []any) bool {
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok || m["content"] == nil {
			return false
		}
	}
	return len(l) > 0
}

// messagesFromMap reads one object: a message, or an envelope holding
// messages (a request's messages or contents, a response's choices,
// candidates or output).
func messagesFromMap(m map[string]any, role string) []Message {
	if out, ok := envelopeMessages(m, role); ok {
		return out
	}
	msg, ok := normMessage(m, role)
	if !ok {
		return nil
	}
	return []Message{msg}
}

// envelopeMessages reads a request or response document; it reports
// false when m is not one.
func envelopeMessages(m map[string]any, role string) ([]Message, bool) {
	for _, k := range [...]string{"messages", "contents"} {
		msgs, ok := m[k]
		if !ok {
			continue
		}
		if _, isList := msgs.([]any); !isList && k == "contents" {
			continue
		}
		out := messagesOf(msgs, role)
		var sys []Part
		if s, ok := m["system"]; ok && s != nil {
			sys = partsOf(s)
		} else if s, ok := geminiSystem(m); ok {
			sys = s
		} else if cfg, ok := m["config"].(map[string]any); ok { // Google ADK
			sys, _ = geminiSystem(cfg)
		}
		if len(sys) > 0 {
			out = append([]Message{{Role: RoleSystem, Parts: sys}}, out...)
		}
		return out, true
	}
	for _, k := range [...]string{"choices", "candidates"} {
		if cs, ok := m[k].([]any); ok {
			var out []Message
			for _, c := range cs {
				if cm, ok := c.(map[string]any); ok {
					out = append(out, messagesFromMap(cm, role)...)
				}
			}
			return out, true
		}
	}
	// The Responses API: a request's input list beside its instructions, a
	// response's output list; or a list of documents, each an object with
	// content and no role (an embedder's request: Genkit's {input:
	// [{content: [{text}]}]}, testdata/real/genkit-js/payloads/embeddings.traces.json),
	// each read as a message of the side's role.
	for _, k := range [...]string{"output", "input"} {
		if l, ok := m[k].([]any); ok && (anyMessage(l) || len(l) == 0 || allContent(l)) {
			out := messagesOf(l, role)
			if s := strOf(m["instructions"]); s != "" && k == "input" {
				out = append([]Message{{Role: RoleSystem, Parts: []Part{{Type: PartText, Content: s}}}}, out...)
			}
			return out, true
		}
	}
	// A choice {message, finish_reason}, Bedrock's response {output:
	// {message}, stopReason}, Google ADK's response {content, finish_reason}.
	inner, ok := m["message"].(map[string]any)
	if !ok {
		if o, isMap := m["output"].(map[string]any); isMap {
			inner, ok = o["message"].(map[string]any)
		}
	}
	if ok {
		msgs := messagesFromMap(inner, role)
		if fr := firstStr(m, "finish_reason", "finishReason", "stopReason", "stop_reason"); fr != "" {
			for i := range msgs {
				if msgs[i].FinishReason == "" {
					msgs[i].FinishReason = NormalizeFinishReason(fr)
				}
			}
		}
		return msgs, true
	}
	if gens, ok := m["generations"].([]any); ok { // LangChain LLMResult
		var out []Message
		for _, g := range gens {
			out = append(out, messagesOf(g, role)...)
		}
		return out, true
	}
	return nil, false
}

// bodyMessages reads a request or response body kept whole: its messages
// when it is a document that has some, a framework's {input}/{output}
// envelope's text, else the whole body as one text message.
func bodyMessages(v any, role string) []Message {
	m, ok := v.(map[string]any)
	if !ok {
		return messagesOf(v, role)
	}
	if out, ok := envelopeMessages(m, role); ok && len(out) > 0 {
		return out
	}
	if c, ok := geminiContent(m["content"], role); ok { // Google ADK's llm_response
		if fr := firstStr(m, "finish_reason", "finishReason"); fr != "" {
			c.FinishReason = NormalizeFinishReason(fr)
		}
		return []Message{c}
	}
	if _, ok := m["role"]; ok {
		return messagesFromMap(m, role) // one message: Anthropic's response
	}
	if msg, ok := resultCalls(m); ok {
		if len(msg.Parts) == 0 {
			return nil // {text: "", toolCalls: []}: a failed step's empty result
		}
		return []Message{msg}
	}
	for _, k := range [...]string{"input", "output", "content", "text", "query", "question", "answer", "result"} {
		if s, ok := m[k].(string); ok {
			if s == "" {
				return nil
			}
			return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: s}}}}
		}
	}
	// OpenLLMetry's traceloop.entity.input: {"args": [...], "kwargs": {...}}
	// or {"inputs": {...}}; entity.output: {"outputs": ...}.
	for _, k := range [...]string{"inputs", "outputs", "args", "kwargs"} {
		if inner, ok := m[k]; ok {
			if out := bodyMessages(inner, role); len(out) > 0 && !isJSONText(out) {
				return out
			}
		}
	}
	return []Message{{Role: role, Parts: []Part{{Type: PartText, Content: jsonText(v)}}}}
}

// isJSONText tells the fallback of bodyMessages: one message whose one
// text part is a JSON document nothing read.
func isJSONText(ms []Message) bool {
	if len(ms) != 1 || len(ms[0].Parts) != 1 || ms[0].Parts[0].Type != PartText {
		return false
	}
	_, isStr := maybeJSON(ms[0].Parts[0].Content).(string)
	return !isStr
}

// looseInput reads, when no known key has a span's input, an attribute
// whose name ends in suffix ("input" in the table) and whose value is a message list (an item
// with a role, or a Responses API item) or a request {messages: […]}:
// Mastra keeps its step's history so (mastra.model_step.input,
// mastra.model_generation.input). Attributes are tried in the span's
// order; a value of any other shape is no input.
func looseInput(attrs pcommon.Map, suffix string) []Message {
	var out []Message
	for k, v := range attrs.All() {
		if out != nil || v.Type() != pcommon.ValueTypeStr || !strings.HasSuffix(k, suffix) {
			continue
		}
		switch d := maybeJSON(v.Str()).(type) {
		case []any:
			if anyMessage(d) {
				out = messagesOf(d, RoleUser)
			}
		case map[string]any:
			if l, ok := d["messages"].([]any); ok && anyMessage(l) {
				out = messagesFromMap(d, RoleUser)
			}
		}
	}
	return out
}

// resultCalls reads a generation result that names its tool calls the AI
// SDK's way, {text, toolCalls: [{toolCallId, toolName, args|input}]}, or
// one such call {toolCallId, toolName, toolInput} (Mastra's step output
// and model chunks: testdata/real/mastra-arize/payloads/tool-loop.traces.pb),
// as one assistant message.
func resultCalls(m map[string]any) (Message, bool) {
	var calls []any
	if l, ok := m["toolCalls"].([]any); ok {
		calls = l
	} else if _, ok := m["toolName"].(string); ok {
		calls = []any{m}
	} else {
		return Message{}, false
	}
	msg := Message{Role: RoleAssistant, Parts: []Part{}}
	if s, ok := m["text"].(string); ok && s != "" {
		msg.Parts = append(msg.Parts, Part{Type: PartText, Content: s})
	}
	for _, c := range calls {
		tc, ok := c.(map[string]any)
		if !ok {
			continue
		}
		p := Part{Type: PartToolCall, ID: strOf(tc["toolCallId"]), Name: strOf(tc["toolName"])}
		if a := firstOf(tc, "args", "input", "toolInput"); a != nil {
			p.Arguments = argsValue(a)
		}
		msg.Parts = append(msg.Parts, p)
	}
	return msg, true
}

// looseOutput reads, when no known key has a span's output, an attribute
// whose name ends in suffix ("output" in the table) holding a generation result with tool calls
// ({text, toolCalls}: Mastra's mastra.model_step.output, where its chat
// span records only an empty text for a step that called a tool).
func looseOutput(attrs pcommon.Map, suffix string) []Message {
	for k, v := range attrs.All() {
		if v.Type() != pcommon.ValueTypeStr || !strings.HasSuffix(k, suffix) {
			continue
		}
		if m, ok := maybeJSON(v.Str()).(map[string]any); ok {
			if _, has := m["toolCalls"]; !has {
				continue
			}
			if msg, ok := resultCalls(m); ok && len(msg.Parts) > 0 {
				return []Message{msg}
			}
		}
	}
	return nil
}
