package semconv

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv/internal/dialect"
)

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

// eventMessages reads per-message events, in their order: those of evs
// whose name is one of srcs' (the table's events sources: the deprecated
// gen_ai.system/user/assistant/tool.message and gen_ai.choice, whose body
// is one message, and gen_ai.content.prompt / .completion, whose
// attribute holds a list).
func eventMessages(evs ptrace.SpanEventSlice, srcs []dialect.EventSource, output bool) []Message {
	var out []Message
	for _, ev := range evs.All() {
		i := slices.IndexFunc(srcs, func(e dialect.EventSource) bool { return e.Name == ev.Name() })
		if i < 0 {
			continue
		}
		src := srcs[i]
		a := ev.Attributes()
		if src.Key != "" {
			if v, ok := a.Get(src.Key); ok {
				out = append(out, messagesOf(valueAny(v), sideRole(output))...)
			}
			continue
		}
		body := a.AsRaw()
		if v, ok := a.Get(EventContent); ok {
			if m, ok := valueAny(v).(map[string]any); ok {
				body = m
			}
		}
		if src.Role == RoleTool {
			if id := strOf(body["id"]); id != "" && body["tool_call_id"] == nil {
				body["tool_call_id"] = id
			}
		}
		if msg, ok := normMessage(choiceBody(body), src.Role); ok {
			out = append(out, msg)
		}
	}
	return out
}

func sideRole(output bool) string {
	if output {
		return RoleAssistant
	}
	return RoleUser
}

// choiceBody reads a choice's body {index, finish_reason, message: {...}}
// (gen_ai.choice) as the message it holds, the choice's tool calls and
// finish reason merged in; Strands writes the choice's content blocks as a
// JSON string under "message". A body of any other event is returned as
// it is.
func choiceBody(m map[string]any) map[string]any {
	if s, ok := m["message"].(string); ok && m["content"] == nil {
		m["content"] = s
		delete(m, "message")
	}
	inner, ok := m["message"].(map[string]any)
	if !ok {
		return m
	}
	merged := map[string]any{}
	for k, v := range inner {
		merged[k] = v
	}
	if tc, ok := m["tool_calls"]; ok && merged["tool_calls"] == nil {
		merged["tool_calls"] = tc
	}
	merged["finish_reason"] = m["finish_reason"]
	return merged
}
