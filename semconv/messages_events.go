package semconv

import "go.opentelemetry.io/collector/pdata/ptrace"

// Per-message span events (the GenAI conventions before
// gen_ai.input.messages, and the official instrumentations' log records
// read as events by AppendLogEvent). Messages come in the order of the
// events, which is the order the source emitted them in: never re-sorted
// by time, since several events of one call often share one timestamp.

// findEvent returns the attributes of the events named name, merged in
// their order, the first event's value winning where two carry one key:
// Strands (gen_ai_latest_experimental) writes one
// gen_ai.client.inference.operation.details event per key
// (testdata/real/strands-agents/payloads/latest-tool-loop.traces.json),
// as AppendLogEvent merges the log records that split one.
func findEvent(evs ptrace.SpanEventSlice, name string) map[string]any {
	var out map[string]any
	for _, ev := range evs.All() {
		if ev.Name() != name {
			continue
		}
		if out == nil {
			out = ev.Attributes().AsRaw()
			continue
		}
		for k, v := range ev.Attributes().All() {
			if _, ok := out[k]; !ok {
				out[k] = v.AsRaw()
			}
		}
	}
	return out
}

// eventMessages reads the deprecated per-message span events: input from
// gen_ai.system/user/assistant/tool.message and gen_ai.content.prompt,
// output from gen_ai.choice and gen_ai.content.completion.
func eventMessages(evs ptrace.SpanEventSlice, output bool) []Message {
	var out []Message
	for _, ev := range evs.All() {
		name := ev.Name()
		a := ev.Attributes()
		body := a.AsRaw()
		if v, ok := a.Get(EventContent); ok {
			if m, ok := valueAny(v).(map[string]any); ok {
				body = m
			}
		}
		switch {
		case output && name == EventChoice:
			m := body
			// Strands writes the choice's content blocks as a JSON string
			// under "message".
			if s, ok := m["message"].(string); ok && m["content"] == nil {
				m["content"] = s
				delete(m, "message")
			}
			if inner, ok := m["message"].(map[string]any); ok {
				merged := map[string]any{}
				for k, v := range inner {
					merged[k] = v
				}
				if tc, ok := m["tool_calls"]; ok && merged["tool_calls"] == nil {
					merged["tool_calls"] = tc
				}
				merged["finish_reason"] = m["finish_reason"]
				m = merged
			}
			if msg, ok := normMessage(m, RoleAssistant); ok {
				out = append(out, msg)
			}
		case output && name == EventContentCompletion:
			if v, ok := a.Get(Completion); ok {
				out = append(out, messagesOf(valueAny(v), RoleAssistant)...)
			}
		case !output && name == EventContentPrompt:
			if v, ok := a.Get(Prompt); ok {
				out = append(out, messagesOf(valueAny(v), RoleUser)...)
			}
		case !output:
			var role string
			switch name {
			case EventSystemMessage:
				role = RoleSystem
			case EventUserMessage:
				role = RoleUser
			case EventAssistantMessage:
				role = RoleAssistant
			case EventToolMessage:
				role = RoleTool
				if id := strOf(body["id"]); id != "" && body["tool_call_id"] == nil {
					body["tool_call_id"] = id
				}
			default:
				continue
			}
			if msg, ok := normMessage(body, role); ok {
				out = append(out, msg)
			}
		}
	}
	return out
}
