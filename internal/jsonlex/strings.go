package jsonlex

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// A JSON string is checked three ways here, one grammar each: the
// Scanner's way with an error at the byte that is wrong (stringFrom),
// ValidEmbed's way as fast as it goes with a yes or no (StringEnd), and
// redact's way, which passes bytes that are not ASCII through unchecked
// (StringEndLoose). Unescape decodes what any of them accepted.

// SkipString checks a string without unescaping it.
func (s *Scanner) SkipString() {
	if s.Peek() != '"' {
		s.Fail("want a string")
		return
	}
	s.stringFrom(s.Pos + 1)
}

// stringFrom checks the rest of a string from d[i], inside it, and moves
// past its closing quote; it fails at the first byte that is wrong.
func (s *Scanner) stringFrom(i int) bool {
	d := s.Data
	for i < len(d) {
		i = PlainRun(d, i)
		if i >= len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			s.Pos = i + 1
			return true
		case c == '\\':
			if i+1 >= len(d) {
				s.Pos = i
				s.Fail("unterminated escape")
				return false
			}
			switch e := d[i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := Hex4(d, i+2); !ok {
					s.Pos = i
					s.Fail("bad \\u escape")
					return false
				}
				i += 6
			default:
				s.Pos = i
				s.Fail("bad escape \\%c", e)
				return false
			}
		case c < 0x20:
			s.Pos = i
			s.Fail("control character in string")
			return false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				s.Pos = i
				s.Fail("invalid UTF-8")
				return false
			}
			i += size
		}
	}
	s.Pos = len(d)
	s.Fail("unterminated string")
	return false
}

// Hex4 reads the four hex digits of a \u escape at d[i:i+4].
func Hex4(d []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Unescape appends the content of a checked JSON string (between its
// quotes) to dst, decoding escapes as encoding/json does: a surrogate pair
// is one rune and a lone surrogate is U+FFFD. Bytes that are not escapes
// are copied as they are. It is the repository's one JSON unescape.
func Unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				return append(dst, s[i:]...)
			}
			dst = append(dst, s[i:i+j]...)
			i += j
			continue
		}
		switch e := s[i+1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := Hex4(s, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					lo, _ := Hex4(s, i+2)
					r2 = utf16.DecodeRune(r, lo)
				}
				if r2 != utf8.RuneError {
					i += 6
				}
				r = r2
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // " \ /
			dst = append(dst, e)
		}
		i += 2
	}
	return dst
}

// StringEndLoose checks the JSON string that starts with the quote at
// b[pos] for its escapes and control bytes, passing bytes that are not
// ASCII through unchecked: redact rewrites text that need not be UTF-8 and
// must still find the fields in it. It returns the index just past the
// closing quote, or -1, and whether the string has escapes (and so must be
// unescaped before it is read).
func StringEndLoose(b []byte, pos int) (end int, escaped bool) {
	i := pos + 1
	for {
		i = plainRunASCII(b, i)
		if i >= len(b) {
			return -1, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := Hex4(b, i+2); !ok {
					return -1, false
				}
				i += 6
			default:
				return -1, false
			}
		default: // a control character
			return -1, false
		}
	}
}

// StringEnd checks the string whose content starts at d[i] and returns the
// index just past its closing quote, or -1 if it is not a valid JSON
// string of UTF-8.
//
// Short strings and the pieces between escapes are looked at eight bytes
// at a time for the bytes that need a look (see PlainRun). Past shortRun
// bytes without one, the string is likely long text: its quote is found
// with bytes.IndexByte (vector instructions where there are), then a
// backslash before it, and the stretch up to the first of them is checked
// in bulk to hold no control byte and to be UTF-8.
func StringEnd(d []byte, i int) int {
	const shortRun = 32
	q := -1 // the next quote at or after i, when known
	for {
		j := i
		for ; j+8 <= len(d); j += 8 {
			if m := special(binary.LittleEndian.Uint64(d[j:])); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				goto found
			}
			if j-i >= shortRun {
				goto bulk
			}
		}
		for ; j < len(d); j++ {
			if c := d[j]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				goto found
			}
		}
		return -1
	bulk:
		// d[j] starts a character (the bytes before it are ASCII).
		if q < j {
			if q = bytes.IndexByte(d[j:], '"'); q < 0 {
				return -1
			}
			q += j
		}
		if b := bytes.IndexByte(d[j:q], '\\'); b >= 0 {
			// d[j+b] is ASCII: d[j:j+b] is UTF-8 exactly when each
			// character in it is.
			if !plainText(d[j : j+b]) {
				return -1
			}
			j += b
		} else {
			if !plainText(d[j:q]) {
				return -1
			}
			return q + 1
		}
	found:
		switch c := d[j]; {
		case c == '"':
			return j + 1
		case c == '\\':
			if j+1 >= len(d) {
				return -1
			}
			switch d[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i = j + 2
			case 'u':
				if _, ok := Hex4(d, j+2); !ok {
					return -1
				}
				i = j + 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			// Not ASCII: a word or two in other text is decoded here; a
			// longer run, text in another script, is checked in bulk.
			for k := j + 16; d[j] >= utf8.RuneSelf; {
				if j >= k {
					goto bulk
				}
				r, size := utf8.DecodeRune(d[j:])
				if r == utf8.RuneError && size == 1 {
					return -1
				}
				if j += size; j >= len(d) {
					return -1
				}
			}
			i = j
		}
	}
}
