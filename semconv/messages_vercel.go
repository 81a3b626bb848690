package semconv

import "github.com/agenttrace/agenttrace/semconv/internal/dialect"

// Shapes the Vercel AI SDK introduced: a prompt document (ai.prompt) and
// an answer spread over keys (ai.response.text, .reasoning, .toolCalls);
// the table's content section says which keys have them. Its parts,
// tool-call and tool-result, are read by blockPart.

// promptMessages reads a prompt document {system?, prompt?, messages?}
// (the AI SDK's ai.prompt on its outer span); its system is a system
// message.
func promptMessages(v any) []Message {
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

// resultMessages reads an answer spread over keys (a result source: the
// AI SDK's ai.response.text, .reasoning and .toolCalls) as one assistant
// message.
func resultMessages(r *spanContent, s *dialect.ContentSource) []Message {
	get := r.get
	var parts []Part
	if v, ok := get(s.Reasoning); ok {
		if s, ok := v.(string); ok && s != "" {
			parts = append(parts, Part{Type: PartReasoning, Content: s})
		}
	}
	if v, ok := get(s.Text); ok {
		if s, ok := v.(string); ok && s != "" {
			parts = append(parts, Part{Type: PartText, Content: s})
		} else if !ok {
			parts = append(parts, Part{Type: PartText, Content: jsonText(v)})
		}
	}
	if v, ok := get(s.ToolCalls); ok {
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
