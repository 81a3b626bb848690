package store

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestSpanSetAgreesWithAMap runs the same adds, look-ups and deletions on a
// spanSet and on a map, with ids that collide in their low bits (sequential
// ones, as tests and some SDKs make) and random ones, and past a
// generation change.
func TestSpanSetAgreesWithAMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(r *rand.Rand, i int) artifact.SpanKey
	}{
		{"sequential", func(_ *rand.Rand, i int) artifact.SpanKey {
			var k artifact.SpanKey
			binary.BigEndian.PutUint64(k.Span[:], uint64(i%5000))
			k.Trace[15] = byte(i % 3)
			return k
		}},
		{"random", func(r *rand.Rand, _ int) artifact.SpanKey {
			var k artifact.SpanKey
			binary.LittleEndian.PutUint64(k.Span[:], r.Uint64()%20000)
			k.Trace[0] = byte(r.IntN(2))
			return k
		}},
		{"zero", func(r *rand.Rand, _ int) artifact.SpanKey {
			var k artifact.SpanKey
			k.Span[7] = byte(r.IntN(2)) // the all-zero key among others
			return k
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			s := newSpanSet(nil)
			model := map[artifact.SpanKey]bool{}
			for i := range 60000 {
				k := tc.key(r, i)
				switch r.IntN(8) {
				case 0:
					s.del(k)
					delete(model, k)
				case 1:
					require.Equal(t, model[k], s.has(k), "has %v at %d", k, i)
				default:
					require.Equal(t, !model[k], s.addNew(k), "addNew %v at %d", k, i)
					model[k] = true
				}
			}
			var n int
			s.each(func(k artifact.SpanKey) {
				require.True(t, model[k], "each gave %v", k)
				n++
			})
			require.Len(t, model, n)
		})
	}
}

// BenchmarkSpanSet is the write path's check of one new span in a set that
// holds maxSeen ids: random ids, and ids as a test batch makes them (the
// batch number in one half of the trace id, the trace's in the other, the
// span's index in the span id), which a weak hash piles into a few slots.
func BenchmarkSpanSet(b *testing.B) {
	for _, tc := range []struct {
		name string
		key  func(r *rand.Rand, i uint64) artifact.SpanKey
	}{
		{"ids=random", func(r *rand.Rand, _ uint64) artifact.SpanKey {
			var k artifact.SpanKey
			binary.LittleEndian.PutUint64(k.Span[:], r.Uint64())
			binary.LittleEndian.PutUint64(k.Trace[:], r.Uint64())
			return k
		}},
		{"ids=batches", func(_ *rand.Rand, i uint64) artifact.SpanKey {
			var k artifact.SpanKey
			binary.BigEndian.PutUint64(k.Trace[:8], i/700)
			binary.BigEndian.PutUint64(k.Trace[8:], i%700/7+1)
			binary.BigEndian.PutUint32(k.Span[:4], uint32(i%700/7)+1)
			binary.BigEndian.PutUint32(k.Span[4:], uint32(i%7)+1)
			return k
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := newSpanSet(nil)
			r := rand.New(rand.NewPCG(3, 4))
			var i uint64
			for ; i < 2*maxSeen; i++ {
				s.addNew(tc.key(r, i))
			}
			for b.Loop() {
				s.addNew(tc.key(r, i))
				i++
			}
		})
	}
}

// BenchmarkSpanSetAddNew adds fresh span ids, 700 a batch (100 traces of 7
// spans), to the set of a long-lived artifact (one per resource
// attribute): past its first generation, so each look-up misses in a full
// old generation and inserts into a filling new one, as in steady state.
func BenchmarkSpanSetAddNew(b *testing.B) {
	s := newSpanSet(nil)
	var batch uint64
	key := func(t, i int) artifact.SpanKey {
		var k artifact.SpanKey
		binary.BigEndian.PutUint64(k.Trace[:8], batch)
		binary.BigEndian.PutUint64(k.Trace[8:], uint64(t))
		binary.BigEndian.PutUint64(k.Span[:], uint64(t)<<8|uint64(i))
		return k
	}
	add := func() {
		batch++
		for t := range 100 {
			for i := range 7 {
				if !s.addNew(key(t, i)) {
					b.Fatal("a fresh id taken for a duplicate")
				}
			}
		}
	}
	for range 3 * maxSeen / 700 {
		add()
	}
	for b.Loop() {
		add()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*700), "ns/id")
}

// TestSpanSetStartsSmall: a set started in an artifact's block (a trace's
// handful of spans) takes seven ids without allocating, and grows past
// them keeping every one.
func TestSpanSetStartsSmall(t *testing.T) {
	key := func(i int) artifact.SpanKey {
		return artifact.SpanKey{Trace: [16]byte{1}, Span: [8]byte{byte(i), 1}}
	}
	var ids smallIDs
	var s spanSet
	allocs := testing.AllocsPerRun(1, func() {
		s = spanSet{}
		s.start(7, &ids)
		for i := range 7 {
			require.True(t, s.addNew(key(i)))
		}
	})
	assert.Zero(t, allocs, "seven ids fit the artifact's block")
	for i := range 7 {
		assert.False(t, s.addNew(key(i)), "id %d is held", i)
	}
	for i := 7; i < 40; i++ {
		require.True(t, s.addNew(key(i)))
	}
	for i := range 40 {
		assert.True(t, s.has(key(i)), "id %d is held after growing", i)
	}
}
