package artifact

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestSpanDepths: each record's depth is its number of ancestors among the
// records, counted by walking its parents one by one, on random forests
// with parents missing from the batch; a deep chain and a cycle end.
func TestSpanDepths(t *testing.T) {
	id := func(n int) pcommon.SpanID {
		var s pcommon.SpanID
		binary.BigEndian.PutUint64(s[:], uint64(n+1))
		return s
	}
	build := func(parents []int) []Record { // parents[i] < 0: a root; ≥ len: a parent not in the batch
		recs := make([]Record, len(parents))
		for i, p := range parents {
			sp := ptrace.NewSpan()
			sp.SetTraceID(pcommon.TraceID{1})
			sp.SetSpanID(id(i))
			if p >= 0 {
				sp.SetParentSpanID(id(p))
			}
			recs[i].Span = sp
		}
		return recs
	}
	depths := func(recs []Record) []int {
		parent := make(map[SpanKey]int, len(recs))
		for i := range recs {
			parent[SpanKey{recs[i].Span.TraceID(), recs[i].Span.SpanID()}] = i
		}
		return spanDepths(recs, parent)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		n := 1 + rng.IntN(200)
		parents := make([]int, n)
		for i := range parents {
			switch r := rng.IntN(10); {
			case i == 0 || r == 0:
				parents[i] = -1
			case r == 1:
				parents[i] = n + 5 // missing
			default:
				parents[i] = rng.IntN(i) // an earlier record: no cycle
			}
		}
		// Shuffle so children may come before their parents.
		perm := rng.Perm(n)
		shuffled := make([]int, n)
		where := make([]int, n)
		for to, from := range perm {
			where[from] = to
		}
		for to, from := range perm {
			p := parents[from]
			if p >= 0 && p < n {
				p = where[p]
			}
			shuffled[to] = p
		}
		want := make([]int, n)
		for i := range shuffled {
			for p := shuffled[i]; p >= 0 && p < n; p = shuffled[p] {
				want[i]++
			}
		}
		assert.Equal(t, want, depths(build(shuffled)))
	}

	chain := make([]int, 20000)
	for i := range chain {
		chain[i] = i + 1 // each the child of the next; the last's parent is missing
	}
	d := depths(build(chain))
	assert.Equal(t, 19999, d[0])
	assert.Equal(t, 0, d[len(d)-1])

	cycle := build([]int{1, 2, 0, 0})
	assert.Len(t, depths(cycle), 4, "a cycle ends")
}
