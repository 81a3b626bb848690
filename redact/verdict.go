package redact

import (
	"hash/maphash"
	"sync/atomic"
)

// verdicts remembers which long strings came out of a Redactor unchanged,
// so that a string seen again is not scanned again. Agent traces repeat
// long values verbatim: the same system instructions and tool definitions
// on every chat span of an agent, a tool result quoted again in the next
// call's input. A string is remembered by a 128-bit fingerprint (two
// keyed hashes, with seeds of this Redactor's own, so that no input can be
// made to collide on purpose; two different strings share one with odds of
// 2^-128), in a fixed table where a newer string takes an older one's
// slot: the memory is bounded by construction, a look-up takes no lock and
// allocates nothing, and a string forgotten is only scanned again. Only
// clean verdicts are kept: a string with a secret changes, and its
// replacement is what the span holds next.
type verdicts struct {
	seed0, seed1 maphash.Seed
	slots        [verdictSlots]verdictSlot
}

type verdictSlot struct{ h0, h1 atomic.Uint64 }

const (
	// verdictSlots is how many strings are remembered at most.
	verdictSlots = 1024
	// verdictMin is the shortest string remembered: shorter ones (ids,
	// names, models) cost about as little to scan as to hash twice.
	// verdictMax is the longest, so that
	// an unseen huge tool result does not pay for hashing on top of its
	// scan when it is unlikely to come again whole.
	verdictMin = 64
	verdictMax = 1 << 20
)

func newVerdicts() *verdicts {
	return &verdicts{seed0: maphash.MakeSeed(), seed1: maphash.MakeSeed()}
}

// fingerprint returns s's two hashes.
func (v *verdicts) fingerprint(s string) (uint64, uint64) {
	return maphash.String(v.seed0, s), maphash.String(v.seed1, s)
}

// clean reports whether the string with fingerprint h0, h1 was remembered
// as clean.
func (v *verdicts) clean(h0, h1 uint64) bool {
	sl := &v.slots[h0%verdictSlots]
	return sl.h0.Load() == h0 && sl.h1.Load() == h1
}

// remember records the string with fingerprint h0, h1 as clean. A reader
// racing with the two stores sees a mix of two fingerprints, which matches
// neither string: a miss, never a wrong verdict.
func (v *verdicts) remember(h0, h1 uint64) {
	sl := &v.slots[h0%verdictSlots]
	sl.h0.Store(h0)
	sl.h1.Store(h1)
}
