package viewer

import (
	"bytes"
	"encoding/json"
)

// dropFields returns line, a JSON object as converter writes it, without
// its top-level members named in drop (copied into dst). Values are
// skipped by their syntax: strings to their closing quote (a quote inside
// one is always escaped), objects and arrays to the bracket that closes
// them; nested members are never touched. A line that ends early is
// returned whole: it came from converter's encoder, so that would mean a
// bug there, and showing too much beats showing nothing.
func dropFields(dst, line []byte, drop func(key []byte) bool) []byte {
	if len(line) < 2 || line[0] != '{' {
		return append(dst, line...)
	}
	start := len(dst)
	dst = append(dst, '{')
	first := true
	i := 1
	for {
		i = skipSpace(line, i)
		if i >= len(line) {
			return append(dst[:start], line...)
		}
		if line[i] == '}' {
			return append(dst, '}')
		}
		if line[i] == ',' {
			i = skipSpace(line, i+1)
		}
		if i >= len(line) || line[i] != '"' {
			return append(dst[:start], line...)
		}
		keyStart := i
		i = skipString(line, i)
		if i < 0 {
			return append(dst[:start], line...)
		}
		key := line[keyStart+1 : i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			// An escaped name (converter writes its own plainly): compare
			// what it means.
			var k string
			if json.Unmarshal(line[keyStart:i], &k) == nil {
				key = []byte(k)
			}
		}
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ':' {
			return append(dst[:start], line...)
		}
		i = skipValue(line, skipSpace(line, i+1))
		if i < 0 {
			return append(dst[:start], line...)
		}
		if drop(key) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, line[keyStart:i]...)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at b[i],
// or -1 when it does not close.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value that starts at b[i], or
// -1 when it does not end. Depth is counted, not recursed, so no nesting
// can exhaust the stack.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := skipString(b, i)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	// A number, true, false or null: up to the next delimiter.
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
