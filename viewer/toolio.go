package viewer

import (
	"encoding/json"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// appendToolIO adds to a tool span's view record (b, an object still
// open) the arguments and the result its content holds, for a span whose
// record has no argument or input field of its own: libraries write a
// tool's content as content keys (genkit:input, langfuse.observation.input)
// or as message events (Strands' gen_ai.tool.message and gen_ai.choice),
// which semconv.Messages reads. The page shows a tool span's arguments and
// result as such, pretty-printed, never as chat (a tool span has no
// conversation, see runConversations).
func appendToolIO(b []byte, rec *artifact.Record, rd *semconv.Reading) []byte {
	if rd.Kind != semconv.Call || rd.Has(semconv.FieldArgs) || rd.Has(semconv.FieldInput) {
		return b
	}
	c := semconv.Messages(rec.Span)
	args := sideValue(c.Input, semconv.PartToolCall)
	var result any
	if !rd.Has(semconv.FieldResult) && !rd.Has(semconv.FieldOutput) {
		result = sideValue(c.Output, semconv.PartToolResponse)
	}
	for _, f := range []struct {
		key string
		v   any
	}{{"args", args}, {"result", result}} {
		if f.v == nil {
			continue
		}
		js, err := json.Marshal(f.v)
		if err != nil {
			continue // a value Messages read from JSON marshals again
		}
		b = append(b, `,"`+f.key+`":`...)
		b = append(b, js...)
	}
	return b
}

// sideValue is what one side of a tool span's messages says: the first
// part of type prefer (a tool call's arguments on the way in, a tool
// response on the way out), else the first tool part of the other type
// (Strands writes the arguments as a tool-role message), else the text
// of its messages; nil when the side has none of these.
func sideValue(msgs []semconv.Message, prefer string) any {
	var other any
	var text []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Type == prefer:
				return partValue(p)
			case (p.Type == semconv.PartToolCall || p.Type == semconv.PartToolResponse) && other == nil:
				other = partValue(p)
			case p.Type == semconv.PartText:
				text = append(text, p.Content)
			}
		}
	}
	if other != nil {
		return other
	}
	if len(text) > 0 {
		return strings.Join(text, "\n")
	}
	return nil
}

// partValue is a tool part's payload: a call's arguments, a response.
func partValue(p semconv.Part) any {
	if p.Type == semconv.PartToolCall {
		return p.Arguments
	}
	return p.Response
}
