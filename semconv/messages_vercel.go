package semconv

// The Vercel AI SDK's own keys: ai.prompt, ai.prompt.messages and
// ai.response.* (its parts, tool-call and tool-result, are read by
// blockPart).

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
