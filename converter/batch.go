package converter

import "github.com/agenttrace/agenttrace/artifact"

// A Batch is a batch of records with what the readers of its model calls
// share computed once, when first asked: which records are wrappers
// ([Wrappers]) and where each span is. A page asks for the model calls,
// the failures and the wrappers of one run; each of the package's
// functions of a batch alone ([ModelCalls], [Failures], [CarryFailures],
// [Wrappers]) would compute them again. The records must not change while
// the Batch is used. A Batch is not safe for concurrent use.
type Batch struct {
	recs     []artifact.Record
	wrappers []bool
	index    map[artifact.SpanKey]int
}

// NewBatch returns the batch of recs.
func NewBatch(recs []artifact.Record) *Batch { return &Batch{recs: recs} }

// Wrappers is [Wrappers] of the batch. The slice is the batch's own,
// shared by every later call: read it, do not change it.
func (b *Batch) Wrappers() []bool {
	if b.wrappers == nil {
		b.wrappers = wrappersOf(b.recs)
	}
	return b.wrappers
}

// spanIndex is each span's index in the batch.
func (b *Batch) spanIndex() map[artifact.SpanKey]int {
	if b.index == nil {
		b.index = make(map[artifact.SpanKey]int, len(b.recs))
		for i := range b.recs {
			sp := b.recs[i].Span
			b.index[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = i
		}
	}
	return b.index
}
