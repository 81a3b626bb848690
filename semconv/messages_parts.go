package semconv

// Parts: a message's content in whatever shape a source wrote it (a
// string, one block, a list of blocks) read into the conventions' parts.
// Typed blocks (the conventions' own, OpenAI chat and Responses, Anthropic,
// Vercel) are told by their "type"; untyped ones (Genkit, Bedrock
// Converse, Gemini) by their one distinguishing member. Nothing is
// dropped: a block no rule reads becomes a text part holding its JSON.

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
			if m, ok := d.(map[string]any); ok && looksLikeBlock(m) {
				return partsOf(m)
			}
		}
		return []Part{{Type: PartText, Content: t}}
	case []any:
		out := make([]Part, 0, len(t))
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
// passed through as a string, Strands' Bedrock blocks) from a text that
// happens to be a JSON list.
func looksLikeParts(l []any) bool {
	if len(l) == 0 {
		return false
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok || !looksLikeBlock(m) {
			return false
		}
	}
	return true
}

// looksLikeBlock: a typed block, or an untyped one with a member only a
// content block has.
func looksLikeBlock(m map[string]any) bool {
	if _, ok := m["type"].(string); ok {
		return true
	}
	if _, ok := m["text"]; ok {
		return true
	}
	for _, u := range untypedBlocks {
		if _, ok := m[u.key]; ok {
			return true
		}
	}
	return false
}

// Families of untyped content blocks.
const (
	genkitBlock = iota
	bedrockBlock
	geminiBlock
)

// untypedBlocks are the members that make an untyped object a content
// block, and the family that reads it, in the order they are tried.
var untypedBlocks = [...]struct {
	key    string
	family int
}{
	{"toolRequest", genkitBlock}, {"toolResponse", genkitBlock}, {"media", genkitBlock},
	// Bedrock Converse (Strands, the legacy GenAI events)
	{"toolUse", bedrockBlock}, {"toolResult", bedrockBlock}, {"reasoningContent", bedrockBlock},
	{"document", bedrockBlock}, {"image", bedrockBlock}, {"video", bedrockBlock},
	// Gemini, camelCase (REST, JS) and snake_case (Python, Google ADK)
	{"functionCall", geminiBlock}, {"function_call", geminiBlock},
	{"functionResponse", geminiBlock}, {"function_response", geminiBlock},
	{"inlineData", geminiBlock}, {"inline_data", geminiBlock},
	{"fileData", geminiBlock}, {"file_data", geminiBlock},
	{"executableCode", geminiBlock}, {"executable_code", geminiBlock},
	{"codeExecutionResult", geminiBlock}, {"code_execution_result", geminiBlock},
}

// untypedPart reads an untyped block with the first family whose member
// it has.
func untypedPart(b map[string]any) (Part, bool) {
	for _, u := range untypedBlocks {
		if _, ok := b[u.key]; !ok {
			continue
		}
		var p Part
		var ok bool
		switch u.family {
		case genkitBlock:
			p, ok = genkitPart(b)
		case bedrockBlock:
			p, ok = bedrockPart(b)
		default:
			p, ok = geminiPart(b)
		}
		if ok {
			return p, true
		}
	}
	return Part{}, false
}

// partOf reads one part or content block; only nothing (null) gives no
// part.
func partOf(e any) (Part, bool) {
	switch b := e.(type) {
	case string:
		return Part{Type: PartText, Content: b}, true
	case map[string]any:
		if p, ok := blockPart(b); ok {
			return p, true
		}
		if len(b) == 0 {
			return Part{}, false
		}
		return Part{Type: PartText, Content: jsonText(b)}, true
	case nil:
		return Part{}, false
	}
	return Part{Type: PartText, Content: jsonText(e)}, true
}

// blockPart reads a block by its type; it reports false for an untyped
// block no rule reads.
func blockPart(b map[string]any) (Part, bool) {
	typ := strOf(b["type"])
	switch typ {
	case "text", "input_text", "output_text":
		if s, ok := b["content"].(string); ok {
			return Part{Type: PartText, Content: s}, true
		}
		return Part{Type: PartText, Content: strOf(b["text"])}, true
	case PartToolCall, "tool_use", "tool-call", "function_call", "server_tool_use", "toolUse":
		// A block with both an id and a call_id (a Responses API item, as
		// such or as a conventions' part an instrumentation copied it
		// into) has an item id (fc_…) and the call id (call_…) its output
		// names: the call id links them.
		p := Part{Type: PartToolCall, ID: firstStr(b, "call_id", "id", "toolCallId", "toolUseId"), Name: firstStr(b, "name", "toolName")}
		for _, k := range [...]string{"arguments", "input", "args"} {
			if a, ok := b[k]; ok {
				p.Arguments = argsValue(a)
				break
			}
		}
		return p, true
	case PartToolResponse, "tool_result", "tool-result", "function_call_output", "toolResult":
		p := Part{Type: PartToolResponse, ID: firstStr(b, "call_id", "id", "tool_use_id", "toolCallId", "toolUseId")}
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
	case "image_url", "input_image":
		u := strOf(b["image_url"])
		if m, ok := b["image_url"].(map[string]any); ok {
			u = strOf(m["url"])
		}
		return Part{Type: PartURI, Modality: "image", URI: u}, true
	case "image", "file", "document", "audio":
		return mediaPart(typ, b), true
	case "":
		if p, ok := untypedPart(b); ok {
			return p, true
		}
		// OpenInference's flattened content entry for a tool_use block is
		// the call itself, OpenAI-shaped: {id, function: {name, arguments}}.
		if _, ok := b["function"].(map[string]any); ok {
			return toolCallPart(b), true
		}
		if s, ok := b["reasoning"].(string); ok {
			return Part{Type: PartReasoning, Content: s}, true
		}
		if s, ok := b["text"].(string); ok {
			// Gemini marks a thought summary with thought: true.
			if th, _ := b["thought"].(bool); th {
				return Part{Type: PartReasoning, Content: s}, true
			}
			return Part{Type: PartText, Content: s}, true
		}
		if s, ok := b["content"].(string); ok {
			return Part{Type: PartText, Content: s}, true
		}
		return Part{}, false
	}
	return Part{Type: typ, Content: jsonText(b)}, true
}

// unwrapResult reads a tool's result down to its value: a Vercel v5
// output ({type:"text"|"json", value}), a list of content blocks (an
// Anthropic tool_result's, Bedrock's [{text}|{json}]) as their text or
// their one JSON value, a JSON string decoded.
func unwrapResult(r any) any {
	switch t := r.(type) {
	case map[string]any:
		if len(t) == 2 {
			if _, ok := t["type"].(string); ok {
				if v, ok := t["value"]; ok {
					return argsValue(v)
				}
			}
		}
	case []any:
		if v, ok := blocksValue(t); ok {
			return v
		}
	}
	return argsValue(r)
}

// blocksValue reads a tool result's content blocks: one JSON block is its
// value, text blocks are their text joined (a JSON text decoded). Blocks
// of any other kind are kept as they are (false).
func blocksValue(l []any) (any, bool) {
	if len(l) == 1 {
		if m, ok := l[0].(map[string]any); ok && len(m) == 1 {
			if j, ok := m["json"]; ok {
				return j, true
			}
		}
	}
	if len(l) == 0 || !looksLikeParts(l) {
		return nil, false
	}
	text := ""
	for i, e := range l {
		m := e.(map[string]any)
		s, ok := m["text"].(string)
		if !ok {
			return nil, false
		}
		if i > 0 {
			text += "\n"
		}
		text += s
	}
	return argsValue(text), true
}
