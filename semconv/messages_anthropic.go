package semconv

import "strings"

// Anthropic content blocks: text, tool_use, tool_result (whose content
// may itself be blocks: unwrapResult), thinking and redacted_thinking are
// read by blockPart; image and document blocks, whose data sits in a
// source object, here. Vercel's image and file parts share the reader.

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
