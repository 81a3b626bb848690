package converter

import (
	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Failures returns, for each of recs, whether it failed: what [Failed]
// says of its span, and, for a model call, the failure of the span around
// it when the two are one call. A model call that returned nothing (no
// usage, no output with content) and is the only model call below a span
// that failed has failed with it: a library may mark the failure only on
// the span around the call (@mastra/arize 1.3.8 puts the status ERROR and
// the exception on its agent span, and leaves the model call below it
// OK with an empty answer: testdata/real/mastra-arize/payloads/fail.traces.pb).
// A span with several model calls below it says nothing of which failed,
// and a call that returned something did not fail silently, so neither
// takes the failure. Every reader that counts errors over a batch (the
// report's errors and failures, the page's red rows, filter and next
// error) asks it, so they agree.
func Failures(recs []artifact.Record) []bool { return NewBatch(recs).Failures() }

// Failures is [Failures] of the batch.
func (b *Batch) Failures() []bool {
	recs := b.recs
	out := make([]bool, len(recs))
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		out[i] = artifact.Failed(recs[i].Span, &rd)
	}
	b.CarryFailures(out)
	return out
}

// CarryFailures is [Failures] for a caller that has [Failed] of each
// record already, in failed: it sets the model calls that failed with
// the span around them.
func CarryFailures(recs []artifact.Record, failed []bool) { NewBatch(recs).CarryFailures(failed) }

// CarryFailures is [CarryFailures] of the batch.
func (b *Batch) CarryFailures(failed []bool) {
	recs, out := b.recs, failed
	var rd semconv.Reading
	around := false
	for i := range recs {
		if out[i] {
			recs[i].Read(&rd)
			around = around || rd.Kind != semconv.Inference
		}
	}
	if !around {
		return // no span around a call failed: nothing to carry down
	}
	wrappers, index := b.Wrappers(), b.spanIndex()
	var leaves, silent []int
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind != semconv.Inference || wrappers[i] {
			continue
		}
		leaves = append(leaves, i)
		if !out[i] && rd.TokenUsage().IsZero() && !hasContent(semconv.Messages(recs[i].Span).Output) {
			silent = append(silent, i)
		}
	}
	if len(silent) == 0 {
		return
	}
	calls := callsBelow(recs, index, leaves)
	for _, i := range silent {
		sp := recs[i].Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
		// The bound stops a malformed trace whose parents form a cycle.
		for range len(recs) {
			j, ok := index[k]
			if !ok || k.Span.IsEmpty() || calls[j] != 1 {
				break
			}
			if out[j] {
				out[i] = true
				break
			}
			k.Span = recs[j].Span.ParentSpanID()
		}
	}
}

// hasContent reports whether some part of ms holds something: a text or
// reasoning that is not empty, a tool call, a file; an assistant message
// whose only text is "" returned nothing.
func hasContent(ms []semconv.Message) bool {
	for _, m := range ms {
		for _, p := range m.Parts {
			switch p.Type {
			case semconv.PartText, semconv.PartReasoning:
				if p.Content != "" {
					return true
				}
			default:
				return true
			}
		}
	}
	return false
}
