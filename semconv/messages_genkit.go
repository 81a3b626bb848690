package semconv

// Genkit's untyped parts ({text}, {toolRequest}, {toolResponse}, {media},
// {reasoning}), in its genkit:input / genkit:output documents (a model
// request {messages, …} and response {message | candidates,
// finishReason}, read as any request and response: envelopeMessages).

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
