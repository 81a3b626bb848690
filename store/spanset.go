package store

import (
	"encoding/binary"
	"math/bits"

	"github.com/agenttrace/agenttrace/artifact"
)

// maxSeen is how many span ids an artifact's set holds before it forgets
// the older half: redelivery comes soon after delivery (a retry, a
// sending queue's replay), and an artifact that lives for ever (one per
// resource attribute, a run's) must not keep every id it ever wrote.
const maxSeen = 1 << 17

// spanSet is the ids of the spans an artifact holds, to skip redelivered
// ones: two generations, the current one filling while the older one
// still answers, so at least the last maxSeen ids are always known and at
// most 2 × maxSeen are kept.
type spanSet struct {
	cur, old idTable
}

func newSpanSet(m map[artifact.SpanKey]struct{}) spanSet {
	var s spanSet
	s.reserve(len(m))
	for k := range m {
		s.cur.insert(k, hashKey(k))
	}
	return s
}

// reserve makes room for n more ids in the current generation (what a
// new artifact's first records need: one allocation, not one per
// doubling).
func (s *spanSet) reserve(n int) {
	if n = min(s.cur.n+n, maxSeen); n > maxKeys(len(s.cur.fps)) {
		s.cur.grow(n)
	}
}

// start readies an empty set for n ids, in small when they fit: the
// table of a trace's artifact, which holds a handful of spans, lives in
// the artifact rather than in an allocation of its own.
func (s *spanSet) start(n int, small *smallIDs) {
	if s.cur.fps == nil && n <= maxKeys(minSlots) {
		clear(small.fps[:])
		s.cur.fps, s.cur.keys = small.fps[:], small.keys[:]
		return
	}
	s.reserve(n)
}

func (s *spanSet) has(k artifact.SpanKey) bool {
	h := hashKey(k)
	return s.cur.find(k, h) >= 0 || s.old.find(k, h) >= 0
}

func (s *spanSet) add(k artifact.SpanKey) { s.addNew(k) }

// addNew adds k unless the set holds it, and reports whether it did: the
// write path's has and add in one look-up of each generation.
func (s *spanSet) addNew(k artifact.SpanKey) bool {
	return s.addHashed(k, hashKey(k))
}

// addHashed is addNew of k, whose hash is h.
func (s *spanSet) addHashed(k artifact.SpanKey, h uint64) bool {
	if s.old.find(k, h) >= 0 {
		return false
	}
	if s.cur.n >= maxSeen {
		if s.cur.find(k, h) >= 0 {
			return false
		}
		s.old, s.cur = s.cur, s.old.emptied()
	}
	return s.cur.insert(k, h)
}

// emptied returns t without keys, for the next generation: a generation
// fills to maxSeen ids every time, so t's arrays (or, for the first, new
// ones of that size) take it without growing. Growing one from nothing
// rehashed every id once more on the way, and allocated its worth twice:
// about a quarter of the set's time with one artifact for everything.
func (t idTable) emptied() idTable {
	if maxKeys(len(t.fps)) < maxSeen {
		var n idTable
		n.grow(maxSeen)
		return n
	}
	clear(t.fps) // the keys of empty slots are never read
	t.n = 0
	return t
}

// del forgets k, added by a write that failed.
func (s *spanSet) del(k artifact.SpanKey) {
	h := hashKey(k)
	s.cur.remove(k, h)
	s.old.remove(k, h)
}

// each calls f with every id held.
func (s *spanSet) each(f func(artifact.SpanKey)) {
	s.old.each(f)
	s.cur.each(f)
}

// idTable is a set of span keys: open addressing with linear probing over
// 32-bit fingerprints of the keys' hashes, with the keys in an array
// beside them, read only when a fingerprint matches. A Go map of the
// 24-byte keys cost a batch of one large artifact about a tenth of its
// time (two look-ups and an insert per span, each a cache miss in a table
// of 2^17 keys); here a look-up that misses, the common case, reads one
// cache line of an array a sixth of the keys' size (16 fingerprints a
// line), which mostly stays in the cache.
type idTable struct {
	fps  []uint32 // 0 for an empty slot; a key's fingerprint is never 0
	keys []artifact.SpanKey
	n    int
}

// minSlots is an idTable's size when it gets its first key: a trace's
// artifact holds a handful of spans.
const minSlots = 8

// maxKeys is how many keys a table of size slots holds before it grows:
// three quarters full, which keeps probe runs short; but the smallest
// table all but one slot (a probe ends at an empty slot), so that the
// seven spans of a usual trace fit: a probe of it reads 32 bytes of
// fingerprints however long its run.
func maxKeys(size int) int {
	if size <= minSlots {
		return size - 1
	}
	return size / 4 * 3
}

// smallIDs is the smallest table's fingerprints and keys, in one block.
type smallIDs = idBlock[[minSlots]uint32, [minSlots]artifact.SpanKey]

// hashKey mixes a key's ids into a non-zero hash. The ids are random in
// practice, but not in tests or from every SDK (a collector's test batch
// counts traces up in one half of the id and batches in the other), so
// every bit of each is mixed into every bit of the hash: two full 64×64-bit
// products folded, as wyhash does.
func hashKey(k artifact.SpanKey) uint64 {
	t0 := binary.LittleEndian.Uint64(k.Trace[:8])
	t1 := binary.LittleEndian.Uint64(k.Trace[8:])
	sp := binary.LittleEndian.Uint64(k.Span[:])
	hi, lo := bits.Mul64(t0^0xa0761d6478bd642f, sp^0xe7037ed1a0b428db)
	hi, lo = bits.Mul64(hi^lo^0x8ebc6af09c88c6e3, t1^0x589965cc75374cc3)
	return (hi ^ lo) | 1
}

// slot is where h's probe sequence starts.
func (t *idTable) slot(h uint64) int {
	return int(h>>32) & (len(t.fps) - 1)
}

// fingerprint is what a slot keeps of hash h: its low half, never 0.
func fingerprint(h uint64) uint32 { return uint32(h) | 1 }

// find returns k's slot, or -1.
func (t *idTable) find(k artifact.SpanKey, h uint64) int {
	if t.n == 0 {
		return -1
	}
	fp, mask := fingerprint(h), len(t.fps)-1
	for i := t.slot(h); ; i = (i + 1) & mask {
		switch t.fps[i] {
		case 0:
			return -1
		case fp:
			if t.keys[i] == k {
				return i
			}
		}
	}
}

// insert adds k unless it is there, and reports whether it added it.
func (t *idTable) insert(k artifact.SpanKey, h uint64) bool {
	if t.n+1 > maxKeys(len(t.fps)) {
		t.grow(t.n + 1)
	}
	fp, mask := fingerprint(h), len(t.fps)-1
	i := t.slot(h)
	for ; t.fps[i] != 0; i = (i + 1) & mask {
		if t.fps[i] == fp && t.keys[i] == k {
			return false
		}
	}
	t.fps[i], t.keys[i] = fp, k
	t.n++
	return true
}

// grow makes room for n keys at most three quarters full, at least
// doubling the table (or making its first). The slot of a key comes from
// the high half of its hash, which its fingerprint does not keep: it is
// hashed again.
func (t *idTable) grow(n int) {
	keys, fps := t.keys, t.fps
	size := max(minSlots, 2*len(fps))
	for maxKeys(size) < n {
		size *= 2
	}
	switch size {
	case minSlots:
		b := new(smallIDs)
		t.fps, t.keys = b.fps[:], b.keys[:]
	case 16:
		b := new(idBlock[[16]uint32, [16]artifact.SpanKey])
		t.fps, t.keys = b.fps[:], b.keys[:]
	default:
		t.fps, t.keys = make([]uint32, size), make([]artifact.SpanKey, size)
	}
	mask := size - 1
	for j, fp := range fps {
		if fp == 0 {
			continue
		}
		i := t.slot(hashKey(keys[j]))
		for t.fps[i] != 0 {
			i = (i + 1) & mask
		}
		t.fps[i], t.keys[i] = fp, keys[j]
	}
}

// idBlock is a small table's fingerprints and keys in one allocation: a
// trace's artifact, one per trace, holds a handful of spans.
type idBlock[F, K any] struct {
	fps  F
	keys K
}

// remove deletes k, shifting back the keys of its probe run that would
// no longer be found past the hole (no tombstones to sweep later).
func (t *idTable) remove(k artifact.SpanKey, h uint64) {
	i := t.find(k, h)
	if i < 0 {
		return
	}
	mask := len(t.fps) - 1
	for j := (i + 1) & mask; t.fps[j] != 0; j = (j + 1) & mask {
		// The key at j may move into the hole at i when its home slot
		// is not in (i, j], cyclically.
		home := t.slot(hashKey(t.keys[j]))
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			t.fps[i], t.keys[i] = t.fps[j], t.keys[j]
			i = j
		}
	}
	t.fps[i], t.keys[i] = 0, artifact.SpanKey{}
	t.n--
}

// each calls f with every key.
func (t *idTable) each(f func(artifact.SpanKey)) {
	for i, fp := range t.fps {
		if fp != 0 {
			f(t.keys[i])
		}
	}
}
