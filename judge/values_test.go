package judge

import (
	"encoding/json"
	"strings"
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

// TestFirstDifference pins the phrase audit's and reconcile's argument
// drift findings quote: the first difference, each side named, and how
// many more there are.
func TestFirstDifference(t *testing.T) {
	tests := []struct {
		name     string
		a, b     any
		inA, inB string
		want     string
	}{
		{"same", map[string]any{"x": "a"}, map[string]any{"x": "a"}, "A", "B", ""},
		{"changed", map[string]any{"x": "LIS"}, map[string]any{"x": "OPO"}, "the request", "the call",
			`args.x is "LIS" in the request, "OPO" in the call`},
		{"added", map[string]any{}, map[string]any{"x": "a"}, "B", "A", `args.x is only in A ("a")`},
		{"removed", map[string]any{"x": "a"}, map[string]any{}, "B", "A", `args.x is only in B ("a")`},
		{"more", map[string]any{"x": "a", "y": "b", "z": "c"}, map[string]any{"x": "b", "y": "c", "z": "d"}, "A", "B",
			`args.x is "a" in A, "b" in B, and 2 more difference(s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, firstDifference(tt.a, tt.b, tt.inA, tt.inB))
		})
	}
}

// TestWriteChanges pins how diff and replay reports list changes.
func TestWriteChanges(t *testing.T) {
	changes := []Change{
		{Path: "args.ref", Op: Changed, A: `"e9"`, B: `"e12"`},
		{Path: "args.new", Op: Added, B: "1"},
		{Path: "args.old", Op: Removed, A: "2"},
	}
	var b strings.Builder
	writeChanges(&b, changes, false, 3)
	assert.Equal(t, "  ~ args.ref: \"e9\" -> \"e12\"\n  + args.new: 1\n  - args.old: 2\n", b.String())

	b.Reset()
	writeChanges(&b, changes[:1], true, 7)
	assert.Equal(t, "  ~ args.ref: \"e9\" -> \"e12\"\n  (1 of 7 changes shown)\n", b.String())
}
