package redact

import (
	"bytes"
	"unsafe"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
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
		end, esc := jsonlex.StringEndLoose(d.data, start)
		if end < 0 {
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
				w.key = jsonlex.Unescape(w.key[:0], key)
				key = w.key
			}
			named = w.r.named(key)
			keyed = !named && w.r.secrets && secretKeyed(key) &&
				d.pos < len(d.data) && d.data[d.pos] == '"'
		}
		var ok bool
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
	end, esc := jsonlex.StringEndLoose(d.data, start)
	if end < 0 {
		return false
	}
	d.pos = end
	if d.mode == skip {
		return true
	}
	s := d.data[start+1 : end-1]
	if esc {
		w.str[d.level] = jsonlex.Unescape(w.str[d.level][:0], s)
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
				d.out = jsonlex.AppendString(d.out, unsafe.String(unsafe.SliceData(ns), len(ns)))
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

// number consumes the number ahead.
func (d *doc) number() bool {
	end := jsonlex.NumberEnd(d.data, d.pos)
	if end < 0 {
		return false
	}
	d.putRaw(d.data[d.pos:end])
	d.pos = end
	return true
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
