package converter

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/semconv"
)

// inheritInput gives model call i, which carries no input of its own, the
// input of its nearest ancestor that carries some (Mastra keeps system and
// user messages, and the step's whole history, on the agent step span
// above the model call): the ancestor's whole input when the call is the
// only model call below it (the input is then this call's), else only its
// system and user messages (the context every call below it shares). It
// returns the ancestor's span id, or an empty id when no ancestor has
// input. index finds a span's record; calls counts the model calls below
// each record.
func inheritInput(recs []Record, index map[SpanKey]int, calls map[int]int, i int, c *semconv.Conversation) pcommon.SpanID {
	sp := recs[i].Span
	k := SpanKey{sp.TraceID(), sp.ParentSpanID()}
	// The bound stops a malformed trace whose parents form a cycle.
	for range len(recs) {
		j, ok := index[k]
		if !ok || k.Span.IsEmpty() {
			break
		}
		a := semconv.Messages(recs[j].Span)
		if len(a.Input) > 0 {
			if len(c.System) == 0 {
				c.System = a.System
			}
			if calls[j] == 1 {
				c.Input = a.Input
			} else {
				for _, m := range a.Input {
					if m.Role == semconv.RoleUser {
						c.Input = append(c.Input, m)
					}
				}
			}
			if len(c.Input) > 0 {
				return recs[j].Span.SpanID()
			}
		}
		k.Span = recs[j].Span.ParentSpanID()
	}
	return pcommon.SpanID{}
}

// callsBelow counts, for each record, the model calls (leaves) below it.
func callsBelow(recs []Record, index map[SpanKey]int, leaves []int) map[int]int {
	out := make(map[int]int)
	for _, i := range leaves {
		sp := recs[i].Span
		k := SpanKey{sp.TraceID(), sp.ParentSpanID()}
		for range len(recs) {
			j, ok := index[k]
			if !ok || k.Span.IsEmpty() {
				break
			}
			out[j]++
			k.Span = recs[j].Span.ParentSpanID()
		}
	}
	return out
}

// inheritOutput gives model call i, which carries no output of its own,
// the output of its nearest ancestor that has some and no other model call
// below it (the output is then this call's: Mastra records a step's tool
// calls on the agent step only). Only an output that calls tools is taken:
// a wrapper's text may be its own (an error it reports, a count of
// embeddings), while a tool call can only be the model's. An ancestor
// shared with other calls gives nothing: its output is not this call's.
func inheritOutput(recs []Record, index map[SpanKey]int, calls map[int]int, i int, c *semconv.Conversation) {
	sp := recs[i].Span
	k := SpanKey{sp.TraceID(), sp.ParentSpanID()}
	for range len(recs) {
		j, ok := index[k]
		if !ok || k.Span.IsEmpty() || calls[j] != 1 {
			return
		}
		if a := semconv.Messages(recs[j].Span); len(a.Output) > 0 {
			if hasToolCall(a.Output) {
				c.Output = a.Output
			}
			return
		}
		k.Span = recs[j].Span.ParentSpanID()
	}
}

func hasToolCall(ms []semconv.Message) bool {
	for _, m := range ms {
		for _, p := range m.Parts {
			if p.Type == semconv.PartToolCall {
				return true
			}
		}
	}
	return false
}
