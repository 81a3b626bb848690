package viewer

import (
	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// Two instrumentations at once describe one model call twice: a
// framework's span (OpenInference's "Anthropic Messages", OpenLLMetry's
// "chat claude-…") around the SDK's own ("anthropic.messages.create").
// The wrapper is the one the usage rule does not count (semconv.Nesting;
// converter.Wrappers over a whole batch). The page and the outline show
// such a pair as one model call row, the leaf's, with the wrapper folded
// in (issue 24 point 4): the wrapper's record carries "folded_into" (the
// leaf's span id) and is not a row; the leaf carries "wrapped_by" (the
// wrapper's span id) and "view_parent" (the wrapper's parent, "" for a
// root), and any other child of the wrapper "view_parent" (the leaf), so
// the tree reads as if the wrapper were the leaf. Only a wrapper around
// exactly one model call, its direct child, is folded: an embeddings
// batch around per-chunk calls stays a row of its own.
type wrapFolds struct {
	recs      []artifact.Record
	leafOf    []int // per record: the leaf a wrapper folds into, -1 for none
	wrapperOf []int // per record: the wrapper folded into this leaf, -1 for none
	// viewParent is, per record, the parent the page draws it under when
	// it is not its span's: a leaf's is its wrapper's parent ("" for a
	// root), another child's of the wrapper the leaf; nil for the rest.
	viewParent []*string
}

// foldWrappers finds the wrappers of b's records to fold; nil when there
// is none.
func foldWrappers(b *converter.Batch, recs []artifact.Record) *wrapFolds {
	wrappers := b.Wrappers()
	index := make(map[artifact.SpanKey]int)
	for i, w := range wrappers {
		if w {
			sp := recs[i].Span
			index[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = i
		}
	}
	if len(index) == 0 {
		return nil
	}
	// Count, per wrapper, the model calls below it, and remember a
	// direct child that is one.
	calls := make(map[int]int)
	leaf := make(map[int]int)
	var rd semconv.Reading
	for j := range recs {
		if wrappers[j] {
			continue
		}
		recs[j].Read(&rd)
		if rd.Kind != semconv.Inference {
			continue
		}
		sp := recs[j].Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
		if w, ok := index[k]; ok {
			leaf[w] = j
		}
		// Up through the wrappers above it (a parent cycle stops at the
		// bound).
		for range len(index) {
			w, ok := index[k]
			if !ok {
				break
			}
			calls[w]++
			k.Span = recs[w].Span.ParentSpanID()
		}
	}
	f := &wrapFolds{recs: recs, leafOf: make([]int, len(recs)), wrapperOf: make([]int, len(recs)), viewParent: make([]*string, len(recs))}
	for i := range recs {
		f.leafOf[i], f.wrapperOf[i] = -1, -1
	}
	folded := make(map[artifact.SpanKey]int) // wrapper -> its leaf
	for w, j := range leaf {
		if calls[w] != 1 {
			continue
		}
		ws := recs[w].Span
		f.leafOf[w], f.wrapperOf[j] = j, w
		p := ""
		if !ws.ParentSpanID().IsEmpty() {
			p = ws.ParentSpanID().String()
		}
		f.viewParent[j] = &p
		folded[artifact.SpanKey{Trace: ws.TraceID(), Span: ws.SpanID()}] = j
	}
	if len(folded) == 0 {
		return nil
	}
	for i := range recs {
		sp := recs[i].Span
		if j, ok := folded[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}]; ok && j != i {
			id := recs[j].Span.SpanID().String()
			f.viewParent[i] = &id
		}
	}
	return f
}

// appendJSON writes record i's fold members (see wrapFolds).
func (f *wrapFolds) appendJSON(b []byte, i int) []byte {
	if f == nil {
		return b
	}
	add := func(name, v string) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":"`...)
		b = append(b, v...) // span ids are hex: nothing to escape
		b = append(b, '"')
	}
	if j := f.leafOf[i]; j >= 0 {
		add("folded_into", f.recs[j].Span.SpanID().String())
	}
	if w := f.wrappedBy(i); w != "" {
		add("wrapped_by", w)
	}
	if p := f.viewParent[i]; p != nil {
		add("view_parent", *p)
	}
	return b
}

// folded tells whether record i is a wrapper folded into its leaf: no row.
func (f *wrapFolds) folded(i int) bool { return f != nil && f.leafOf[i] >= 0 }

// wrappedBy is the span id of the wrapper folded into record i, "" for
// none.
func (f *wrapFolds) wrappedBy(i int) string {
	if f == nil || f.wrapperOf[i] < 0 {
		return ""
	}
	return f.recs[f.wrapperOf[i]].Span.SpanID().String()
}
