package artifact

import (
	"cmp"
	"slices"

	"github.com/agenttrace/agenttrace/semconv"
)

// A Level is a span whose own usage disagrees with the sum of its
// children's subtree usage (see [semconv.Nesting]): a wrapper reporting
// its last step only, an agent holding more than its model calls report.
type Level struct {
	// Index is the record's index in the batch.
	Index int
	// Reported is the span's own usage, Children its children's subtree
	// usage summed, Counted what the span adds beyond them (the rule's
	// max(0, reported − children) per class).
	Reported, Children, Counted semconv.Usage
}

// UsageLevels returns the spans of recs whose usage disagrees with their
// children's, in record order. It applies the rule a [Tally] applies as
// spans end, but to the whole batch in an order where every child comes
// before its parent, so a child that ended after its parent (a streamed
// call closing with its stream) is among the children it is compared
// with.
func UsageLevels(recs []Record) []Level {
	parent := make(map[SpanKey]int, len(recs))
	for i := range recs {
		sp := recs[i].Span
		parent[SpanKey{sp.TraceID(), sp.SpanID()}] = i
	}
	depth := spanDepths(recs, parent)
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(depth[b], depth[a]) })
	var (
		nest semconv.Nesting
		rd   semconv.Reading
		out  []Level
	)
	for _, i := range order {
		sp := recs[i].Span
		recs[i].Read(&rd)
		u := rd.TokenUsage()
		e := nest.End(sp.TraceID(), sp.SpanID(), sp.ParentSpanID(), rd.Kind, u)
		if e.Disagrees {
			out = append(out, Level{Index: i, Reported: u, Children: e.Children, Counted: e.Counts})
		}
	}
	slices.SortFunc(out, func(a, b Level) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// spanDepths is each record's number of ancestors among recs. Each depth is
// worked out once and reused by the spans below it, so a chain of n spans
// costs n steps, not n²/2 (a 20,000-deep chain took seconds). A malformed
// trace whose parents form a cycle ends the walk where it meets itself.
func spanDepths(recs []Record, parent map[SpanKey]int) []int {
	const unknown, onPath = -1, -2
	depth := make([]int, len(recs))
	for i := range depth {
		depth[i] = unknown
	}
	var path []int
	for i := range recs {
		path = path[:0]
		d := -1 // the depth of the span above the path's last one
		for j := i; ; {
			if depth[j] >= 0 {
				d = depth[j]
				break
			}
			if depth[j] == onPath {
				break // a cycle: its spans count from here
			}
			depth[j] = onPath
			path = append(path, j)
			sp := recs[j].Span
			p := sp.ParentSpanID()
			k, ok := parent[SpanKey{sp.TraceID(), p}]
			if p.IsEmpty() || !ok {
				break
			}
			j = k
		}
		for n := len(path) - 1; n >= 0; n-- {
			d++
			depth[path[n]] = d
		}
	}
	return depth
}
