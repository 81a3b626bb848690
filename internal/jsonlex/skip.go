package jsonlex

// Skip consumes one value of any type, checking it, and returns its bytes.
func (s *Scanner) Skip() []byte {
	s.WS()
	start := s.Pos
	s.SkipValue()
	if s.Err != nil {
		return nil
	}
	return s.Data[start:s.Pos]
}

// SkipValue consumes one value of any type, checking it.
func (s *Scanner) SkipValue() {
	switch s.Peek() {
	case '{', '[':
		s.skipContainer()
	case '"':
		s.SkipString()
	case 't':
		if !s.Literal("true") {
			s.Fail("bad literal")
		}
	case 'f':
		if !s.Literal("false") {
			s.Fail("bad literal")
		}
	case 'n':
		if !s.Literal("null") {
			s.Fail("bad literal")
		}
	case 0:
		s.Fail("unexpected end")
	default:
		s.Number()
	}
}

// brackets is a stack of open brackets, one bit each (set: an object's),
// which is all a check of JSON's grammar needs to go without recursion.
type brackets struct {
	bits  [MaxDepth / 64]uint64
	depth uint
}

// push opens a bracket, an object's when obj; false past MaxDepth.
func (b *brackets) push(obj bool) bool {
	if b.depth >= MaxDepth {
		return false
	}
	w := &b.bits[b.depth/64%uint(len(b.bits))] // (the modulo drops the bounds check)
	if obj {
		*w |= 1 << (b.depth % 64)
	} else {
		*w &^= 1 << (b.depth % 64)
	}
	b.depth++
	return true
}

// pop closes the innermost bracket and reports whether none is left open.
func (b *brackets) pop() bool {
	b.depth--
	return b.depth == 0
}

// popObj closes the innermost bracket and reports whether the one open
// now is an object's (false when none is).
func (b *brackets) popObj() bool {
	if b.depth--; b.depth == 0 {
		return false
	}
	return b.inObject()
}

// inObject reports whether the innermost open bracket is an object's.
func (b *brackets) inObject() bool {
	d := b.depth - 1
	return b.bits[d/64%uint(len(b.bits))]&(1<<(d%64)) != 0
}

// skipContainer checks an object or array without recursion: a stack of
// open brackets and what may come next is all JSON's grammar needs. It is
// the hot loop when reading the messages GenAI records embed.
func (s *Scanner) skipContainer() {
	const (
		wantValue      = iota // a value (or, right after '[', a ']')
		wantKey               // a key (or, right after '{', a '}')
		wantColon             // the colon after a key
		wantCommaOrEnd        // a comma or the closing bracket
	)
	var st brackets
	state, first := wantValue, false
	for {
		c := s.Peek()
		switch state {
		case wantValue:
			switch c {
			case '{', '[':
				s.Pos++
				if !st.push(c == '{') {
					s.Fail("nesting deeper than %d", MaxDepth)
					return
				}
				state, first = wantValue, true
				if c == '{' {
					state = wantKey
				}
				continue
			case ']':
				if !first || st.depth == 0 || st.inObject() {
					s.Fail("unexpected ']'")
					return
				}
				s.Pos++
				if st.pop() {
					return
				}
				state, first = wantCommaOrEnd, false
				continue
			case '"':
				s.SkipString()
			case 't', 'f', 'n', 0:
				s.SkipValue()
			default:
				s.Number()
			}
			if s.Err != nil {
				return
			}
			state, first = wantCommaOrEnd, false
		case wantKey:
			if c == '}' && first {
				s.Pos++
				if st.pop() {
					return
				}
				state, first = wantCommaOrEnd, false
				continue
			}
			if c != '"' {
				s.Fail("want a key")
				return
			}
			if s.SkipString(); s.Err != nil {
				return
			}
			state = wantColon
		case wantColon:
			if c != ':' {
				s.Fail("want ':'")
				return
			}
			s.Pos++
			state, first = wantValue, false
		case wantCommaOrEnd:
			obj := st.inObject()
			switch {
			case c == ',':
				s.Pos++
				state, first = wantValue, false
				if obj {
					state = wantKey
				}
			case (c == '}' && obj) || (c == ']' && !obj):
				s.Pos++
				if st.pop() {
					return
				}
			default:
				s.Fail("want ',' or a closing bracket")
				return
			}
		}
	}
}

// CountMembers returns the number of members of the object ahead without
// consuming it (0 if it is not a valid object; decoding will say why).
func (s *Scanner) CountMembers() int {
	pos, depth, err := s.Pos, s.Depth, s.Err
	n := 0
	if s.Open('{') {
		for first := true; s.More(&first, '}'); {
			s.SkipString()
			s.Expect(':')
			s.SkipValue()
			n++
		}
	}
	if s.Err != nil {
		n = 0
	}
	s.Pos, s.Depth, s.Err = pos, depth, err
	return n
}

// Valid reports whether b is one JSON value, spaces around it allowed.
func Valid(b []byte) bool {
	var s Scanner
	s.Reset(b)
	s.SkipValue()
	s.End()
	return s.Err == nil
}

// NumberEnd checks the JSON number at d[i] and returns the index just past
// it, or -1 if there is none.
func NumberEnd(d []byte, i int) int {
	if end, _ := numberEnd(d, i); end >= 0 {
		return end
	}
	return -1
}

// numberEnd checks the JSON number at d[i] and returns the index just past
// it and whether it is an integer (no fraction, no exponent); when the
// number is wrong, it returns -1-j for the byte d[j] where it is.
func numberEnd(d []byte, i int) (end int, isInt bool) {
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
		return -1 - i, false
	}
	isInt = true
	if i < n && d[i] == '.' {
		isInt = false
		i++
		j := i
		for i < n && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		if i == j {
			return -1 - i, false
		}
	}
	if i < n && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < n && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < n && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		if i == j {
			return -1 - i, false
		}
	}
	return i, isInt
}
