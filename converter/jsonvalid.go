package converter

import "unicode/utf8"

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
	depth := 0
	i := 0
	n := len(d)
	var c byte

value: // a value is next
	for i < n && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	if i >= n {
		return false
	}
	switch c = d[i]; c {
	case '{', '[':
		if depth >= maxDepth {
			return false
		}
		if c == '{' {
			stack[depth/64] |= 1 << (depth % 64)
		} else {
			stack[depth/64] &^= 1 << (depth % 64)
		}
		depth++
		i++
		for i < n && (d[i] == ' ' || d[i] == '\t') {
			i++
		}
		if i < n && d[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
			i++
			depth--
			goto after
		}
		if c == '{' {
			goto key
		}
		goto value
	case '"':
		if i = stringEnd(d, i+1); i < 0 {
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
	for i < n && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	if i >= n {
		return false
	}
	c = d[i]
	i++
	if stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0 {
		switch c {
		case ',':
			goto key
		case '}':
			depth--
			goto after
		}
		return false
	}
	switch c {
	case ',':
		goto value
	case ']':
		depth--
		goto after
	}
	return false

key: // an object's key is next
	for i < n && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	if i >= n || d[i] != '"' {
		return false
	}
	if i = stringEnd(d, i+1); i < 0 {
		return false
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

// stringEnd checks the string whose content starts at d[i] and returns the
// index just past its closing quote, or -1 if it is not a valid JSON
// string of UTF-8.
func stringEnd(d []byte, i int) int {
	for {
		i = plainRun(d, i)
		if i >= len(d) {
			return -1
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(d) {
				return -1
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			// Text that is not ASCII tends to come in runs: check the run
			// before going back to the eight-bytes-at-a-time loop.
			for i < len(d) && d[i] >= utf8.RuneSelf {
				r, size := utf8.DecodeRune(d[i:])
				if r == utf8.RuneError && size == 1 {
					return -1
				}
				i += size
			}
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
