package artifact

import (
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"slices"
	"strconv"
)

// The helpers here look at eight bytes at a time in a uint64 ("SIMD within
// a register"): the encoder's hot loops run over long model text and
// fixed-size ids, where a byte at a time costs several times more.

// appendHex appends b in lowercase hex. Trace and span ids, three per
// record, take appendHex16 and appendHex8; other lengths encoding/hex.
func appendHex(dst []byte, b []byte) []byte {
	switch len(b) {
	case 16:
		return appendHex16(dst, (*[16]byte)(b))
	case 8:
		return appendHex8(dst, (*[8]byte)(b))
	}
	return hex.AppendEncode(dst, b)
}

// appendHex8 appends the 16 hex digits of an 8-byte id (a span id),
// four bytes at a time through hexWord.
func appendHex8(dst []byte, b *[8]byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 16)[:n+16]
	o := dst[n : n+16]
	binary.LittleEndian.PutUint64(o, hexWord(binary.BigEndian.Uint32(b[0:4])))
	binary.LittleEndian.PutUint64(o[8:], hexWord(binary.BigEndian.Uint32(b[4:8])))
	return dst
}

// appendHex16 appends the 32 hex digits of a 16-byte id (a trace id).
func appendHex16(dst []byte, b *[16]byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 32)[:n+32]
	o := dst[n : n+32]
	binary.LittleEndian.PutUint64(o, hexWord(binary.BigEndian.Uint32(b[0:4])))
	binary.LittleEndian.PutUint64(o[8:], hexWord(binary.BigEndian.Uint32(b[4:8])))
	binary.LittleEndian.PutUint64(o[16:], hexWord(binary.BigEndian.Uint32(b[8:12])))
	binary.LittleEndian.PutUint64(o[24:], hexWord(binary.BigEndian.Uint32(b[12:16])))
	return dst
}

// hexWord returns the eight hex digits of v, most significant first, as
// the bytes of a little-endian word.
func hexWord(v uint32) uint64 {
	// Spread the eight nibbles to one a byte, most significant in the
	// top byte; then swap the byte order so the first digit comes first
	// in memory.
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = bits.ReverseBytes64(x)
	// Each byte is now a nibble n: n+6 carries into bit 4 exactly when
	// n > 9, and '0'+n, plus 'a'-'0'-10 (39) for those, is its digit.
	letters := ((x + 0x0606060606060606) >> 4) & 0x0101010101010101
	return x + 0x3030303030303030 + letters*39
}

// appendInt is strconv.AppendInt in base 10, writing a number below
// 10,000 (a record's token counts, milliseconds, status codes) from digit
// pairs without strconv's general loop.
func appendInt(dst []byte, v int64) []byte {
	if v < 0 || v >= 10000 {
		return strconv.AppendInt(dst, v, 10)
	}
	u := int(v)
	if u < 10 {
		return append(dst, byte('0'+u))
	}
	if u < 100 {
		return append(dst, digitPairs[2*u], digitPairs[2*u+1])
	}
	hi, lo := u/100, u%100
	if hi < 10 {
		return append(dst, byte('0'+hi), digitPairs[2*lo], digitPairs[2*lo+1])
	}
	return append(dst, digitPairs[2*hi], digitPairs[2*hi+1], digitPairs[2*lo], digitPairs[2*lo+1])
}
