package converter

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// validEmbed reports whether d is one JSON value, valid and UTF-8, with no
// '\n' or '\r' anywhere: a value that can stand in a line as it is.
//
// It is the check the encoder makes on every JSON-valued attribute before
// embedding it raw (GenAI messages, tool arguments and results: most of an
// artifact's bytes), so it is its own loop rather than the scanner's
// skipValue: no error to build, no position to keep, one pass with the
// newline check folded in, and a bracket stack of one bit per level instead
// of recursion. It accepts exactly what a scanner's skipValue accepts with
// nothing after the value, nesting limit included, in a text without
// newlines (FuzzValidEmbed holds the two to that).
func validEmbed(d []byte) bool {
	var stack [maxDepth / 64]uint64 // bit set: object; clear: array
	depth := uint(0)
	obj := false // the innermost open bracket is an object's: kept out of the stack, read at every value's end
	i, n := 0, len(d)
	var c byte

	// Spaces and tabs are checked for where a token is expected, as one
	// more case of the byte already loaded: writers emit none, so the
	// usual path is one load and one switch per token.
value: // a value is next
	if i >= n {
		return false
	}
	switch c = d[i]; c {
	case ' ', '\t':
		i++
		goto value
	case '{', '[':
		if depth >= maxDepth {
			return false
		}
		obj = c == '{'
		if obj {
			stack[depth/64%uint(len(stack))] |= 1 << (depth % 64)
		} else {
			stack[depth/64%uint(len(stack))] &^= 1 << (depth % 64)
		}
		depth++
		i++
		for i < n && (d[i] == ' ' || d[i] == '\t') {
			i++
		}
		if i < n && d[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
			i++
			goto pop
		}
		if obj {
			goto key
		}
		goto value
	case '"':
		// Most strings are short and plain: when the first byte of the
		// first eight that needs a look is the closing quote, the string
		// ends there, decided without a call (a key below alike).
		i++
		for k := 0; k < 2 && i+8 <= n; k++ { // two words: most keys and short values
			w := binary.LittleEndian.Uint64(d[i:])
			m := special(w)
			if m == 0 {
				i += 8 // stringEnd goes on from the first byte not yet seen
				continue
			}
			at := bits.TrailingZeros64(m) &^ 7 // the bit the byte starts at
			i += at / 8
			if byte(w>>at) == '"' {
				i++
				goto after
			}
			break
		}
		if i = stringEnd(d, i); i < 0 {
			return false
		}
	case 't':
		if i+4 > n || string(d[i:i+4]) != "true" {
			return false
		}
		i += 4
	case 'f':
		if i+5 > n || string(d[i:i+5]) != "false" {
			return false
		}
		i += 5
	case 'n':
		if i+4 > n || string(d[i:i+4]) != "null" {
			return false
		}
		i += 4
	default:
		if i = numberEnd(d, i); i < 0 {
			return false
		}
	}

after: // a value ended
	if depth == 0 {
		return i == n
	}
ws:
	if i >= n {
		return false
	}
	c = d[i]
	i++
	switch c {
	case ',':
		if obj {
			goto key
		}
		goto value
	case '}':
		if obj {
			goto pop
		}
	case ']':
		if !obj {
			goto pop
		}
	case ' ', '\t':
		goto ws
	}
	return false

pop: // a bracket closed
	depth--
	if depth > 0 {
		obj = stack[(depth-1)/64%uint(len(stack))]&(1<<((depth-1)%64)) != 0
	}
	goto after

key: // an object's key is next
	if i >= n {
		return false
	}
	if c = d[i]; c != '"' {
		if c == ' ' || c == '\t' {
			i++
			goto key
		}
		return false
	}
	i++
	for k := 0; k < 2 && i+8 <= n; k++ {
		w := binary.LittleEndian.Uint64(d[i:])
		m := special(w)
		if m == 0 {
			i += 8
			continue
		}
		at := bits.TrailingZeros64(m) &^ 7
		i += at / 8
		if byte(w>>at) == '"' {
			i++
			goto colon
		}
		break
	}
	if i = stringEnd(d, i); i < 0 {
		return false
	}
colon:
	if i < n && d[i] == ':' { // writers put no space before the colon
		i++
		goto value
	}
	for i < n && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	if i >= n || d[i] != ':' {
		return false
	}
	i++
	goto value
}

// plainText reports whether b, a stretch of a string between its quotes
// and escapes, holds no control byte and is UTF-8. Long model text is
// mostly printable ASCII, told by printable at a few instructions for 32
// bytes; text with other bytes is classed and decoded.
func plainText(b []byte) bool {
	if printable(b) {
		return true
	}
	ctrl, high := byteClasses(b)
	return !ctrl && (!high || utf8.Valid(b))
}

// byteClasses reports whether d holds a byte below 0x20 (a control
// character) and one at or above 0x80 (not ASCII). It looks at eight
// bytes at a time and never stops early: both are rare in JSON text, and
// a loop without a branch per word runs at several bytes a cycle.
func byteClasses(d []byte) (ctrl, high bool) {
	const (
		lows  = 0x7f7f7f7f7f7f7f7f
		highs = 0x8080808080808080
		to20  = 0x6060606060606060 // + the low seven bits: high bit set from 0x20 up
	)
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

// stringEnd checks the string whose content starts at d[i] and returns the
// index just past its closing quote, or -1 if it is not a valid JSON
// string of UTF-8.
//
// Short strings and the pieces between escapes are looked at eight bytes
// at a time for the bytes that need a look (see plainRun). Past shortRun
// bytes without one, the string is likely long text: its quote is found
// with bytes.IndexByte (vector instructions where there are), then a
// backslash before it, and the stretch up to the first of them is checked
// in bulk to hold no control byte and to be UTF-8.
func stringEnd(d []byte, i int) int {
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
				if _, ok := hex4(d, j+2); !ok {
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

// numberEnd checks the JSON number at d[i] and returns the index just past
// it, or -1 if there is none.
func numberEnd(d []byte, i int) int {
	n := len(d)
	if i < n && d[i] == '-' {
		i++
	}
	switch {
	case i < n && d[i] == '0':
		i++
	case i < n && '1' <= d[i] && d[i] <= '9':
		for i < n && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < n && d[i] == '.' {
		i++
		j := i
		for i < n && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		if i == j {
			return -1
		}
	}
	if i < n && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < n && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < n && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		if i == j {
			return -1
		}
	}
	return i
}
