package redact

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/agenttrace/agenttrace/converter"
)

// The JSON walker is a small validating parser rather than encoding/json:
// tool arguments and messages are on nearly every GenAI span, and the
// common case, nothing to redact, must cost one pass over the bytes and no
// allocation. It runs twice when something changes, first to find out
// (mode scan), then to write the result (mode emit). The result is compact,
// keeps every member in its place (duplicates too) and copies every value
// that did not change byte for byte, escapes and number spellings included.

// A mode says what a walk does besides validating.
type mode uint8

const (
	// skip only validates: a named field's old value is being dropped.
	skip mode = iota
	// scan finds whether anything would change.
	scan
	// emit writes the redacted document, compact, to doc.out.
	emit
)

// doc is one walk over one JSON document.
type doc struct {
	data    []byte
	pos     int
	level   int // JSON strings this document sits in: 0 for an attribute
	depth   int // open objects and arrays
	mode    mode
	changed bool
	out     []byte
}

// looksJSON reports whether b starts, after white space, like a JSON
// object or array, the values that are walked as JSON. A JSON string is
// walked too, so that its escapes are read as escapes and a replacement
// cannot break the quoting; numbers and literals hold nothing to redact.
func looksJSON(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		case '{', '[', '"':
			return true
		default:
			return false
		}
	}
	return false
}

// content redacts the content of a string: as a JSON document at level
// when it is one, otherwise as text. With emit false it only reports
// whether anything would change (the returned bytes are then meaningless);
// with emit true it returns the new content, which may alias the walker's
// scratch space and must be used before the next walk at this level.
//
// A text replacement can turn invalid JSON into valid JSON (a private key
// block with a control character in it, inside a JSON string), and then
// walking it as JSON may find more. So the result is redacted again until
// nothing changes: redacting twice must give what redacting once gave.
func (w *walker) content(b []byte, level int, emitting bool) ([]byte, bool) {
	out, changed, asText := w.contentOnce(b, level, emitting)
	if !changed || !emitting || !asText || level >= maxLevels || !looksJSON(b) {
		return out, changed
	}
	for range maxPasses {
		s := string(out) // out may alias w.out[level], which the next pass writes
		next, again, _ := w.contentOnce(bytesOf(s), level, true)
		if !again {
			return bytesOf(s), true
		}
		out = next
	}
	return out, true
}

// contentOnce is one pass of content; asText says b was scanned as text.
func (w *walker) contentOnce(b []byte, level int, emitting bool) (out []byte, changed, asText bool) {
	w.walked = true
	if level < maxLevels && looksJSON(b) {
		d := doc{data: b, level: level, mode: scan}
		if emitting {
			d.mode, d.out = emit, w.out[level][:0]
		}
		valid := w.document(&d)
		if emitting {
			w.out[level] = d.out
		}
		if valid {
			return d.out, d.changed, false
		}
	}
	if w.r.secrets {
		s, ok := secretsIn(b)
		return bytesOf(s), ok, true
	}
	return nil, false, true
}

// document walks a whole JSON text: one value and nothing after it.
func (w *walker) document(d *doc) bool {
	if !w.value(d) {
		return false
	}
	d.ws()
	return d.pos == len(d.data)
}

func (w *walker) value(d *doc) bool {
	d.ws()
	if d.pos >= len(d.data) {
		return false
	}
	switch d.data[d.pos] {
	case '{':
		return w.object(d)
	case '[':
		return w.array(d)
	case '"':
		return w.stringValue(d, false)
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		return d.number()
	}
}

func (w *walker) object(d *doc) bool {
	if d.depth++; d.depth > maxDepth {
		return false
	}
	d.pos++
	d.put('{')
	if d.ws(); d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.put('}')
		d.depth--
		return true
	}
	for {
		if d.ws(); d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return false
		}
		start := d.pos
		end, esc, ok := scanString(d.data, start)
		if !ok {
			return false
		}
		d.pos = end
		d.putRaw(d.data[start:end])
		if d.ws(); d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return false
		}
		d.pos++
		d.put(':')
		d.ws()

		named, keyed := false, false
		if d.mode != skip {
			key := d.data[start+1 : end-1]
			if esc {
				w.key = unescape(w.key[:0], key)
				key = w.key
			}
			named = w.r.named(key)
			keyed = !named && w.r.secrets && secretKeyed(key) &&
				d.pos < len(d.data) && d.data[d.pos] == '"'
		}
		switch {
		case named:
			ok = w.replaced(d)
		case keyed:
			ok = w.stringValue(d, true)
		default:
			ok = w.value(d)
		}
		if !ok {
			return false
		}

		if d.ws(); d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.put(',')
		case '}':
			d.pos++
			d.put('}')
			d.depth--
			return true
		default:
			return false
		}
	}
}

func (w *walker) array(d *doc) bool {
	if d.depth++; d.depth > maxDepth {
		return false
	}
	d.pos++
	d.put('[')
	if d.ws(); d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.put(']')
		d.depth--
		return true
	}
	for {
		if !w.value(d) {
			return false
		}
		if d.ws(); d.pos >= len(d.data) {
			return false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.put(',')
		case ']':
			d.pos++
			d.put(']')
			d.depth--
			return true
		default:
			return false
		}
	}
}

// quotedPlaceholder is Placeholder as a JSON string.
const quotedPlaceholder = `"` + Placeholder + `"`

// replaced walks a named field's value, which is dropped, and puts
// Placeholder in its place. A value that already is the placeholder is no
// change.
func (w *walker) replaced(d *doc) bool {
	start, m := d.pos, d.mode
	d.mode = skip
	ok := w.value(d)
	d.mode = m
	if !ok {
		return false
	}
	if string(d.data[start:d.pos]) != quotedPlaceholder {
		d.changed = true
	}
	d.putRaw([]byte(quotedPlaceholder))
	return true
}

// stringValue walks a string value: its content is redacted (as JSON if it
// is JSON, else as text). credential says it is the value of a
// secretKeyed field, which is replaced whole when it looks like one.
func (w *walker) stringValue(d *doc, credential bool) bool {
	start := d.pos
	end, esc, ok := scanString(d.data, start)
	if !ok {
		return false
	}
	d.pos = end
	if d.mode == skip {
		return true
	}
	s := d.data[start+1 : end-1]
	if esc {
		w.str[d.level] = unescape(w.str[d.level][:0], s)
		s = w.str[d.level]
	}
	if credential && credentialLike(s) {
		d.changed = true
		d.putRaw([]byte(quotedPlaceholder))
		return true
	}
	if d.level+1 < maxLevels || w.r.secrets {
		if ns, changed := w.content(s, d.level+1, d.mode == emit); changed {
			d.changed = true
			if d.mode == emit {
				// Quoted as artifacts quote strings; ns is only read.
				d.out = converter.AppendJSONString(d.out, unsafe.String(unsafe.SliceData(ns), len(ns)))
			}
			return true
		}
	}
	d.putRaw(d.data[start:end])
	return true
}

func (d *doc) literal(lit string) bool {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(lit)) {
		return false
	}
	d.putRaw(d.data[d.pos : d.pos+len(lit)])
	d.pos += len(lit)
	return true
}

// number checks the JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *doc) number() bool {
	b, i := d.data, d.pos
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return false
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		i = digits(b, i)
	}
	d.putRaw(b[d.pos:i])
	d.pos = i
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func (d *doc) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *doc) put(c byte) {
	if d.mode == emit {
		d.out = append(d.out, c)
	}
}

func (d *doc) putRaw(b []byte) {
	if d.mode == emit {
		d.out = append(d.out, b...)
	}
}

// scanString validates the JSON string that starts with the quote at
// b[pos]. It returns the index just past the closing quote and whether the
// string has escapes (and so must be unescaped before it is read).
func scanString(b []byte, pos int) (end int, esc, ok bool) {
	i := pos + 1
	for {
		i = plainRun(b, i)
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, false, false
				}
				for _, h := range b[i+2 : i+6] {
					if hexVal(h) < 0 {
						return 0, false, false
					}
				}
				i += 6
			default:
				return 0, false, false
			}
		default: // a control character
			return 0, false, false
		}
	}
}

// plainRun returns the index of the first byte at or after i that is a
// quote, a backslash or a control character: the bytes a string scan must
// stop at. It checks eight bytes at a time; strings are most of the bytes
// of GenAI messages.
func plainRun(b []byte, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ (ones * '"')
		s := x ^ (ones * '\\')
		// A byte is flagged when it is zero after the xor (a quote or a
		// backslash) or below 0x20. Borrows run only upward, so the lowest
		// flagged byte is exact.
		if f := (((q - ones) & ^q) | ((s - ones) & ^s) | ((x - ones*0x20) & ^x)) & highs; f != 0 {
			return i + bits.TrailingZeros64(f)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

func hexVal(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

func hex4(b []byte) rune {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}

// unescape appends the content of a validated JSON string (without its
// quotes) to dst, decoding escapes the way encoding/json does: a surrogate
// pair is one rune and a lone surrogate is U+FFFD.
func unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
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
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = utf16.DecodeRune(r, hex4(s[i+2:]))
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
