package redact

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"strings"
	"sync/atomic"
)

// verdicts remembers which strings came out of a Redactor unchanged, so
// that a string seen again is not scanned again. Agent traces repeat long
// values verbatim: the same system instructions and tool definitions on
// every chat span of an agent, a tool result quoted again in the next
// call's input; and short ones under the same keys: models, operations,
// tools' names. Long strings are remembered by themselves (below), short
// attribute values by their keys (lookupKeyed).
//
// A look-up must cost far less than the scan it saves, and a verdict must
// never let a string that differs from the clean one pass unscanned. So a
// string is found by a cheap sample of it (its length and up to three
// windows of sampleWindow bytes: the head, the middle and the tail, hashed
// or mixed with keys of this Redactor's own) and then compared whole with a copy
// the table keeps: a memory compare is several times as fast as a hash of
// the same bytes, and unlike any hash it cannot collide. A string too long
// to copy (keepMax), or that finds the copies' budget (keepBudget) spent,
// is kept as a 128-bit fingerprint instead (two keyed hashes, with seeds
// of this Redactor's own, so that no input can be made to collide on
// purpose; two different strings share one with odds of 2^-128), with its
// length.
//
// A string is kept the second time it comes out clean, not the first:
// most long strings (a conversation's growing input) never come again, and
// copying each would cost more than it saves. The first sighting leaves
// only a 64-bit hash of the whole string in the slot (a string about to be
// scanned pays for that hash, a few per cent of the scan, and taken before
// the scan its one sequential read brings the string into the cache for
// the scan's four streams); a second
// string with that hash, now clean too, is kept. A hash that two strings
// share only makes the table keep a clean string early: what decides a
// verdict is the compare or the fingerprint.
//
// The table is fixed: a newer kept string takes an older one's slot, so
// the memory is bounded by construction (keepBudget bytes of copies and
// one small entry per slot; keyedSlots*keyedWays short copies); a look-up takes no lock and allocates
// nothing; and a string forgotten is only scanned again. An entry is
// never changed once published, so a reader racing with a writer sees the
// old entry or the new one, whole. Only clean verdicts are kept: a string
// with a secret changes, and its replacement is what the span holds next.
type verdicts struct {
	// sampleSeed hashes the samples that pick a slot; seed0 and seed1 are
	// the fingerprints' (seed0 also the sightings').
	sampleSeed, seed0, seed1 maphash.Seed
	// sampleKey keys the words a long string's sample and a key's slot
	// are mixed from.
	sampleKey [4]uint64
	// held is how many bytes of kept copies the slots hold.
	held  atomic.Int64
	slots [verdictSlots]verdictSlot
	// keyed remembers short values by the key they come under (see
	// lookupKeyed).
	keyed [keyedSlots]keyedSlot
}

// A verdictSlot holds at most one kept string and the sighting of the
// last string that came out clean there.
type verdictSlot struct {
	kept    atomic.Pointer[verdict]
	sighted atomic.Uint64
}

// A verdict is one clean string, as a copy (s) or, when s is empty, as
// its length and fingerprint (h0, h1). sample is the sample hash that
// found its slot, which a look-up compares first.
type verdict struct {
	sample uint64
	s      string
	n      int
	h0, h1 uint64
}

const (
	// verdictSlots is how many strings are remembered at most.
	verdictSlots = 1024
	// verdictMin is the shortest string remembered: shorter ones (ids,
	// names, models) cost about as little to scan as to look up, and
	// would crowd out the long ones that are worth remembering.
	// verdictMax is the longest, so that an unseen huge tool result does
	// not pay for hashing on top of its scan when it is unlikely to come
	// again whole.
	verdictMin = 64
	verdictMax = 1 << 20
	// keepMax is the longest string kept as a copy, and keepBudget the
	// most bytes all copies take together: a few MiB, whatever comes.
	keepMax    = 16 << 10
	keepBudget = 4 << 20
	// sampleWindow is the length of each window a sample hashes.
	sampleWindow = 64
	// keyedSlots is how many keys' short values are remembered, keyedWays
	// how many values each (and how many sightings), and keyedMin the
	// shortest value: shorter ones (chat, openai, gpt-4o) cost about as
	// little to scan as to look up.
	keyedSlots = 256
	keyedWays  = 4
	keyedMin   = 8
)

// A keyedSlot holds the kept short values of the keys that hash to it, a
// few ways (an operation's name takes a few values, in turns), and the
// sightings of the last values that came out clean there. Each is
// replaced in turn, the oldest first.
type keyedSlot struct {
	kept        [keyedWays]atomic.Pointer[string]
	sighted     [keyedWays]atomic.Uint64
	nextKept    atomic.Uint32
	nextSighted atomic.Uint32
}

func newVerdicts() *verdicts {
	v := &verdicts{sampleSeed: maphash.MakeSeed(), seed0: maphash.MakeSeed(), seed1: maphash.MakeSeed()}
	for i := range v.sampleKey {
		v.sampleKey[i] = maphash.Comparable(v.sampleSeed, i)
	}
	return v
}

// A probe is where a look-up found a string's slot, for remember.
type probe struct {
	slot   *verdictSlot
	sample uint64
}

// sample hashes s's length and its head, middle and tail windows (all of
// s when it is short): cheap whatever s's length, and different for most
// pairs of different strings, whose slots then differ. A long string's
// windows are mixed two words at a time (mum), each word keyed by one of
// the table's own random words, instead of copied out and hashed with
// maphash: the multiplies do not wait for each other, and the copy and a
// keyed hash of 200 bytes cost more than the compare they lead to. The
// sample only picks a slot; what lets a string through is the whole
// compare (or the fingerprint), so strings made to share a sample only
// share a slot and are scanned again, as unseen ones are.
func (v *verdicts) sample(s string) uint64 {
	if len(s) <= 3*sampleWindow {
		return maphash.String(v.sampleSeed, s)
	}
	b := bytesOf(s)
	k := &v.sampleKey
	h := uint64(len(s))
	for _, at := range [3]int{0, len(s)/2 - sampleWindow/2, len(s) - sampleWindow} {
		w := b[at : at+sampleWindow : at+sampleWindow]
		for i := 0; i < sampleWindow; i += 32 {
			h += mum(le64(w[i:])^k[0], le64(w[i+8:])^k[1]) ^
				mum(le64(w[i+16:])^k[2], le64(w[i+24:])^k[3])
			h = bits.RotateLeft64(h, 23)
		}
	}
	return mum(h^k[0], k[3])
}

// mum multiplies a by b and folds the 128-bit product to 64 bits: every
// bit of both reaches the middle of the product, so the low bits that
// pick a slot depend on all of them.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// le64 is the little-endian word at the start of b.
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// fingerprint returns s's two hashes.
func (v *verdicts) fingerprint(s string) (uint64, uint64) {
	return maphash.String(v.seed0, s), maphash.String(v.seed1, s)
}

// lookup reports whether s was remembered as clean, and where it would
// be remembered.
func (v *verdicts) lookup(s string) (probe, bool) {
	h := v.sample(s)
	p := probe{slot: &v.slots[h%verdictSlots], sample: h}
	e := p.slot.kept.Load()
	if e == nil || e.sample != h || e.n != len(s) {
		return p, false
	}
	if e.s != "" {
		return p, e.s == s
	}
	h0, h1 := v.fingerprint(s)
	return p, e.h0 == h0 && e.h1 == h1
}

// sighting returns the hash a sighting of s leaves in its slot.
func (v *verdicts) sighting(s string) uint64 { return maphash.String(v.seed0, s) }

// remember records s, found at p by lookup, as clean: the first time as a
// sighting, the second time as kept. h0 is sighting(s).
func (v *verdicts) remember(p probe, h0 uint64, s string) {
	if p.slot.sighted.Swap(h0) != h0 {
		return
	}
	e := &verdict{sample: p.sample, n: len(s)}
	if len(s) <= keepMax {
		if v.held.Add(int64(len(s))) <= keepBudget {
			e.s = strings.Clone(s)
		} else {
			v.held.Add(-int64(len(s)))
		}
	}
	if e.s == "" {
		e.h0, e.h1 = h0, maphash.String(v.seed1, s)
	}
	if old := p.slot.kept.Swap(e); old != nil && old.s != "" {
		v.held.Add(-int64(len(old.s)))
	}
}

// lookupKeyed reports whether s, a value shorter than verdictMin under key
// in an attribute map, was remembered as clean, and where it would be
// remembered. Short values are found by their key, not by themselves:
// the same few values come under a key span after span (a model, an
// operation, a tool's name) or a new one every time (an id), and a key
// that takes a new value every time then only ever takes its own slot's
// sightings, not the slot of a key whose values repeat. The verdict is
// the value's alone, as text's is: the key only picks the slot, and the
// value is compared whole with the kept copies.
func (v *verdicts) lookupKeyed(key []byte, s string) (*keyedSlot, bool) {
	sl := v.keyedSlot(key)
	for i := range sl.kept {
		if kept := sl.kept[i].Load(); kept != nil && *kept == s {
			return sl, true
		}
	}
	return sl, false
}

// keyedSlot returns key's slot. A key of eight bytes or more (nearly
// every one: gen_ai.request.model) is mixed from its length and three
// words, its first, middle and last, as a long string's sample is: a key
// is looked up for nearly every attribute value, and the slot only picks
// where values are compared whole, so keys that share the words only
// share a slot.
func (v *verdicts) keyedSlot(key []byte) *keyedSlot {
	n := len(key)
	if n < 8 {
		return &v.keyed[maphash.Bytes(v.sampleSeed, key)%keyedSlots]
	}
	k := &v.sampleKey
	h := mum(le64(key)^k[0], le64(key[n-8:])^k[1]) ^ mum(le64(key[n/2-4:])^k[2], uint64(n)^k[3])
	return &v.keyed[h%keyedSlots]
}

// rememberKeyed records s, found at sl by lookupKeyed, as clean: as a
// sighting, or as kept when one of the slot's last sightings was of s.
func (v *verdicts) rememberKeyed(sl *keyedSlot, s string) {
	h := v.sighting(s)
	for i := range sl.sighted {
		if sl.sighted[i].Load() == h {
			kept := strings.Clone(s)
			sl.kept[sl.nextKept.Add(1)%keyedWays].Store(&kept)
			return
		}
	}
	sl.sighted[sl.nextSighted.Add(1)%keyedWays].Store(h)
}
