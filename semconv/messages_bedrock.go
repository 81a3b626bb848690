package semconv

// Bedrock Converse content blocks, which Strands writes in its span
// events and the legacy GenAI events carry: untyped objects named by their
// one member, [{"text"}], [{"toolUse":{toolUseId,name,input}}],
// [{"toolResult":{toolUseId,content:[…],status}}],
// [{"reasoningContent":{"reasoningText":{"text"}}}], and image, document
// and video blocks whose bytes sit in source.bytes.

// bedrockPart reads one Bedrock Converse block.
func bedrockPart(b map[string]any) (Part, bool) {
	if tu, ok := b["toolUse"].(map[string]any); ok {
		p := Part{Type: PartToolCall, ID: firstStr(tu, "toolUseId", "id"), Name: strOf(tu["name"])}
		if a, ok := tu["input"]; ok {
			p.Arguments = argsValue(a)
		}
		return p, true
	}
	if tr, ok := b["toolResult"].(map[string]any); ok {
		return Part{Type: PartToolResponse, ID: firstStr(tr, "toolUseId", "id"), Response: unwrapResult(tr["content"])}, true
	}
	if rc, ok := b["reasoningContent"].(map[string]any); ok {
		if rt, ok := rc["reasoningText"].(map[string]any); ok {
			return Part{Type: PartReasoning, Content: strOf(rt["text"])}, true
		}
		if s := strOf(rc["reasoningText"]); s != "" {
			return Part{Type: PartReasoning, Content: s}, true
		}
		return Part{Type: PartReasoning, Content: strOf(rc["redactedContent"])}, true
	}
	for _, kind := range [...]string{"image", "document", "video"} {
		m, ok := b[kind].(map[string]any)
		if !ok {
			continue
		}
		modality := kind
		mime := strOf(m["format"])
		if mime != "" && kind != "document" {
			mime = kind + "/" + mime
		}
		src, _ := m["source"].(map[string]any)
		if loc, ok := src["s3Location"].(map[string]any); ok {
			return Part{Type: PartURI, Modality: modality, MimeType: mime, URI: strOf(loc["uri"])}, true
		}
		return Part{Type: PartBlob, Modality: modality, MimeType: mime, Content: strOf(src["bytes"])}, true
	}
	return Part{}, false
}
