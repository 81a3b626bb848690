package semconv

// Genkit's genkit:input / genkit:output: a model request {messages, …}
// and response {message | candidates, finishReason}; its untyped parts
// ({text}, {toolRequest}, {toolResponse}, {media}, {reasoning}) are read by
// genkitPart.

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

// genkitPart reads one of Genkit's untyped parts that carries more than
// text: {toolRequest}, {toolResponse}, {media}.
func genkitPart(b map[string]any) (Part, bool) {
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
	return Part{}, false
}
