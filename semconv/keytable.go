package semconv

import "math/bits"

// keyTable finds a key's id without a Go map: Read asks it once for every
// attribute of every span, and hashing the whole key (as a map does) was
// the larger part of Read's cost. The hash reads the key's length and its
// first and last eight bytes, which tell every key of the table apart but
// for a few sharing a slot; an open-addressed table of bytes, four times
// the number of keys, then finds a key with one string comparison, and
// most other keys with none. That comparison is done in words: the
// first and last eight bytes the hash read, then the middle, eight bytes
// at a time (no call to the runtime's memequal, which was most of a
// lookup).
type keyTable struct {
	slot [keySlots]uint8 // id + 1, 0 when empty
	keys []string        // by id
	ends []keyEnds       // by id
}

// keyEnds is a key's length and its first and last eight bytes, as
// keyWords reads them.
type keyEnds struct {
	lo, hi uint64
	n      int
}

// keySlots is the table's size: a power of two at least twice maxKeys.
const keySlots = 512

var _ = [keySlots - 2*maxKeys]struct{}{}

// keyHashMul is odd and has its bits spread out (Knuth's golden ratio).
const keyHashMul = 0x9e3779b97f4a7c15

func keyHash(k string) uint64 {
	lo, hi := keyWords(k)
	return hashWords(lo, hi, len(k))
}

// keyWords returns k's first and last eight bytes (a shorter key's bytes,
// and 0).
func keyWords(k string) (lo, hi uint64) {
	n := len(k)
	if n >= 8 {
		return load64(k), load64(k[n-8:])
	}
	for i := range n {
		lo |= uint64(k[i]) << (8 * i)
	}
	return lo, 0
}

func hashWords(lo, hi uint64, n int) uint64 {
	return (lo ^ bits.RotateLeft64(hi, 29) ^ uint64(n)<<56) * keyHashMul
}

// load64 reads k[:8] little-endian; the compiler makes it one load.
func load64(k string) uint64 {
	_ = k[7]
	return uint64(k[0]) | uint64(k[1])<<8 | uint64(k[2])<<16 | uint64(k[3])<<24 |
		uint64(k[4])<<32 | uint64(k[5])<<40 | uint64(k[6])<<48 | uint64(k[7])<<56
}

// add puts key k with id (the next one) in the table.
func (t *keyTable) add(k string, id keyID) {
	t.keys = append(t.keys, k)
	lo, hi := keyWords(k)
	t.ends = append(t.ends, keyEnds{lo, hi, len(k)})
	for i := keyHash(k) >> (64 - bits.TrailingZeros(keySlots)); ; i = (i + 1) % keySlots {
		if t.slot[i] == 0 {
			t.slot[i] = uint8(id + 1)
			return
		}
	}
}

// find returns k's id, and false when k is no key of the table.
func (t *keyTable) find(k string) (keyID, bool) {
	lo, hi := keyWords(k)
	n := len(k)
	for i := hashWords(lo, hi, n) >> (64 - bits.TrailingZeros(keySlots)); ; i = (i + 1) % keySlots {
		s := t.slot[i]
		if s == 0 {
			return 0, false
		}
		if e := &t.ends[s-1]; e.lo == lo && e.hi == hi && e.n == n && sameMiddle(k, t.keys[s-1]) {
			return keyID(s - 1), true
		}
	}
}

// sameMiddle reports whether a and b, of one length with the same first
// and last eight bytes, are equal: it compares what lies between, eight
// bytes at a time (the last word may reach into the last eight bytes,
// which are equal).
func sameMiddle(a, b string) bool {
	if len(b) != len(a) {
		return false // never, but it lets the compiler drop b's bounds checks
	}
	for j := 8; j < len(a)-8; j += 8 {
		if load64(a[j:]) != load64(b[j:]) {
			return false
		}
	}
	return true
}
