package semconv

import "math/bits"

// keyTable finds a key's id without a Go map: Read asks it once for every
// attribute of every span, and hashing the whole key (as a map does) was
// the larger part of Read's cost. The hash reads the key's length and its
// first and last eight bytes, which tell every key of the table apart but
// for a few sharing a slot; an open-addressed table of bytes, four times
// the number of keys, then finds a key with one string comparison, and
// most other keys with none. That comparison starts with the words the
// hash read, its first and last eight bytes, and its length: they tell
// apart the key probed from any other key of the table, so a key of at
// most 16 bytes is then found, and a longer one is compared whole only
// once it is all but certainly the key.
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
	if n := len(k); n >= 8 {
		return load64(k), load64(k[n-8:])
	}
	return shortWord(k), 0
}

// shortWord is a key shorter than eight bytes as a word.
func shortWord(k string) (lo uint64) {
	for i := range len(k) {
		lo |= uint64(k[i]) << (8 * i)
	}
	return lo
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
	// keyWords, written out: it is too large for the compiler to inline.
	n := len(k)
	var lo, hi uint64
	if n >= 8 {
		lo, hi = load64(k), load64(k[n-8:])
	} else {
		lo = shortWord(k)
	}
	for i := hashWords(lo, hi, n) >> (64 - bits.TrailingZeros(keySlots)); ; i = (i + 1) % keySlots {
		s := t.slot[i]
		if s == 0 {
			return 0, false
		}
		if e := &t.ends[s-1]; e.lo == lo && e.hi == hi && e.n == n && (n <= 16 || t.keys[s-1] == k) {
			return keyID(s - 1), true
		}
	}
}
