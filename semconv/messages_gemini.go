package semconv

// Gemini: a request's contents[] and systemInstruction, a response's
// candidates[].content, each content {role: user|model, parts[]}, and
// untyped parts named by their one member: text (thought: true for a
// thought summary), functionCall, functionResponse, inlineData, fileData,
// executableCode, codeExecutionResult. The REST API and the JS SDK write
// them in camelCase, the Python SDK (Google ADK's
// gcp.vertex.agent.llm_request) in snake_case: both are read.

// geminiPart reads one Gemini part.
func geminiPart(b map[string]any) (Part, bool) {
	if fc, ok := firstMap(b, "functionCall", "function_call"); ok {
		p := Part{Type: PartToolCall, ID: strOf(fc["id"]), Name: strOf(fc["name"])}
		if a, ok := fc["args"]; ok {
			p.Arguments = argsValue(a)
		}
		return p, true
	}
	if fr, ok := firstMap(b, "functionResponse", "function_response"); ok {
		// The response is {output|result|content: …} or anything else the
		// tool returned; the id is set when the call had one, else the
		// name is what links the two.
		id := strOf(fr["id"])
		if id == "" {
			id = strOf(fr["name"])
		}
		r := fr["response"]
		// The AI SDK sends {name, content}; the Python SDK {output} or
		// {result}: the one value beside the name is the result.
		if m, ok := r.(map[string]any); ok {
			n := len(m)
			if _, ok := m["name"]; ok {
				n--
			}
			for _, k := range [...]string{"output", "result", "content"} {
				if v, ok := m[k]; ok && n == 1 {
					r = v
				}
			}
		}
		return Part{Type: PartToolResponse, ID: id, Response: unwrapResult(r)}, true
	}
	if d, ok := firstMap(b, "inlineData", "inline_data"); ok {
		mime := firstStr(d, "mimeType", "mime_type")
		return Part{Type: PartBlob, Modality: modalityOf(mime), MimeType: mime, Content: strOf(d["data"])}, true
	}
	if d, ok := firstMap(b, "fileData", "file_data"); ok {
		mime := firstStr(d, "mimeType", "mime_type")
		return Part{Type: PartURI, Modality: modalityOf(mime), MimeType: mime, URI: firstStr(d, "fileUri", "file_uri")}, true
	}
	// Code the model ran and its result are shown as they came.
	if _, ok := firstMap(b, "executableCode", "executable_code", "codeExecutionResult", "code_execution_result"); ok {
		return Part{Type: PartText, Content: jsonText(b)}, true
	}
	return Part{}, false
}

// geminiContent reads a Gemini content object {role, parts} that stands
// where a message's content would (a candidate's content), as a message.
// It reports false when c is not one.
func geminiContent(c any, role string) (Message, bool) {
	m, ok := c.(map[string]any)
	if !ok {
		return Message{}, false
	}
	if _, ok := m["parts"].([]any); !ok {
		return Message{}, false
	}
	return normMessage(m, role)
}

// geminiSystem reads a request's systemInstruction: a content, a list of
// parts, or a string.
func geminiSystem(m map[string]any) ([]Part, bool) {
	for _, k := range [...]string{"systemInstruction", "system_instruction"} {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		if c, ok := v.(map[string]any); ok {
			if ps, ok := c["parts"]; ok {
				return partsOf(ps), true
			}
		}
		return partsOf(v), true
	}
	return nil, false
}

// firstMap returns the first of keys whose value in m is an object.
func firstMap(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		if v, ok := m[k].(map[string]any); ok {
			return v, true
		}
	}
	return nil, false
}
