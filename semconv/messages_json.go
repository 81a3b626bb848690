package semconv

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unsafe"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// Messages are written by hand: the page writes every record's
// conversation, and encoding/json's reflection, plus its check of every
// MarshalJSON result, cost as much as the rest of the page
// (docs/benchmarks.md, "A run of 100,000 records").

// AppendJSON appends the part as MarshalJSON writes it: in the
// conventions' shape, type first, the members its type requires always,
// the others only when set.
func (p Part) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonlex.AppendString(b, p.Type)
	member := func(name string, v any) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b = appendJSON(b, v)
	}
	str := func(name, v string) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b = jsonlex.AppendString(b, v)
	}
	switch p.Type {
	case PartText, PartReasoning:
		str("content", p.Content)
	case PartToolCall:
		str("id", p.ID)
		str("name", p.Name)
		if p.Arguments != nil {
			member("arguments", p.Arguments)
		}
	case PartToolResponse:
		str("id", p.ID)
		member("response", p.Response)
	case PartBlob:
		str("modality", p.Modality)
		if p.MimeType != "" {
			str("mime_type", p.MimeType)
		}
		str("content", p.Content)
	case PartURI:
		str("modality", p.Modality)
		if p.MimeType != "" {
			str("mime_type", p.MimeType)
		}
		str("uri", p.URI)
	default:
		if p.Content != "" {
			str("content", p.Content)
		}
	}
	return append(b, '}')
}

// MarshalJSON writes the part as AppendJSON does.
func (p Part) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil), nil }

// appendJSON appends v as JSON, without escaping HTML characters; a value
// that cannot be written (a NaN inside decoded content) is written as null.
// Decoded JSON (what maybeJSON returns) is written by appendValue; any
// other value (a structured attribute's floats, bytes) by encoding/json.
func appendJSON(b []byte, v any) []byte {
	if out, ok := appendValue(b, v); ok {
		return out
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// appendValue appends v, plain data as decoded JSON holds it (string,
// json.Number, bool, nil, int64, map[string]any with its keys sorted as
// encoding/json sorts them, []any), as encoding/json writes it; false
// when v holds anything else (what it appended up to there is the
// caller's to drop).
func appendValue(b []byte, v any) ([]byte, bool) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return jsonlex.AppendString(b, t), true
	case json.Number:
		if s := string(t); s != "" && jsonlex.NumberEnd([]byte(s), 0) == len(s) {
			return append(b, s...), true
		}
		return b, false
	case bool:
		return strconv.AppendBool(b, t), true
	case int64:
		return strconv.AppendInt(b, t, 10), true
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonlex.AppendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendValue(b, t[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// decodeJSON decodes t, one JSON value and nothing else, into plain data
// as encoding/json decodes into an any with UseNumber (map[string]any,
// []any, string, json.Number, bool, nil), with the one JSON lexer
// (internal/jsonlex), several times faster: content attributes hold a
// run's largest texts, and every reader of a conversation decodes them.
// Strings without escapes are substrings of t, not copies: the
// conversation of a record holds its text once, in the span. It reports
// false for anything the lexer does not take: text that is no JSON, a
// string that is not UTF-8 (encoding/json would replace its bytes), or
// nesting past jsonlex.MaxDepth; maybeJSON then asks encoding/json.
func decodeJSON(t string) (any, bool) {
	var sc jsonlex.Scanner
	sc.Reset(unsafe.Slice(unsafe.StringData(t), len(t))) // read only: the scanner never writes its data
	v := decodeValue(&sc, t)
	sc.End()
	return v, sc.Err == nil
}

// decodeValue decodes the value at sc's position; t is sc's data as a
// string, for substrings.
func decodeValue(sc *jsonlex.Scanner, t string) any {
	switch sc.Peek() {
	case '{':
		m := map[string]any{}
		if !sc.Open('{') {
			return nil
		}
		for first := true; sc.More(&first, '}'); {
			k := decodeString(sc, t)
			sc.Expect(':')
			m[k] = decodeValue(sc, t)
		}
		return m
	case '[':
		l := []any{}
		if !sc.Open('[') {
			return nil
		}
		for first := true; sc.More(&first, ']'); {
			l = append(l, decodeValue(sc, t))
		}
		return l
	case '"':
		return decodeString(sc, t)
	case 't', 'f':
		return sc.Bool()
	case 'n':
		if !sc.Literal("null") {
			sc.Fail("bad literal")
		}
		return nil
	}
	start := sc.Pos
	sc.Number()
	return json.Number(t[start:sc.Pos])
}

// decodeString reads a string at sc's position: a substring of t when
// it has no escapes (its text is then the same), else a copy.
func decodeString(sc *jsonlex.Scanner, t string) string {
	sc.WS()
	quote := sc.Pos
	b := sc.StrBytes()
	if sc.Err != nil {
		return ""
	}
	if raw := sc.Pos - quote - 2; len(b) == raw {
		// Every escape is longer than what it stands for: the same
		// length means no escape.
		return t[quote+1 : sc.Pos-1]
	}
	return string(b)
}
