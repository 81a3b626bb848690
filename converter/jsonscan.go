package converter

import (
	"fmt"
	"math"
	"strconv"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// scanner is converter's reader of one line, token by token, over the
// repository's one JSON lexer (internal/jsonlex): the checks, the string
// grammar and the unescape are jsonlex's, the token reads the decoders
// call here keep their names and fields until the artifact decoders read
// with jsonlex.Scanner itself (issue 27 point 5). It can hand back the raw
// bytes of a value, which is how a JSON-valued attribute comes back byte
// for byte.
//
// Errors are sticky: after the first one every method returns zero values,
// so decoders check s.err once per line rather than after every call.
type scanner struct {
	data    []byte
	pos     int
	err     error
	depth   int
	scratch []byte
}

// lex returns a jsonlex.Scanner at the scanner's place, for a check that
// is jsonlex's; took takes back where it ended and its error.
func (s *scanner) lex() jsonlex.Scanner { return jsonlex.Scanner{Data: s.data, Pos: s.pos} }

func (s *scanner) took(j *jsonlex.Scanner) {
	s.pos = j.Pos
	if s.err == nil {
		s.err = j.Err
	}
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = jsonlex.MaxDepth

func (s *scanner) reset(data []byte) {
	s.data, s.pos, s.err, s.depth = data, 0, nil, 0
}

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = &syntaxError{At: s.pos, Msg: fmt.Sprintf(format, args...)}
	}
	s.pos = len(s.data)
}

// syntaxError is a scanner's error: what went wrong at which byte
// (jsonlex's). Its text is "column N: what" (a line's column); the OTLP
// guard turns the offset into a line and a column of a whole document.
type syntaxError = jsonlex.SyntaxError

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
	start := s.pos + 1
	d := s.data
	if i := jsonlex.PlainRun(d, start); i < len(d) && d[i] == '"' {
		s.pos = i + 1
		return d[start:i]
	}
	// An escape or a byte that is not ASCII: check it, then decode.
	if s.skipString(); s.err != nil {
		return nil
	}
	s.scratch = jsonlex.Unescape(s.scratch[:0], d[start:s.pos-1])
	return s.scratch
}

// number reads a JSON number and returns its text and whether it is an
// integer (no fraction, no exponent).
func (s *scanner) number() (text []byte, isInt bool) {
	j := s.lex()
	text, isInt = j.Number()
	s.took(&j)
	return text, isInt
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
	if s.err != nil {
		return
	}
	j := s.lex()
	j.SkipValue()
	s.took(&j)
}

// skipString checks a string without unescaping it.
func (s *scanner) skipString() {
	if s.err != nil {
		return
	}
	j := s.lex()
	j.SkipString()
	s.took(&j)
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
func validJSON(b []byte) bool { return jsonlex.Valid(b) }

// validEmbed reports whether d is one JSON value that can stand in a line
// as it is (jsonlex.ValidEmbed: valid, UTF-8, no newline).
func validEmbed(d []byte) bool { return jsonlex.ValidEmbed(d) }

// end checks that nothing but spaces follow the value.
func (s *scanner) end() {
	if s.ws(); s.pos < len(s.data) {
		s.fail("unexpected data after the value")
	}
}
