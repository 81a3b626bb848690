package viewer

import (
	"cmp"
	"encoding/hex"
	"math"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// The waterfall's order, computed once in Go, so that the page embeds the
// records in the order it lists them and can paint its first screen from
// the first chunk it reads, before the rest of a large run is parsed: a
// record's parent always comes before it (issue 24, "paint first").
//
// The rule is the tree the page draws: a record is the child of the record
// (or the pending parent, see RunState) of its trace whose span id is its
// parent span id; roots and each parent's children are ordered by start,
// then end, then their place in the run; the list is the tree in
// preorder. A wrapper folded into its model call (wrapFolds) is no node of
// the tree: the call stands where the wrapper would, under the wrapper's
// parent, with the wrapper's other children under it, and the wrapper's
// record comes just before the call's (the page reads it first, to fold
// it in). Records caught in a parent cycle (hostile input), which no root
// reaches, follow the rest in their order in the run.

// waterfall is the order of a run's records as the page lists them, with
// the pending parents placed in it.
type waterfall struct {
	// order holds the indices of the run's records, in waterfall order.
	order []int
	// pendingAt holds, for each pending parent, how many records of order
	// come before its row.
	pendingAt []int
}

// waterfallOrder orders recs and their pending parents (RunState's) as
// the waterfall lists them, with folds (nil for none) applied.
func waterfallOrder(recs []artifact.Record, pend []Pending, folds *wrapFolds) waterfall {
	type key struct {
		t pcommon.TraceID
		s pcommon.SpanID
	}
	n := len(recs)
	// Nodes 0..n-1 are the records, n.. the pending parents.
	start := make([]uint64, n+len(pend))
	end := make([]uint64, n+len(pend))
	byKey := make(map[key]int, n+len(pend))
	for i := range recs {
		sp := recs[i].Span
		start[i], end[i] = uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp())
		byKey[key{sp.TraceID(), sp.SpanID()}] = i
	}
	for j, p := range pend {
		var k key
		// RunState wrote them from ids: they decode.
		_, _ = hex.Decode(k.t[:], []byte(p.TraceID))
		_, _ = hex.Decode(k.s[:], []byte(p.SpanID))
		start[n+j] = uint64(p.T0 * 1e6)
		end[n+j] = start[n+j]
		if p.Running {
			end[n+j] = math.MaxUint64 // it ends "now", after everything
		}
		byKey[k] = n + j
	}
	kids := make([][]int, n+len(pend))
	var roots []int
	for i := range recs {
		if folds.folded(i) {
			continue // visited with its leaf
		}
		sp := recs[i].Span
		p := sp.ParentSpanID()
		if folds != nil && folds.wrapperOf[i] >= 0 {
			p = recs[folds.wrapperOf[i]].Span.ParentSpanID() // in its wrapper's place
		}
		if !p.IsEmpty() {
			if j, ok := byKey[key{sp.TraceID(), p}]; ok && j != i {
				if folds.folded(j) {
					j = folds.leafOf[j] // the wrapper's other children go under its call
				}
				if j != i {
					kids[j] = append(kids[j], i)
					continue
				}
			}
		}
		roots = append(roots, i)
	}
	for j := range pend {
		roots = append(roots, n+j)
	}
	byStart := func(a, b int) int {
		return cmp.Or(cmp.Compare(start[a], start[b]), cmp.Compare(end[a], end[b]), cmp.Compare(a, b))
	}
	w := waterfall{order: make([]int, 0, n), pendingAt: make([]int, len(pend))}
	seen := make([]bool, n+len(pend))
	visit := func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		if i >= n {
			w.pendingAt[i-n] = len(w.order)
			return
		}
		if folds != nil && folds.wrapperOf[i] >= 0 && !seen[folds.wrapperOf[i]] {
			seen[folds.wrapperOf[i]] = true
			w.order = append(w.order, folds.wrapperOf[i])
		}
		w.order = append(w.order, i)
	}
	// Preorder with a stack: a chain of 20,000 parents must not recurse.
	slices.SortFunc(roots, byStart)
	stack := slices.Clone(roots)
	slices.Reverse(stack)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		visit(i)
		ks := kids[i]
		slices.SortFunc(ks, byStart)
		for k := len(ks) - 1; k >= 0; k-- {
			stack = append(stack, ks[k])
		}
	}
	for i := range n {
		if !folds.folded(i) {
			visit(i)
		}
	}
	return w
}
