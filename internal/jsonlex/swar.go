package jsonlex

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The helpers here look at eight bytes at a time in a uint64 ("SIMD within
// a register"): the string loops run over long model text, where a byte at
// a time costs several times more.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// marks returns x with the high bit set in each byte whose low seven bits
// are a quote, a backslash or below 0x20 (only the high bits mean
// anything). On the low seven bits of each byte, additions carry into the
// high bit of the same byte only: a byte is 0 after the xor, or below
// 0x20, exactly when the sum leaves its high bit clear.
func marks(x uint64) uint64 {
	y := x & lows
	q := (y ^ (ones * '"')) + lows
	b := (y ^ (ones * '\\')) + lows
	c := y + ones*(0x80-0x20)
	return ^(q & b & c)
}

// special returns x with the high bit set in each byte that is a quote, a
// backslash, a control character or not ASCII, and only in those: the
// bytes a checking string scan must look at.
func special(x uint64) uint64 { return (x | marks(x)) & highs }

// specialASCII is special without the bytes that are not ASCII: the bytes
// a scan that passes other bytes through must stop at.
func specialASCII(x uint64) uint64 { return marks(x) &^ x & highs }

// PlainRun returns the index of the first byte at or after i that is a
// quote, a backslash, a control character or not ASCII: the bytes a string
// scan must look at. It checks sixteen bytes at a time (two words, one
// branch), which is what makes escaping and reading long strings cheap.
func PlainRun(d []byte, i int) int {
	for ; i+16 <= len(d); i += 16 {
		a := special(binary.LittleEndian.Uint64(d[i:]))
		b := special(binary.LittleEndian.Uint64(d[i+8:]))
		if a|b != 0 {
			if a != 0 {
				return i + bits.TrailingZeros64(a)/8
			}
			return i + 8 + bits.TrailingZeros64(b)/8
		}
	}
	if i+8 <= len(d) {
		if m := special(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	if i < len(d) && len(d) >= 8 {
		// Fewer than eight bytes left: the last word, with the bytes of it
		// already seen masked off (special flags each byte on its own).
		seen := 8 - (len(d) - i)
		m := special(binary.LittleEndian.Uint64(d[len(d)-8:])) &^ (1<<(8*seen) - 1)
		if m != 0 {
			return len(d) - 8 + bits.TrailingZeros64(m)/8
		}
		return len(d)
	}
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// plainRunASCII is PlainRun for a scan that passes bytes that are not
// ASCII through: it stops at a quote, a backslash or a control character.
func plainRunASCII(d []byte, i int) int {
	// A word at a time: the text redact walks stops at escapes often.
	for ; i+8 <= len(d); i += 8 {
		if m := specialASCII(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// Printable reports whether every byte of b is printable ASCII, 0x20 to
// 0x7f: the common case of a long stretch of message text, which then
// needs neither a control byte check nor UTF-8 decoding.
//
// Per word it subtracts 0x20 from each byte and ORs in the word itself: a
// byte at or above 0x80 keeps its high bit, and a byte below 0x20 wraps
// to a high bit set. The subtraction borrows across bytes, so a byte
// above one below 0x20 may be flagged too; but the borrow starts only
// at a byte that is itself out of range, and the answer is only "all
// printable or not". Four words a round, ORed together, so a round costs
// a few instructions for 32 bytes; it stops after the first round with a
// byte out of range, as text in another script has in every round.
func Printable(b []byte) bool {
	const k = 0x2020202020202020
	var acc uint64
	for len(b) >= 32 {
		p := (*[32]byte)(b) // a fixed size: no bounds checks below
		w := binary.LittleEndian.Uint64(p[0:8])
		x := binary.LittleEndian.Uint64(p[8:16])
		y := binary.LittleEndian.Uint64(p[16:24])
		z := binary.LittleEndian.Uint64(p[24:32])
		// A tree of ORs, not a chain: the four words are independent.
		acc |= (((w - k) | w) | ((x - k) | x)) | (((y - k) | y) | ((z - k) | z))
		if acc&highs != 0 {
			return false // text in another script: no need to look further
		}
		b = b[32:]
	}
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		acc |= (w - k) | w
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c-0x20) | uint64(c) // c-0x20 wraps to 0xe0.. for a control byte
	}
	return acc&highs == 0
}

// byteClasses reports whether d holds a byte below 0x20 (a control
// character) and one at or above 0x80 (not ASCII). It looks at eight
// bytes at a time and never stops early: both are rare in JSON text, and
// a loop without a branch per word runs at several bytes a cycle.
func byteClasses(d []byte) (ctrl, high bool) {
	const to20 = 0x6060606060606060 // + the low seven bits: high bit set from 0x20 up
	all, any := uint64(highs), uint64(0)
	for len(d) >= 16 {
		x := binary.LittleEndian.Uint64(d)
		y := binary.LittleEndian.Uint64(d[8:16])
		all &= ((x & lows) + to20) | x
		all &= ((y & lows) + to20) | y
		any |= x | y
		d = d[16:]
	}
	for len(d) >= 8 {
		x := binary.LittleEndian.Uint64(d)
		all &= ((x & lows) + to20) | x
		any |= x
		d = d[8:]
	}
	for _, c := range d {
		ctrl = ctrl || c < 0x20
		high = high || c >= utf8.RuneSelf
	}
	return ctrl || all&highs != highs, high || any&highs != 0
}

// plainText reports whether b, a stretch of a string between its quotes
// and escapes, holds no control byte and is UTF-8. Long model text is
// mostly printable ASCII, told by Printable at a few instructions for 32
// bytes; text with other bytes is classed and decoded.
func plainText(b []byte) bool {
	if Printable(b) {
		return true
	}
	ctrl, high := byteClasses(b)
	return !ctrl && (!high || utf8.Valid(b))
}
