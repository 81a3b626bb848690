package judge

import (
	"slices"
	"strconv"
)

// Costs of the alignment, in hundredths of one call inserted or removed.
// A pair of calls of the same tool always costs less than removing one
// and inserting the other (so a changed argument stays one pair), a pair
// of different tools costs less than that too (one diverged call rather
// than two findings), and equal arguments win over similar ones (so an
// inserted retry is the copy, not the original).
const (
	costIndel       = 100 // a call only one run made
	costOtherTool   = 150 // a pair of different tools (or kinds)
	costArgsBase    = 50  // a pair of one tool whose arguments differ
	costArgsSpread  = 40  // ... plus up to this, by how much they differ
	costOutcomeDiff = 5   // a pair whose outcomes differ
)

// maxAlignCells bounds the alignment's table (one byte a cell): past it,
// the calls between the runs' common start and end are paired by position.
const maxAlignCells = 16 << 20

// step is one step of an alignment: a pair (a and b >= 0), a call only in
// A (b < 0) or only in B (a < 0).
type step struct{ a, b int }

// alignable is what the alignment needs of a call.
type alignable interface {
	// key is the call's kind and tool (or model); args, its arguments in
	// canonical form; ok and code, its outcome.
	alignKey() string
	alignArgs() string
	alignLeaves() map[string]string
	alignOutcome() string
}

// pairCost is the cost of pairing x with y.
func pairCost(x, y alignable) int {
	c := 0
	if x.alignOutcome() != y.alignOutcome() {
		c = costOutcomeDiff
	}
	switch {
	case x.alignKey() != y.alignKey():
		return c + costOtherTool
	case x.alignArgs() == y.alignArgs():
		return c
	}
	return c + costArgsBase + costArgsSpread*dissimilar(x.alignLeaves(), y.alignLeaves())/100
}

// dissimilar is how much two argument trees differ, in percent of the
// leaf paths either has.
func dissimilar(x, y map[string]string) int {
	union, diff := len(x), 0
	for p, v := range x {
		if w, ok := y[p]; !ok || w != v {
			diff++
		}
	}
	for p := range y {
		if _, ok := x[p]; !ok {
			union++
			diff++
		}
	}
	if union == 0 {
		return 0
	}
	return diff * 100 / union
}

// align aligns two sequences of calls with the least total cost
// (Needleman-Wunsch over the costs above). Calls equal in key, arguments
// and outcome are anchored first, by a longest common subsequence (Myers'
// O((N+M)D) algorithm, fast when the runs are mostly the same, as reruns
// are); the table is filled only for the gaps between anchors. Each gap is
// filled from its end, so that ties are broken toward pairing early calls
// (of two identical calls, the first is the original and the second the
// inserted copy).
func align[T any, P interface {
	*T
	alignable
}](xs, ys []T) []step {
	ids := map[string]int{}
	id := func(c P) int {
		k := c.alignKey() + "\x00" + c.alignArgs() + "\x00" + c.alignOutcome()
		if v, ok := ids[k]; ok {
			return v
		}
		ids[k] = len(ids)
		return len(ids) - 1
	}
	a, b := make([]int, len(xs)), make([]int, len(ys))
	for i := range xs {
		a[i] = id(P(&xs[i]))
	}
	for j := range ys {
		b[j] = id(P(&ys[j]))
	}
	anchors, ok := commonSubsequence(a, b)
	if !ok {
		// Too different to anchor cheaply: one table for all of it.
		return alignMiddle[T, P](xs, ys, 0, len(xs), 0, len(ys), nil)
	}
	steps := make([]step, 0, max(len(xs), len(ys)))
	x, y := 0, 0
	for _, p := range append(anchors, step{len(xs), len(ys)}) {
		steps = alignMiddle[T, P](xs, ys, x, p.a, y, p.b, steps)
		if p.a < len(xs) {
			steps = append(steps, p)
		}
		x, y = p.a+1, p.b+1
	}
	return steps
}

// maxEdits bounds the edit distance commonSubsequence looks for, and so
// its memory (about maxEdits² ints); runs further apart are aligned by
// the table alone.
const maxEdits = 1000

// commonSubsequence returns a longest common subsequence of a and b as
// pairs of positions, in order (Myers, "An O(ND) difference algorithm and
// its variations", 1986); false when a and b differ by more than maxEdits
// insertions and removals.
func commonSubsequence(a, b []int) ([]step, bool) {
	n, m := len(a), len(b)
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int // trace[d]: v[off-d-1 : off+d+2] before round d
	for d := 0; d <= n+m; d++ {
		if d > maxEdits {
			return nil, false
		}
		trace = append(trace, slices.Clone(v[off-d-1:off+d+2]))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, true // not reached: round n+m always ends
}

// backtrack walks the rounds of commonSubsequence back from (n, m),
// collecting the diagonal moves: the common elements.
func backtrack(trace [][]int, n, m int) []step {
	var pairs []step
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		v := trace[d] // index k is at k+d+1
		at := func(k int) int { return v[k+d+1] }
		k := x - y
		prev := k - 1
		if k == -d || k != d && at(k-1) < at(k+1) {
			prev = k + 1
		}
		px := at(prev)
		py := px - prev
		for x > px && y > py {
			x--
			y--
			pairs = append(pairs, step{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		pairs = append(pairs, step{x, y})
	}
	slices.Reverse(pairs)
	return pairs
}

// Moves in the alignment table.
const (
	movePair byte = iota
	moveA         // a call only in A
	moveB         // a call only in B
)

// alignMiddle aligns xs[x0:x1] with ys[y0:y1], appending to steps.
func alignMiddle[T any, P interface {
	*T
	alignable
}](xs, ys []T, x0, x1, y0, y1 int, steps []step) []step {
	n, m := x1-x0, y1-y0
	if n == 0 || m == 0 || n*m > maxAlignCells {
		// Nothing to choose between, or too much to tabulate: pair by
		// position and leave the rest unpaired.
		for k := range max(n, m) {
			switch {
			case k >= n:
				steps = append(steps, step{-1, y0 + k})
			case k >= m:
				steps = append(steps, step{x0 + k, -1})
			default:
				steps = append(steps, step{x0 + k, y0 + k})
			}
		}
		return steps
	}
	// next[j] and cur[j] are the costs of aligning the suffixes from row
	// i+1 and i, column j; moves[i*(m+1)+j] is the best first move there.
	next, cur := make([]int, m+1), make([]int, m+1)
	moves := make([]byte, (n+1)*(m+1))
	for j := m; j >= 0; j-- {
		next[j] = (m - j) * costIndel
		moves[n*(m+1)+j] = moveB
	}
	for i := n - 1; i >= 0; i-- {
		cur[m] = (n - i) * costIndel
		moves[i*(m+1)+m] = moveA
		for j := m - 1; j >= 0; j-- {
			best, mv := pairCost(P(&xs[x0+i]), P(&ys[y0+j]))+next[j+1], movePair
			if c := next[j] + costIndel; c < best {
				best, mv = c, moveA
			}
			if c := cur[j+1] + costIndel; c < best {
				best, mv = c, moveB
			}
			cur[j], moves[i*(m+1)+j] = best, mv
		}
		next, cur = cur, next
	}
	i, j := 0, 0
	for i < n || j < m {
		switch moves[i*(m+1)+j] {
		case movePair:
			steps = append(steps, step{x0 + i, y0 + j})
			i++
			j++
		case moveA:
			steps = append(steps, step{x0 + i, -1})
			i++
		default:
			steps = append(steps, step{-1, y0 + j})
			j++
		}
	}
	return steps
}

// leaves flattens a JSON tree to its leaf paths and canonical values, the
// measure of how much two argument trees differ.
func leaves(v any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				out[path] = "{}"
			}
			for k, e := range x {
				walk(path+"."+strconv.Quote(k), e)
			}
		case []any:
			if len(x) == 0 {
				out[path] = "[]"
			}
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		default:
			out[path] = canonical(v)
		}
	}
	walk("", v)
	return out
}
