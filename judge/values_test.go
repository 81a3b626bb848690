package judge

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestJSONEquality: canonical forms, and so jsonEqual, ignore key order
// and number spelling but nothing else.
func TestJSONEquality(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1.0,2e0],"a":1}`, true},
		{`{"a":1e21}`, `{"a":1000000000000000000000}`, true},
		{`{"a":0.1}`, `{"a":0.10}`, true},
		{`{"a":-0}`, `{"a":0}`, true},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":null}`, `{}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":0.1}`, `{"a":0.1000000000000000055511151231257827}`, false},
		{`{"a":true}`, `{"a":"true"}`, false},
	}
	for _, tt := range tests {
		a, ok := decodeJSON(tt.a)
		require.True(t, ok)
		b, ok := decodeJSON(tt.b)
		require.True(t, ok)
		assert.Equal(t, tt.equal, jsonEqual(a, b), "%s %s", tt.a, tt.b)
	}
}

// TestJSONOf: strings holding a JSON object or array are parsed; other
// strings, and structured values, are taken as they are.
func TestJSONOf(t *testing.T) {
	assert.Equal(t, map[string]any{"a": []any{"x"}}, jsonOf(pcommon.NewValueStr(` {"a":["x"]} `)))
	assert.Equal(t, "plain", jsonOf(pcommon.NewValueStr("plain")))
	assert.Equal(t, "42", jsonOf(pcommon.NewValueStr("42")), "a scalar stays text")
	assert.Equal(t, `{"a":`, jsonOf(pcommon.NewValueStr(`{"a":`)), "invalid JSON stays text")
	assert.Equal(t, `{"a":1} {"b":2}`, jsonOf(pcommon.NewValueStr(`{"a":1} {"b":2}`)), "two values are no JSON")

	v := pcommon.NewValueMap()
	m := v.Map()
	m.PutInt("i", 3)
	m.PutDouble("d", 2.5)
	m.PutStr("s", `{"not":"parsed"}`)
	m.PutEmptyBytes("b").FromRaw([]byte("hi"))
	m.PutEmptySlice("l").AppendEmpty().SetBool(true)
	m.PutEmpty("n")
	assert.Equal(t, map[string]any{"i": json.Number("3"), "d": json.Number("2.5"), "s": `{"not":"parsed"}`,
		"b": "aGk=", "l": []any{true}, "n": nil}, jsonOf(v))
}

func TestShowAndPaths(t *testing.T) {
	assert.Equal(t, `"<a&b>"`, show("<a&b>", 100))
	assert.Equal(t, `"ab…`, show("abcdef", 3))
	assert.Equal(t, `"é…`, show("éé", 4), "cut before a rune that does not fit")
	assert.Equal(t, "x.key_1", joinKey("x", "key_1"))
	assert.Equal(t, "x.content-type", joinKey("x", "content-type"))
	assert.Equal(t, `x["1st"]`, joinKey("x", "1st"))
	assert.Equal(t, `x["a.b"]`, joinKey("x", "a.b"))
	assert.Equal(t, `x[""]`, joinKey("x", ""))
}
