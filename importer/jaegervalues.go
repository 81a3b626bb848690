package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// jaegerTraceID reads a hex trace id, 64-bit ids left-padded to 128.
func jaegerTraceID(s string) (id pcommon.TraceID, err error) {
	err = hexID(id[:], s)
	return id, err
}

func jaegerSpanID(s string) (id pcommon.SpanID, err error) {
	err = hexID(id[:], s)
	return id, err
}

// hexID decodes hex s right-aligned into dst (Jaeger drops leading zeros);
// an id of all zeros, which OTLP reads as none, is an error.
func hexID(dst []byte, s string) error {
	if s == "" {
		return errors.New("missing")
	}
	if len(s) > 2*len(dst) {
		return fmt.Errorf("%q is longer than %d hex digits", s, 2*len(dst))
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("%q is not hex", s)
	}
	copy(dst[len(dst)-len(b):], b)
	if allZero(dst) {
		return errors.New("all zeros")
	}
	return nil
}

// micros reads a Jaeger time or duration in microseconds as nanoseconds.
func micros(n json.Number) (uint64, error) {
	if n == "" {
		return 0, nil
	}
	u, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(n.String(), 64)
		if ferr != nil || f < 0 || f >= math.MaxUint64/1000 {
			return 0, fmt.Errorf("%q is not a number of microseconds", n)
		}
		return uint64(f * 1000), nil
	}
	if u > math.MaxUint64/1000 {
		return 0, fmt.Errorf("%d µs is out of range", u)
	}
	return u * 1000, nil
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

// jaegerStr returns a tag's value when it is a string.
func jaegerStr(kv jaegerKV) (string, bool) {
	if kv.Type != "" && !strings.EqualFold(kv.Type, "string") {
		return "", false
	}
	var s string
	if json.Unmarshal(kv.Value, &s) != nil {
		return "", false
	}
	return s, true
}

// putJaegerKV puts a typed Jaeger tag into m. A value that does not match
// its type is kept as its JSON text and reported.
func putJaegerKV(m pcommon.Map, kv jaegerKV) error {
	raw := bytes.TrimSpace(kv.Value)
	text := string(raw)
	var str string
	isStr := json.Unmarshal(raw, &str) == nil
	if isStr {
		text = str
	}
	var err error
	switch strings.ToLower(kv.Type) {
	case "string":
		if isStr {
			m.PutStr(kv.Key, str)
			return nil
		}
		err = errors.New("string tag with a value that is not a string")
	case "bool":
		if b, ok := lenientBool(raw); ok {
			m.PutBool(kv.Key, b)
			return nil
		}
		err = fmt.Errorf("bool tag with value %s", raw)
	case "int64":
		if n, perr := strconv.ParseInt(text, 10, 64); perr == nil {
			m.PutInt(kv.Key, n)
			return nil
		}
		err = fmt.Errorf("int64 tag with value %s", raw)
	case "float64":
		if f, perr := strconv.ParseFloat(text, 64); perr == nil {
			m.PutDouble(kv.Key, f)
			return nil
		}
		err = fmt.Errorf("float64 tag with value %s", raw)
	case "binary":
		if isStr {
			if b, derr := base64.StdEncoding.DecodeString(str); derr == nil {
				m.PutEmptyBytes(kv.Key).FromRaw(b)
				return nil
			}
			if b, derr := hex.DecodeString(str); derr == nil {
				m.PutEmptyBytes(kv.Key).FromRaw(b)
				return nil
			}
		}
		err = fmt.Errorf("binary tag with value %s: want base64", raw)
	case "":
		putJSONValue(m, kv.Key, raw)
		return nil
	default:
		err = fmt.Errorf("unknown tag type %q", kv.Type)
	}
	m.PutStr(kv.Key, text)
	return err
}

// walkObject calls fn with each member of the JSON object raw (at offset
// off of the document) and the member value's offset. A syntax error is
// reported through bad and ends the walk.
func walkObject(raw []byte, off int, fn func(key string, v []byte, voff int) error, bad func(int, error)) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		bad(off, err)
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			bad(off+int(dec.InputOffset()), err)
			return nil
		}
		key, _ := tok.(string)
		voff := jsonValueStart(raw, int(dec.InputOffset()))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			bad(off+voff, err)
			return nil
		}
		if err := fn(key, v, off+voff); err != nil {
			return err
		}
	}
	return nil
}

// walkArray calls fn with each element of the JSON array raw.
func walkArray(raw []byte, off int, fn func(v []byte, voff int) error, bad func(int, error)) error {
	if firstByte(raw) != '[' {
		bad(off, errors.New("want an array"))
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		bad(off, err)
		return nil
	}
	for dec.More() {
		voff := jsonValueStart(raw, int(dec.InputOffset()))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			bad(off+voff, err)
			return nil
		}
		if err := fn(v, off+voff); err != nil {
			return err
		}
	}
	return nil
}
