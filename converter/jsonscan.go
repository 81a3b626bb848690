package converter

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a small JSON reader over one line. The record path decodes
// straight into pdata with it, without an intermediate tree, and it can hand
// back the raw bytes of a value, which is how a JSON-valued attribute comes
// back byte for byte.
//
// Errors are sticky: after the first one every method returns zero values,
// so decoders check s.err once per line rather than after every call.
//
// redact/json.go keeps its own walker on purpose: it rewrites JSON (a scan
// pass, then an emit pass, a decision per member name, JSON inside strings
// walked again) and passes non-ASCII bytes through unchecked, while this
// scanner decodes into pdata and validEmbed only answers yes or no, UTF-8
// included. Sharing one loop would put redact's per-member work into the
// encoder's hottest check or UTF-8 checks into redact's: dropping even
// this scanner's positions and errors made the encoder's check 1.5-3×
// faster (validEmbed), so the two share the grammar, not the code.
type scanner struct {
	data    []byte
	pos     int
	err     error
	depth   int
	scratch []byte
}

// plainRun returns the index of the first byte at or after i that is a
// quote, a backslash, a control character or not ASCII: the bytes a string
// scan must look at. It checks sixteen bytes at a time (two words, one
// branch), which is what makes escaping and reading long strings cheap.
func plainRun(d []byte, i int) int {
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

// special returns x with the high bit set in each byte that is a quote, a
// backslash, a control character or not ASCII, and only in those.
func special(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
		lows  = 0x7f7f7f7f7f7f7f7f
	)
	// On the low seven bits of each byte, additions carry into the high
	// bit of the same byte only: a byte is 0 after the xor, or below 0x20,
	// exactly when the sum leaves its high bit clear.
	y := x & lows
	q := (y ^ (ones * '"')) + lows
	b := (y ^ (ones * '\\')) + lows
	c := y + ones*(0x80-0x20)
	return (x | ^(q & b & c)) & highs
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 256

func (s *scanner) reset(data []byte) {
	s.data, s.pos, s.err, s.depth = data, 0, nil, 0
}

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = &syntaxError{at: s.pos, msg: fmt.Sprintf(format, args...)}
	}
	s.pos = len(s.data)
}

// syntaxError is a scanner's error: what went wrong at which byte. Its
// text is "column N: what" (a line's column); the OTLP guard turns the
// offset into a line and a column of a whole document.
type syntaxError struct {
	at  int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.at+1, e.msg) }

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		// Writers emit no space between tokens: one compare decides.
		if c := s.data[s.pos]; c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return
		}
		s.pos++
	}
}

// peek returns the next non-space byte without consuming it, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) expect(c byte) {
	if s.peek() != c {
		if s.pos >= len(s.data) {
			s.fail("unexpected end, want %q", c)
		} else {
			s.fail("unexpected %q, want %q", s.data[s.pos], c)
		}
		return
	}
	s.pos++
}

// more steps to the next member of an object or element of an array whose
// opening bracket has been consumed. It consumes the closing bracket and
// returns false at the end.
func (s *scanner) more(first *bool, end byte) bool {
	if s.step(first, end) {
		return true
	}
	if s.err == nil {
		s.depth--
	}
	return false
}

// step is more without the bracket depth: the guard's walk keeps its own
// (value levels, not brackets: an OTLP/JSON value level is three). It
// returns false at the closing bracket, consumed, or on an error.
func (s *scanner) step(first *bool, end byte) bool {
	if s.err != nil {
		return false
	}
	c := s.peek()
	if c == end {
		s.pos++
		return false
	}
	if *first {
		*first = false
		return true
	}
	if c != ',' {
		s.fail("want ',' or %q", end)
		return false
	}
	s.pos++
	return true
}

// open consumes an opening bracket.
func (s *scanner) open(c byte) bool {
	s.expect(c)
	if s.err != nil {
		return false
	}
	s.depth++
	if s.depth > maxDepth {
		s.fail("nesting deeper than %d", maxDepth)
		return false
	}
	return true
}

// key reads an object key and the colon after it. The bytes are valid until
// the next call that reads a string.
func (s *scanner) key() []byte {
	k := s.strBytes()
	s.expect(':')
	return k
}

// str reads a string value.
func (s *scanner) str() string { return string(s.strBytes()) }

// strBytes reads a string value, unescaped. The bytes alias the line or the
// scratch buffer and are valid until the next string read.
func (s *scanner) strBytes() []byte {
	if s.peek() != '"' {
		s.fail("want a string")
		return nil
	}
	s.pos++
	start := s.pos
	d := s.data
	i := plainRun(d, start)
	if i < len(d) && d[i] == '"' {
		s.pos = i + 1
		return d[start:i]
	}
	if i < len(d) {
		return s.strSlow(start, i)
	}
	s.pos = len(d)
	s.fail("unterminated string")
	return nil
}

func (s *scanner) strSlow(start, i int) []byte {
	d := s.data
	out := append(s.scratch[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			s.scratch = out
			return out
		case c < 0x20:
			s.pos = i
			s.fail("control character in string")
			return nil
		case c == '\\':
			if i+1 >= len(d) {
				s.pos = i
				s.fail("unterminated escape")
				return nil
			}
			i++
			switch d[i] {
			case '"', '\\', '/':
				out = append(out, d[i])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d, i+1)
				if !ok {
					s.pos = i
					s.fail("bad \\u escape")
					return nil
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if i+6 < len(d) && d[i+1] == '\\' && d[i+2] == 'u' {
						r2, ok2 = hex4(d, i+3)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				s.pos = i
				s.fail("bad escape \\%c", d[i])
				return nil
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				s.pos = i
				s.fail("invalid UTF-8")
				return nil
			}
			out = append(out, d[i:i+size]...)
			i += size
		}
	}
	s.pos = len(d)
	s.fail("unterminated string")
	return nil
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
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

// number reads a JSON number and returns its text and whether it is an
// integer (no fraction, no exponent).
func (s *scanner) number() (text []byte, isInt bool) {
	s.ws()
	d, i := s.data, s.pos
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		s.fail("want a number")
		return nil, false
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			s.fail("bad number")
			return nil, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		if i == j {
			s.pos = i
			s.fail("bad number")
			return nil, false
		}
	}
	s.pos = i
	return d[start:i], isInt
}

// int reads an integer that fits int64.
func (s *scanner) int() int64 {
	text, isInt := s.number()
	if s.err != nil {
		return 0
	}
	if !isInt {
		s.fail("want an integer, got %s", text)
		return 0
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		s.fail("integer %s out of range", text)
	}
	return v
}

// float reads any number as a float64.
func (s *scanner) float() float64 {
	text, _ := s.number()
	if s.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(text), 64)
	if err != nil && !math.IsInf(v, 0) {
		s.fail("bad number %s", text)
	}
	return v
}

// literal consumes true, false or null.
func (s *scanner) literal(lit string) bool {
	s.ws()
	if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return true
	}
	return false
}

func (s *scanner) boolean() bool {
	switch {
	case s.literal("true"):
		return true
	case s.literal("false"):
		return false
	}
	s.fail("want true or false")
	return false
}

// skip consumes one value of any type, checking it, and returns its bytes.
func (s *scanner) skip() []byte {
	s.ws()
	start := s.pos
	s.skipValue()
	if s.err != nil {
		return nil
	}
	return s.data[start:s.pos]
}

func (s *scanner) skipValue() {
	switch s.peek() {
	case '{', '[':
		s.skipContainer()
	case '"':
		s.skipString()
	case 't':
		if !s.literal("true") {
			s.fail("bad literal")
		}
	case 'f':
		if !s.literal("false") {
			s.fail("bad literal")
		}
	case 'n':
		if !s.literal("null") {
			s.fail("bad literal")
		}
	case 0:
		s.fail("unexpected end")
	default:
		s.number()
	}
}

// skipContainer checks an object or array without recursion: a stack of
// open brackets (one bit each) and what may come next is all JSON's grammar
// needs. It is the hot loop when reading the messages GenAI records embed.
func (s *scanner) skipContainer() {
	const (
		wantValue = iota // a value (or, right after '[', a ']')
		wantKey          // a key (or, right after '{', a '}')
		wantColon
		wantCommaOrEnd
	)
	var stack [maxDepth / 64]uint64 // bit set: object; clear: array
	depth := 0
	state := wantValue
	first := false
	push := func(obj bool) bool {
		if depth >= maxDepth {
			s.fail("nesting deeper than %d", maxDepth)
			return false
		}
		if obj {
			stack[depth/64] |= 1 << (depth % 64)
		} else {
			stack[depth/64] &^= 1 << (depth % 64)
		}
		depth++
		return true
	}
	inObject := func() bool { return stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0 }
	for {
		c := s.peek()
		switch state {
		case wantValue:
			switch c {
			case '{':
				s.pos++
				if !push(true) {
					return
				}
				state, first = wantKey, true
				continue
			case '[':
				s.pos++
				if !push(false) {
					return
				}
				state, first = wantValue, true
				continue
			case ']':
				if first && depth > 0 && !inObject() {
					s.pos++
					depth--
					first = false
					if depth == 0 {
						return
					}
					state = wantCommaOrEnd
					continue
				}
				s.fail("unexpected ']'")
				return
			case '"':
				s.skipString()
			case 't', 'f', 'n', 0:
				s.skipValue()
			default:
				s.number()
			}
			if s.err != nil {
				return
			}
			first = false
			state = wantCommaOrEnd
		case wantKey:
			if c == '}' && first {
				s.pos++
				depth--
				first = false
				if depth == 0 {
					return
				}
				state = wantCommaOrEnd
				continue
			}
			if c != '"' {
				s.fail("want a key")
				return
			}
			s.skipString()
			if s.err != nil {
				return
			}
			state = wantColon
		case wantColon:
			if c != ':' {
				s.fail("want ':'")
				return
			}
			s.pos++
			state, first = wantValue, false
		case wantCommaOrEnd:
			obj := inObject()
			switch {
			case c == ',':
				s.pos++
				if obj {
					state = wantKey
				} else {
					state = wantValue
				}
				first = false
			case (c == '}' && obj) || (c == ']' && !obj):
				s.pos++
				depth--
				if depth == 0 {
					return
				}
			default:
				s.fail("want ',' or a closing bracket")
				return
			}
		}
	}
}

// skipString checks a string without unescaping it.
func (s *scanner) skipString() {
	if s.peek() != '"' {
		s.fail("want a string")
		return
	}
	d := s.data
	i := s.pos + 1
	for i < len(d) {
		i = plainRun(d, i)
		if i >= len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return
		case c == '\\':
			if i+1 >= len(d) {
				s.pos = i
				s.fail("unterminated escape")
				return
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					s.pos = i
					s.fail("bad \\u escape")
					return
				}
				i += 6
			default:
				s.pos = i
				s.fail("bad escape")
				return
			}
		case c < 0x20:
			s.pos = i
			s.fail("control character in string")
			return
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				s.pos = i
				s.fail("invalid UTF-8")
				return
			}
			i += size
		}
	}
	s.pos = len(d)
	s.fail("unterminated string")
}

// countMembers returns the number of members of the object ahead without
// consuming it (0 if it is not a valid object; decoding will say why).
func (s *scanner) countMembers() int {
	pos, depth, err := s.pos, s.depth, s.err
	n := 0
	if s.open('{') {
		for first := true; s.more(&first, '}'); {
			s.skipString()
			s.expect(':')
			s.skipValue()
			n++
		}
	}
	if s.err != nil {
		n = 0
	}
	s.pos, s.depth, s.err = pos, depth, err
	return n
}

// validJSON reports whether b is one JSON value, spaces around it allowed.
func validJSON(b []byte) bool {
	var s scanner
	s.reset(b)
	s.skipValue()
	s.end()
	return s.err == nil
}

// end checks that nothing but spaces follow the value.
func (s *scanner) end() {
	if s.ws(); s.pos < len(s.data) {
		s.fail("unexpected data after the value")
	}
}
