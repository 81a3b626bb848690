package semconv

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// refMaybeJSON is maybeJSON as encoding/json alone decides it: the
// reference decodeJSON is held to.
func refMaybeJSON(s string) any {
	t := strings.TrimSpace(s)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return s
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil || d.More() {
		return s
	}
	return out
}

// depth is the deepest bracket nesting of s, counting brackets in
// strings too (an upper bound).
func depth(s string) int {
	n, top := 0, 0
	for _, c := range []byte(s) {
		switch c {
		case '{', '[':
			n++
			top = max(top, n)
		case '}', ']':
			n--
		}
	}
	return top
}

// checkDecode: maybeJSON's result is encoding/json's, and decodeJSON
// takes every valid document within its depth, UTF-8 strings only.
func checkDecode(t *testing.T, s string) {
	assert.Equal(t, refMaybeJSON(s), maybeJSON(s), "%q", s)
	got, ok := decodeJSON(s)
	if json.Valid([]byte(s)) && utf8.ValidString(s) && depth(s) <= jsonlex.MaxDepth {
		require.True(t, ok, "decodeJSON refused valid %q", s)
	}
	if ok {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var want any
		require.NoError(t, d.Decode(&want), "decodeJSON took %q", s)
		assert.Equal(t, want, got, "%q", s)
	}
}

var decodeCases = []string{
	`{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e3}}`,
	`[{"role":"user","parts":[{"type":"text","content":"hi \"there\"\n\u00e9\ud83d\ude00\ud800 \/"}]}]`,
	`  [ 1 , 2 ]  `,
	`{}`, `[]`, `{"a":{}, "b":[]}`,
	`{"a":1,"a":2}`,
	`{"é":"ü","k\u0041":"v"}`,
	`[1]]`, `{"a":1}}`, `[1] [2]`,
	`{'a': 1}`, `[1,]`, `{"a"}`, `[01]`, `[1.]`, `["\x"]`, "[\"a\x01\"]",
	"[\"\xff\"]", "{\"\xfe\":1}",
	strings.Repeat("[", 300) + strings.Repeat("]", 300),
	strings.Repeat("[", 256) + strings.Repeat("]", 256),
	`[1e400, -0, 12345678901234567890]`,
	`plain text`, `{`, `"just a string"`, `[nul]`, `[tru]`,
}

func TestDecodeJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range decodeCases {
		checkDecode(t, s)
	}
}

// TestDecodeJSONSharesText: a string without escapes is the document's
// own text, not a copy (a run's conversations hold their text once).
func TestDecodeJSONSharesText(t *testing.T) {
	doc := `[{"role":"user","content":"` + strings.Repeat("long text ", 100) + `"}]`
	allocs := testing.AllocsPerRun(10, func() { maybeJSON(doc) })
	v, ok := decodeJSON(doc)
	require.True(t, ok)
	content := v.([]any)[0].(map[string]any)["content"].(string)
	require.Len(t, content, 1000)
	assert.Less(t, allocs, 8.0, "the map, the list and their growth; no copy of the text")
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range decodeCases {
		f.Add(s)
	}
	f.Fuzz(checkDecode)
}

func decodeRef(t *testing.T, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// checkAppend: appendJSON writes what encoding/json writes, value for
// value, for any decoded document.
func checkAppend(t *testing.T, s string) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return
	}
	want, err := json.Marshal(v)
	require.NoError(t, err)
	got := appendJSON([]byte("x"), v)
	require.Equal(t, byte('x'), got[0])
	got = got[1:]
	require.True(t, json.Valid(got), "%s", got)
	assert.Equal(t, decodeRef(t, want), decodeRef(t, got))
	// And byte for byte but the escapes each writer picks.
	norm := func(b []byte) []byte {
		for _, r := range [][2]string{{`\u0026`, "&"}, {`\u003c`, "<"}, {`\u003e`, ">"}, {`\b`, `\u0008`}, {`\f`, `\u000c`}} {
			b = bytes.ReplaceAll(b, []byte(r[0]), []byte(r[1]))
		}
		return b
	}
	if !bytes.Contains(want, []byte(`\\`)) {
		assert.Equal(t, string(norm(want)), string(norm(got)))
	}
}

func TestAppendJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range decodeCases {
		checkAppend(t, s)
	}
	// Values no decoder makes go to encoding/json.
	assert.Equal(t, `[1.5,"AQI="]`, string(appendJSON(nil, []any{1.5, []byte{1, 2}})))
	assert.Equal(t, `null`, string(appendJSON(nil, []any{json.Number("1x")})), "an invalid number fails encoding/json too")
}

func FuzzAppendJSON(f *testing.F) {
	for _, s := range decodeCases {
		f.Add(s)
	}
	f.Fuzz(checkAppend)
}
