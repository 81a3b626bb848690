package artifact

import (
	"encoding/base64"
	"math"
	"strconv"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// Attribute values in an artifact (attrs, event and link attrs, resource and
// scope attributes) are typed JSON:
//
//	string, bool, int64     as themselves
//	double                  always with '.' or an exponent: 1.0, never 1
//	array, map              as JSON arrays and objects
//	empty value             null
//	bytes                   {"@bytes":"<base64>"}
//	NaN, +Inf, -Inf         {"@double":"NaN"} (and "+Inf", "-Inf")
//	map with one '@' key    {"@map":{...}}, so it is not read as a tag
//
// so every OTLP AnyValue survives OTLP -> JSONL -> OTLP.

const (
	tagBytes  = "@bytes"
	tagDouble = "@double"
	tagMap    = "@map"
)

// appendValue appends v in the typed encoding.
func appendValue(dst []byte, v pcommon.Value) []byte {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return jsonlex.AppendString(dst, v.Str())
	case pcommon.ValueTypeInt:
		return appendInt(dst, v.Int())
	case pcommon.ValueTypeDouble:
		return appendDouble(dst, v.Double())
	case pcommon.ValueTypeBool:
		return strconv.AppendBool(dst, v.Bool())
	case pcommon.ValueTypeBytes:
		dst = append(dst, `{"@bytes":"`...)
		dst = appendBase64(dst, v.Bytes().AsRaw())
		return append(dst, '"', '}')
	case pcommon.ValueTypeSlice:
		sl := v.Slice()
		dst = append(dst, '[')
		for i := range sl.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, sl.At(i))
		}
		return append(dst, ']')
	case pcommon.ValueTypeMap:
		m := v.Map()
		if m.Len() == 1 && oneTagLikeKey(m) {
			dst = append(dst, `{"@map":`...)
			dst = appendMap(dst, m, nil)
			return append(dst, '}')
		}
		return appendMap(dst, m, nil)
	}
	return append(dst, "null"...)
}

// appendMap appends m as an object, leaving out the attributes whose
// 1-based index is in skip (ascending): the ones promoted to record fields.
// An attribute map (attrs, resource, ...) is always a map, so only a map
// that is a value needs the @map wrapper; appendValue adds it.
func appendMap(dst []byte, m pcommon.Map, skip []int32) []byte {
	dst = append(dst, '{')
	i := int32(0)
	first := true
	for k, v := range m.All() {
		i++
		if len(skip) > 0 && skip[0] == i {
			skip = skip[1:]
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = jsonlex.AppendString(dst, k)
		dst = append(dst, ':')
		dst = appendValue(dst, v)
	}
	return append(dst, '}')
}

func oneTagLikeKey(m pcommon.Map) bool {
	for k := range m.All() {
		return len(k) > 0 && k[0] == '@'
	}
	return false
}

// appendJSONValue appends a JSON-valued attribute (tool arguments and
// results, messages, system instructions, tool definitions). A string
// holding a single-line JSON object or array is embedded as it is, so the
// artifact reads naturally and the string comes back byte for byte; any other
// string is written as a string. A structured (map or array) value is
// written in the typed encoding and reported, so the record can mark it.
func appendJSONValue(dst []byte, v pcommon.Value) (out []byte, structured bool) {
	if v.Type() != pcommon.ValueTypeStr {
		return appendValue(dst, v), true
	}
	s := v.Str()
	if bracketed(s) {
		// Copied first, checked in place: the check then reads the bytes
		// from the cache the copy just filled, and a message held
		// elsewhere in memory (some kilobytes a span) is read once, not
		// twice. A text that is not embeddable, which is rare, is taken
		// back and written as a string.
		n := len(dst)
		dst = append(dst, s...)
		if jsonlex.ValidEmbed(dst[n:]) {
			return dst, false
		}
		dst = dst[:n]
	}
	return jsonlex.AppendString(dst, s), false
}

// embeddable reports whether s is a JSON object or array that can stand in
// a line as it is: valid, UTF-8, no newline, no space around it (the raw
// bytes of a value are all a reader can give back).
func embeddable(s string) bool {
	return bracketed(s) && jsonlex.ValidEmbed(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
}

// bracketed reports whether s starts and ends as an object or an array
// does: the quick part of embeddable.
func bracketed(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch s[0] {
	case '{':
		return s[len(s)-1] == '}'
	case '[':
		return s[len(s)-1] == ']'
	}
	return false
}

// value decodes one typed value into dst, which must be empty.
func (d *decoder) value(dst pcommon.Value) {
	s := &d.sc
	switch s.Peek() {
	case '"':
		dst.SetStr(d.str())
	case 't', 'f':
		dst.SetBool(s.Bool())
	case 'n':
		if !s.Literal("null") {
			s.Fail("bad literal")
		}
	case '[':
		if !s.Open('[') {
			return
		}
		sl := dst.SetEmptySlice()
		for first := true; s.More(&first, ']'); {
			d.value(sl.AppendEmpty())
		}
	case '{':
		d.object(dst)
	case 0:
		s.Fail("unexpected end")
	default:
		text, isInt := s.Number()
		if s.Err != nil {
			return
		}
		if isInt {
			n, err := strconv.ParseInt(string(text), 10, 64)
			if err != nil {
				s.Fail("integer %s out of range", text)
				return
			}
			dst.SetInt(n)
			return
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil && !math.IsInf(f, 0) {
			s.Fail("bad number %s", text)
			return
		}
		dst.SetDouble(f)
	}
}

// object decodes a map, or a tagged value when the object is one '@' key.
func (d *decoder) object(dst pcommon.Value) {
	s := &d.sc
	start := s.Pos
	if !s.Open('{') {
		return
	}
	if s.Peek() == '"' && s.Pos+1 < len(s.Data) && s.Data[s.Pos+1] == '@' {
		// A tag is an object of exactly one '@' key; look ahead to tell.
		k := string(s.Key())
		s.SkipValue()
		single := s.Peek() == '}'
		if s.Err != nil {
			return
		}
		if single {
			s.Pos = start + 1
			s.WS()
			s.Key()
			d.tagged(k, dst)
			s.Expect('}')
			s.Depth--
			return
		}
		s.Pos = start
		s.Depth--
		s.Open('{')
	}
	m := dst.SetEmptyMap()
	d.members(m)
}

// members decodes the members of an object whose '{' is consumed into m.
func (d *decoder) members(m pcommon.Map) {
	s := &d.sc
	for first := true; s.More(&first, '}'); {
		k := d.intern(s.Key())
		d.value(m.PutEmpty(k))
	}
}

func (d *decoder) tagged(tag string, dst pcommon.Value) {
	s := &d.sc
	switch tag {
	case tagBytes:
		raw := s.StrBytes()
		if s.Err != nil {
			return
		}
		b, err := base64.StdEncoding.AppendDecode(nil, raw)
		if err != nil {
			s.Fail("bad base64 in @bytes: %v", err)
			return
		}
		dst.SetEmptyBytes().FromRaw(b)
	case tagDouble:
		switch string(s.StrBytes()) {
		case "NaN":
			dst.SetDouble(math.NaN())
		case "+Inf", "Inf":
			dst.SetDouble(math.Inf(1))
		case "-Inf":
			dst.SetDouble(math.Inf(-1))
		default:
			s.Fail("bad @double")
		}
	case tagMap:
		if !s.Open('{') {
			return
		}
		d.members(dst.SetEmptyMap())
	default:
		s.Fail("unknown tag %q", tag)
	}
}
