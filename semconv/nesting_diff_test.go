package semconv

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// nestEnd is one span ending, as a caller hands it to End.
type nestEnd struct {
	trace        pcommon.TraceID
	span, parent pcommon.SpanID
	kind         Kind
	usage        Usage
	note         Note // noted after End, when not zero
}

// randomEnds is a random forest of spans ended in a random order close to
// children first: spans in up to three traces whose ids may repeat across
// traces and collide in the under table's slots, usage in every class
// (zero, small, now and then negative, as a bad attribute can give), and
// late children, grandchildren and parents ending anywhere. next draws
// the numbers, from a seeded generator or a fuzzer's bytes.
func randomEnds(next func(n int) int) []nestEnd {
	n := 1 + next(40)
	type span struct {
		trace  byte
		id     uint64
		parent int // index, -1 for a root
	}
	spans := make([]span, n)
	idSpace := []int{4, 64, 1 << 30}[next(3)] // few ids: they repeat and collide
	for i := range spans {
		spans[i] = span{trace: byte(next(3)), id: uint64(1 + next(idSpace)), parent: -1}
		if i > 0 && next(6) != 0 {
			spans[i].parent = next(i)
			spans[i].trace = spans[spans[i].parent].trace
		}
	}
	// Children first (a span after its descendants: reverse index order,
	// since parents come before their children), then some swaps, each
	// making a late child or an early parent.
	order := make([]int, n)
	for i := range order {
		order[i] = n - 1 - i
	}
	for range next(n + 1) {
		a, b := next(n), next(n)
		order[a], order[b] = order[b], order[a]
	}
	class := func() int64 {
		switch next(8) {
		case 0, 1, 2:
			return 0
		case 3:
			return -int64(next(5))
		default:
			return int64(next(1000))
		}
	}
	kinds := [...]Kind{Inference, Inference, Agent, Span, Call}
	ends := make([]nestEnd, 0, n)
	for _, i := range order {
		sp := spans[i]
		e := nestEnd{trace: pcommon.TraceID{sp.trace, 9}, kind: kinds[next(len(kinds))]}
		e.span = spanID(sp.id)
		if sp.parent >= 0 {
			e.parent = spanID(spans[sp.parent].id)
		}
		if next(2) == 0 {
			e.usage = Usage{Input: class(), Output: class(), CacheRead: class(), CacheCreation: class(), Reasoning: class()}
		}
		if next(2) == 0 {
			e.note = Note{Value: int64(next(1 << 20)), Tag: uint8(next(256))}
		}
		ends = append(ends, e)
	}
	return ends
}

func spanID(id uint64) pcommon.SpanID {
	var s pcommon.SpanID
	for i := range s {
		s[i] = byte(id >> (8 * i))
	}
	return s
}

// requireSameAsRef runs ends through the shipped Nesting and the reference
// (refNesting, the rule before its rewrite) and requires every Ended to
// agree in every field, the undo by value, and Quiet after each span.
// skipQuiet leaves out spans Quiet lets a caller leave out, as the
// bridge's live budget does. It returns how many spans took a parent back
// (Undo), unleafed one, took all of one back, disagreed and wrapped: the
// paths the random trees must reach.
func requireSameAsRef(t testing.TB, ends []nestEnd, skipQuiet bool) (seen [5]int) {
	var n Nesting
	var ref refNesting
	for i, e := range ends {
		if skipQuiet && e.kind != Inference && e.usage.IsZero() && n.Quiet() {
			require.True(t, ref.Quiet(), "end %d: Quiet", i)
			continue
		}
		got := n.End(e.trace, e.span, e.parent, e.kind, e.usage)
		want := ref.End(e.trace, e.span, e.parent, e.kind, e.usage)
		require.Equal(t, want.Undo == nil, got.Undo == nil, "end %d: Undo set", i)
		if want.Undo != nil {
			require.Equal(t, *want.Undo, *got.Undo, "end %d: Undo", i)
		}
		for j, hit := range [...]bool{want.Undo != nil, want.Unleaf, want.UndoAll, want.Disagrees, want.Kind != e.kind} {
			if hit {
				seen[j]++
			}
		}
		want.Undo, got.Undo = nil, nil
		require.Equal(t, want, got, "end %d of %v", i, ends)
		if e.note != (Note{}) {
			n.Note(e.note)
			ref.Note(e.note)
		}
		require.Equal(t, ref.Quiet(), n.Quiet(), "end %d: Quiet", i)
	}
	return seen
}

// TestNestingAgreesWithRef: on random trees, ended children first with
// late children, late grandchildren and parents out of order, the shipped
// usage rule decides every span as the reference does.
func TestNestingAgreesWithRef(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 2))
	next := func(n int) int { return r.IntN(n) }
	var seen [5]int
	for range 5000 {
		ends := randomEnds(next)
		s := requireSameAsRef(t, ends, false)
		requireSameAsRef(t, ends, true)
		for j := range seen {
			seen[j] += s[j]
		}
	}
	for j, what := range [...]string{"undo", "unleaf", "undo all", "disagrees", "wrapper"} {
		require.Greater(t, seen[j], 50, "the random trees reach %s", what)
	}
}

// FuzzNestingAgreesWithRef is TestNestingAgreesWithRef driven by a
// fuzzer's bytes (a byte stream read as the numbers randomEnds draws,
// zero once it runs out).
func FuzzNestingAgreesWithRef(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 200, 100, 50, 25, 12, 6, 3})
	f.Add([]byte{39, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func(n int) int {
			if len(data) == 0 {
				return 0
			}
			v := int(data[0])
			if len(data) > 1 {
				v = v<<8 | int(data[1])
				data = data[2:]
			} else {
				data = data[1:]
			}
			return v % n
		}
		ends := randomEnds(next)
		requireSameAsRef(t, ends, false)
		requireSameAsRef(t, ends, true)
	})
}
