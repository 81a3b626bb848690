package converter

import (
	"iter"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Wrappers returns, for each of recs, whether it is a wrapper: a span that
// classifies as an inference but has an inference among its descendants
// (an embeddings batch around per-chunk calls; a framework's chat span
// around the provider SDK's own). A wrapper is a span record: it keeps its
// attributes but is never added to totals or budgets. Unlike
// [semconv.Nesting], which a streaming [Tally] uses, Wrappers sees the
// whole batch, so the order of recs does not matter. Apply it to a
// reading with:
//
//	if wrappers[i] { rd.Kind = semconv.Span }
func Wrappers(recs []artifact.Record) []bool { return NewBatch(recs).Wrappers() }

// wrappersOf is Wrappers, computed.
func wrappersOf(recs []artifact.Record) []bool {
	out := make([]bool, len(recs))
	parent := make(map[artifact.SpanKey]pcommon.SpanID, len(recs))
	var rd semconv.Reading
	var inference []int
	for i := range recs {
		sp := recs[i].Span
		parent[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = sp.ParentSpanID()
		recs[i].Read(&rd)
		if rd.Kind == semconv.Inference {
			inference = append(inference, i)
		}
	}
	if len(inference) < 2 {
		return out
	}
	below := make(map[artifact.SpanKey]bool) // spans with an inference among their descendants
	for _, i := range inference {
		sp := recs[i].Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
		// The bound stops a malformed trace whose parents form a cycle.
		for range len(recs) {
			if k.Span.IsEmpty() || below[k] {
				break
			}
			below[k] = true
			p, ok := parent[k]
			if !ok {
				break
			}
			k.Span = p
		}
	}
	for _, i := range inference {
		sp := recs[i].Span
		out[i] = below[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}]
	}
	return out
}

// ModelCall is one model call of a batch and its conversation.
type ModelCall struct {
	// Index is the record's index in the batch.
	Index int
	// Conversation is what the call was sent and answered, normalized
	// (see [semconv.Messages]).
	Conversation semconv.Conversation
	// InheritedFrom is the ancestor span whose input the call took
	// because it carried none of its own (its wrapper's, or its nearest
	// ancestor's: see [ModelCalls]); empty when the input is the call's
	// own.
	InheritedFrom pcommon.SpanID
}

// ModelCalls returns the model calls of recs in their order: inference
// records that are not wrappers (see [Wrappers]), each with its
// conversation. When two instrumentations describe one call, the content
// is often on the framework's wrapper and the usage on the SDK's leaf
// span; a leaf that carries no system, input or output then takes it
// from its nearest wrapper, if that wrapper wraps no other call. A call
// still without input takes its nearest ancestor's (see InheritedFrom).
// Every reader of conversations (messages, the page, serve, diff, audit)
// comes here, so all of them show the same inherited input.
func ModelCalls(recs []artifact.Record) []ModelCall { return NewBatch(recs).ModelCalls() }

// ModelCalls is [ModelCalls] of the batch.
func (b *Batch) ModelCalls() []ModelCall {
	mc := b.modelCalls()
	out := make([]ModelCall, 0, len(mc.leaves))
	for _, i := range mc.leaves {
		out = append(out, mc.call(i))
	}
	return out
}

// ModelCallsBy returns the batch's model calls (those of [ModelCalls],
// equal to them) in the order cmp gives their record indices, stable
// (ModelCalls' order among equals). A call's conversation is normalized
// only when the iteration reaches it, so that a reader that wants one
// call of many (the catalog's first prompt: the earliest call with a user
// message) does not normalize every call's messages.
func (b *Batch) ModelCallsBy(cmp func(i, j int) int) iter.Seq[ModelCall] {
	return func(yield func(ModelCall) bool) {
		mc := b.modelCalls()
		order := slices.Clone(mc.leaves)
		slices.SortStableFunc(order, cmp)
		for _, i := range order {
			if !yield(mc.call(i)) {
				return
			}
		}
	}
}

// modelCalls is what the model calls of a batch are made from: the
// leaves (inference records that are not wrappers), the nearest wrapper
// above each, and how many leaves each wrapper wraps.
type modelCalls struct {
	recs    []artifact.Record
	index   map[artifact.SpanKey]int
	leaves  []int
	nearest map[int]int
	wraps   map[int]int
	calls   map[int]int // model calls below each record, counted when needed
}

// modelCalls finds the batch's leaves and their wrappers.
func (b *Batch) modelCalls() *modelCalls {
	recs, wrappers, index := b.recs, b.Wrappers(), b.spanIndex()
	mc := &modelCalls{recs: recs, index: index, wraps: map[int]int{}}
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind == semconv.Inference && !wrappers[i] {
			mc.leaves = append(mc.leaves, i)
		}
	}
	// The nearest wrapper above each leaf, and how many leaves each wraps.
	mc.nearest = make(map[int]int, len(mc.leaves))
	for _, i := range mc.leaves {
		sp := recs[i].Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
		first := true
		for range len(recs) {
			j, ok := index[k]
			if !ok || k.Span.IsEmpty() {
				break
			}
			if wrappers[j] {
				mc.wraps[j]++
				if first {
					mc.nearest[i], first = j, false
				}
			}
			k.Span = recs[j].Span.ParentSpanID()
		}
	}
	return mc
}

// call is the model call of leaf i, its conversation normalized.
func (mc *modelCalls) call(i int) ModelCall {
	recs, index := mc.recs, mc.index
	c := semconv.Messages(recs[i].Span)
	var from pcommon.SpanID // where the input came from, when not the call itself
	if j, ok := mc.nearest[i]; ok && mc.wraps[j] == 1 && (len(c.System) == 0 || len(c.Input) == 0 || len(c.Output) == 0) {
		w := semconv.Messages(recs[j].Span)
		if len(c.System) == 0 {
			c.System = w.System
		}
		if len(c.Input) == 0 && len(w.Input) > 0 {
			c.Input, from = w.Input, recs[j].Span.SpanID()
		}
		if len(c.Output) == 0 {
			c.Output = w.Output
		}
	}
	out := ModelCall{Index: i, Conversation: c, InheritedFrom: from}
	if len(c.Input) == 0 {
		if mc.calls == nil {
			mc.calls = callsBelow(recs, index, mc.leaves)
		}
		out.InheritedFrom = inheritInput(recs, index, mc.calls, i, &out.Conversation)
	}
	if len(out.Conversation.Output) == 0 {
		if mc.calls == nil {
			mc.calls = callsBelow(recs, index, mc.leaves)
		}
		inheritOutput(recs, index, mc.calls, i, &out.Conversation)
	}
	return out
}
