package jsonlex

import (
	"fmt"
	"math"
	"strconv"
)

// MaxDepth bounds nesting so that hostile input cannot exhaust the stack:
// every check and walk here, and those built on them, refuse deeper text.
const MaxDepth = 256

// Scanner is a small JSON reader over one line. Decoders read straight
// into their own types with it, without an intermediate tree, and it can
// hand back the raw bytes of a value, which is how a JSON-valued attribute
// comes back byte for byte.
//
// Errors are sticky: after the first one every method returns zero values,
// so decoders check Err once per line rather than after every call. The
// fields are open to the decoders built on it, which look ahead and go
// back (Pos), name their own errors (Err) and step over brackets they
// consume themselves (Depth).
type Scanner struct {
	Data    []byte // the text being read
	Pos     int    // the next byte to read
	Err     error  // the first error, a *SyntaxError unless a caller set its own
	Depth   int    // brackets opened by Open and not yet closed by More
	scratch []byte
}

// Reset starts reading data.
func (s *Scanner) Reset(data []byte) {
	s.Data, s.Pos, s.Err, s.Depth = data, 0, nil, 0
}

// Fail records a *SyntaxError at the current byte, unless an error is
// recorded already, and stops the scan.
func (s *Scanner) Fail(format string, args ...any) {
	if s.Err == nil {
		s.Err = &SyntaxError{At: s.Pos, Msg: fmt.Sprintf(format, args...)}
	}
	s.Pos = len(s.Data)
}

// SyntaxError is a Scanner's error: what went wrong at which byte. Its
// text is "column N: what" (a line's column); the OTLP guard turns the
// offset into a line and a column of a whole document.
type SyntaxError struct {
	At  int    // the offset of the byte in the scanned text
	Msg string // what is wrong there
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.At+1, e.Msg) }

// WS skips white space.
func (s *Scanner) WS() {
	for s.Pos < len(s.Data) {
		// Writers emit no space between tokens: one compare decides.
		if c := s.Data[s.Pos]; c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return
		}
		s.Pos++
	}
}

// Peek returns the next non-space byte without consuming it, 0 at the end.
func (s *Scanner) Peek() byte {
	s.WS()
	if s.Pos < len(s.Data) {
		return s.Data[s.Pos]
	}
	return 0
}

// Expect consumes c, the next non-space byte, or fails.
func (s *Scanner) Expect(c byte) {
	if s.Peek() != c {
		if s.Pos >= len(s.Data) {
			s.Fail("unexpected end, want %q", c)
		} else {
			s.Fail("unexpected %q, want %q", s.Data[s.Pos], c)
		}
		return
	}
	s.Pos++
}

// More steps to the next member of an object or element of an array whose
// opening bracket Open consumed. It consumes the closing bracket and
// returns false at the end:
//
//	for first := true; s.More(&first, '}'); { k := s.Key(); ... }
func (s *Scanner) More(first *bool, end byte) bool {
	if s.Step(first, end) {
		return true
	}
	if s.Err == nil {
		s.Depth--
	}
	return false
}

// Step is More without the bracket depth: the OTLP guard's walk keeps its
// own (value levels, not brackets: an OTLP/JSON value level is three). It
// returns false at the closing bracket, consumed, or on an error.
func (s *Scanner) Step(first *bool, end byte) bool {
	if s.Err != nil {
		return false
	}
	c := s.Peek()
	if c == end {
		s.Pos++
		return false
	}
	if *first {
		*first = false
		return true
	}
	if c != ',' {
		s.Fail("want ',' or %q", end)
		return false
	}
	s.Pos++
	return true
}

// Open consumes an opening bracket, within MaxDepth.
func (s *Scanner) Open(c byte) bool {
	s.Expect(c)
	if s.Err != nil {
		return false
	}
	s.Depth++
	if s.Depth > MaxDepth {
		s.Fail("nesting deeper than %d", MaxDepth)
		return false
	}
	return true
}

// Key reads an object key and the colon after it. The bytes are valid
// until the next call that reads a string.
func (s *Scanner) Key() []byte {
	k := s.StrBytes()
	s.Expect(':')
	return k
}

// Str reads a string value.
func (s *Scanner) Str() string { return string(s.StrBytes()) }

// StrBytes reads a string value, unescaped. The bytes alias the line or the
// scratch buffer and are valid until the next string read.
func (s *Scanner) StrBytes() []byte {
	if s.Peek() != '"' {
		s.Fail("want a string")
		return nil
	}
	s.Pos++
	start := s.Pos
	d := s.Data
	i := PlainRun(d, start)
	if i < len(d) && d[i] == '"' {
		s.Pos = i + 1
		return d[start:i]
	}
	// An escape or a byte that is not ASCII: check the rest, then decode.
	if !s.stringFrom(i) {
		return nil
	}
	s.scratch = Unescape(s.scratch[:0], d[start:s.Pos-1])
	return s.scratch
}

// Number reads a JSON number and returns its text and whether it is an
// integer (no fraction, no exponent).
func (s *Scanner) Number() (text []byte, isInt bool) {
	s.WS()
	start := s.Pos
	end, isInt := numberEnd(s.Data, start)
	if end < 0 {
		s.Pos = -1 - end
		if s.Pos == start || s.Pos == start+1 && s.Data[start] == '-' {
			s.Fail("want a number")
		} else {
			s.Fail("bad number")
		}
		return nil, false
	}
	s.Pos = end
	return s.Data[start:end], isInt
}

// Int reads an integer that fits int64.
func (s *Scanner) Int() int64 {
	text, isInt := s.Number()
	if s.Err != nil {
		return 0
	}
	if !isInt {
		s.Fail("want an integer, got %s", text)
		return 0
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		s.Fail("integer %s out of range", text)
	}
	return v
}

// Float reads any number as a float64.
func (s *Scanner) Float() float64 {
	text, _ := s.Number()
	if s.Err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(text), 64)
	if err != nil && !math.IsInf(v, 0) {
		s.Fail("bad number %s", text)
	}
	return v
}

// Literal consumes lit (true, false or null) if it is next.
func (s *Scanner) Literal(lit string) bool {
	s.WS()
	if len(s.Data)-s.Pos >= len(lit) && string(s.Data[s.Pos:s.Pos+len(lit)]) == lit {
		s.Pos += len(lit)
		return true
	}
	return false
}

// Bool reads true or false.
func (s *Scanner) Bool() bool {
	switch {
	case s.Literal("true"):
		return true
	case s.Literal("false"):
		return false
	}
	s.Fail("want true or false")
	return false
}

// End checks that nothing but spaces follow the value.
func (s *Scanner) End() {
	if s.WS(); s.Pos < len(s.Data) {
		s.Fail("unexpected data after the value")
	}
}
