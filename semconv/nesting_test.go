package semconv

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

func sid(b byte) pcommon.SpanID { return pcommon.SpanID{b} }

// TestNesting: leaves count, wrappers do not, in either order of ending.
func TestNesting(t *testing.T) {
	trace := pcommon.TraceID{1}
	type end struct {
		span, parent byte
		kind         Kind
		usage        int64
	}
	type want struct {
		kind   Kind
		undone int64
		undo   int64
	}
	cases := []struct {
		name string
		ends []end
		want []want
	}{
		{"children first: the batch around two chunks is a wrapper",
			[]end{{2, 1, Inference, 10}, {3, 1, Inference, 20}, {1, 9, Inference, 30}, {9, 0, Agent, 30}},
			[]want{{Inference, 0, 0}, {Inference, 0, 0}, {Span, 0, 0}, {Agent, 0, 0}}},
		{"through a plain span in between",
			[]end{{3, 2, Inference, 10}, {2, 1, Span, 0}, {1, 0, Inference, 10}},
			[]want{{Inference, 0, 0}, {Span, 0, 0}, {Span, 0, 0}}},
		{"a child ending after its parent takes the parent back",
			[]end{{1, 0, Inference, 25}, {2, 1, Inference, 1335}},
			[]want{{Inference, 0, 0}, {Inference, 1, 25}}},
		{"a late grandchild is not matched (a documented limit)",
			[]end{{2, 1, Span, 0}, {1, 0, Inference, 7}, {3, 2, Inference, 9}},
			[]want{{Span, 0, 0}, {Inference, 0, 0}, {Inference, 0, 0}}},
		{"several parents open at once",
			[]end{{11, 1, Inference, 1}, {12, 2, Inference, 1}, {13, 3, Inference, 1}, {14, 4, Inference, 1}, {15, 5, Inference, 1},
				{1, 0, Inference, 5}, {5, 0, Inference, 5}, {3, 0, Agent, 0}},
			[]want{{Inference, 0, 0}, {Inference, 0, 0}, {Inference, 0, 0}, {Inference, 0, 0}, {Inference, 0, 0},
				{Span, 0, 0}, {Span, 0, 0}, {Agent, 0, 0}}},
		{"siblings are leaves",
			[]end{{2, 1, Inference, 1}, {3, 1, Inference, 1}, {1, 0, Agent, 0}},
			[]want{{Inference, 0, 0}, {Inference, 0, 0}, {Agent, 0, 0}}},
		{"an agent above model calls stays an agent",
			[]end{{2, 1, Inference, 1}, {1, 0, Agent, 1}},
			[]want{{Inference, 0, 0}, {Agent, 0, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n Nesting
			for i, e := range tc.ends {
				var parent pcommon.SpanID
				if e.parent != 0 {
					parent = sid(e.parent)
				}
				got := n.End(trace, sid(e.span), parent, e.kind, Usage{Input: e.usage})
				if e.kind == Inference {
					// What a tally notes: here the usage × 3, and the span.
					n.Note(Note{Value: 3 * e.usage, Tag: e.span})
				}
				assert.Equal(t, tc.want[i].kind, got.Kind, "span %d kind", e.span)
				var undone, undo int64
				var note Note
				if got.Undo != nil {
					undone, undo = 1, got.Undo.Input
					note = Note{Value: 3 * undo, Tag: e.parent}
				}
				assert.Equal(t, note, got.UndoNote, "span %d: the note of what it takes back", e.span)
				assert.Equal(t, tc.want[i].undone, undone, "span %d undone", e.span)
				assert.Equal(t, tc.want[i].undo, undo, "span %d undo", e.span)
			}
		})
	}
}

// Spans of another trace with the same ids are not related.
func TestNestingKeepsTracesApart(t *testing.T) {
	var n Nesting
	n.End(pcommon.TraceID{1}, sid(2), sid(1), Inference, Usage{})
	assert.Equal(t, Inference, n.End(pcommon.TraceID{2}, sid(1), pcommon.SpanID{}, Inference, Usage{}).Kind)
	assert.Equal(t, Span, n.End(pcommon.TraceID{1}, sid(1), pcommon.SpanID{}, Inference, Usage{}).Kind)
	n.Reset()
	n.End(pcommon.TraceID{1}, sid(2), sid(1), Inference, Usage{})
	n.Reset()
	assert.Equal(t, Inference, n.End(pcommon.TraceID{1}, sid(1), pcommon.SpanID{}, Inference, Usage{}).Kind)
}

func BenchmarkNestingEnd(b *testing.B) {
	var n Nesting
	trace := pcommon.TraceID{1}
	b.ReportAllocs()
	i := byte(0)
	for b.Loop() {
		i++
		n.End(trace, pcommon.SpanID{i, 1}, pcommon.SpanID{i, 2}, Inference, Usage{Input: 1})
		n.End(trace, pcommon.SpanID{i, 2}, pcommon.SpanID{}, Agent, Usage{})
	}
}

// TestUnderTableIsTheFixedTable: the sparse under table behaves as the
// fixed table of underSlots slots it stands for (a slot holds one key, a
// zero key is a free slot, a later key in a slot replaces the earlier),
// whatever the keys: random ones, ones that collide in a few slots, and
// the zero key.
func TestUnderTableIsTheFixedTable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, spread := range []uint64{0, 3, 1 << 20} {
		var s nestState
		var want [underSlots]nestKey
		live := 0
		for i := range 5000 {
			k := nestKey{trace0: uint64(r.IntN(3)), span: r.Uint64N(spread + 1)}
			if r.IntN(2) == 0 {
				s.putUnder(k)
				if want[slot(k)] == (nestKey{}) {
					live++
				}
				want[slot(k)] = k
			} else {
				got := s.takeUnder(k)
				ok := live > 0 && want[slot(k)] == k
				if ok {
					want[slot(k)] = nestKey{}
					live--
				}
				require.Equal(t, ok, got, "take %v at %d", k, i)
			}
			require.Equal(t, live, s.live, "at %d", i)
			for j := range underSlots {
				require.Equal(t, want[j], s.get(j), "slot %d at %d", j, i)
			}
		}
	}
}
