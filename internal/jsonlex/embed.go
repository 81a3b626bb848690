package jsonlex

import (
	"encoding/binary"
	"math/bits"
)

// ValidEmbed reports whether d is one JSON value, valid and UTF-8, with no
// '\n' or '\r' anywhere: a value that can stand in a line as it is.
//
// It is the check the encoder makes on every JSON-valued attribute before
// embedding it raw (GenAI messages, tool arguments and results: most of an
// artifact's bytes), so it is its own loop rather than the Scanner's
// SkipValue: no error to build, no position to keep, one pass with the
// newline check folded in, and a bracket stack of one bit per level instead
// of recursion. It accepts exactly what a Scanner's SkipValue accepts with
// nothing after the value, nesting limit included, in a text without
// newlines (FuzzValidEmbed holds the two to that).
//
// Spaces and tabs are checked for where a token is expected, as one more
// case of the byte already loaded: writers emit none. Most strings are short and plain:
// when the first byte of the first eight that needs a look is the closing
// quote, the string ends there, decided without a call.
func ValidEmbed(d []byte) bool {
	var st brackets
	obj, isKey := false, false // the innermost open bracket is an object's (kept out of the stack); the string is a key
	i, n, c := 0, len(d), byte(0)

value: // a value is next
	if i >= n {
		return false
	}
	switch c = d[i]; c {
	case ' ', '\t':
		i++
		goto value
	case '{', '[':
		if obj = c == '{'; !st.push(obj) {
			return false
		}
		if i = blank(d, i+1); i < n && d[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
			i++
			goto pop
		}
		if obj {
			goto key
		}
		goto value
	case '"':
		isKey = false
		goto str
	case 't', 'f', 'n':
		if i = literalEnd(d, i); i < 0 {
			return false
		}
	default:
		if i, _ = numberEnd(d, i); i < 0 {
			return false
		}
	}
after: // a value ended
	if st.depth == 0 {
		return i == n
	}
ws:
	if i >= n {
		return false
	}
	c, i = d[i], i+1
	switch c {
	case ',':
		if obj {
			goto key
		}
		goto value
	case '}', ']':
		if obj == (c == '}') {
			goto pop
		}
	case ' ', '\t':
		goto ws
	}
	return false
pop: // a bracket closed
	obj = st.popObj()
	goto after
key: // an object's key is next
	if i = blank(d, i); i >= n || d[i] != '"' {
		return false
	}
	isKey = true
str: // d[i] opens a string
	i++
	for k := 0; k < 2 && i+8 <= n; k++ { // two words: most keys and short values
		w := binary.LittleEndian.Uint64(d[i:])
		if m := special(w); m != 0 {
			at := bits.TrailingZeros64(m) &^ 7 // the bit the byte starts at
			if i += at / 8; byte(w>>at) == '"' {
				i++
				goto strEnd
			}
			break
		}
		i += 8 // StringEnd goes on from the first byte not yet seen
	}
	if i = StringEnd(d, i); i < 0 {
		return false
	}
strEnd:
	if !isKey {
		goto after
	}
	if i < n && d[i] == ':' { // writers put no space before the colon
		i++
		goto value
	}
	if i = blank(d, i); i >= n || d[i] != ':' {
		return false
	}
	i++
	goto value
}

// blank returns the index of the first byte at or after i that is not a
// space or a tab.
func blank(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t') {
		i++
	}
	return i
}

// literalEnd checks the literal (true, false or null) that d[i] starts
// and returns the index just past it, or -1.
func literalEnd(d []byte, i int) int {
	lit := "null"
	switch d[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	}
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
