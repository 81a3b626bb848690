package jsonlex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzJSONSkip holds the Scanner's check (which decides, through
// ValidEmbed's reference, whether an attribute is embedded as JSON, and
// where an embedded value ends) to encoding/json's verdict on valid UTF-8
// input of modest depth.
func FuzzJSONSkip(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2.5e3,-0,true,false,null,"x\u00e9\n"]}`, `[{"a":{}},[[]]]`,
		`{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1]`, `[1}`, `"\ud800"`, `01`, `1.`, `-`, `{"a":"\x01"}`, ` [ 1 , { "b" : [ ] } ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > 200 {
			return
		}
		require.Equal(t, json.Valid(data), Valid(data), "%q", data)
	})
}

// stringSeeds are JSON strings, valid and not, with every escape, pairs
// and lone halves of surrogates, text that is not ASCII and bytes that
// are not UTF-8.
var stringSeeds = []string{
	`""`, `"plain"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u00e9\u65E5"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`,
	`"\ud800\u0041"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`, `"é日本🙂"`, `"\u12"`, `"\u12g4"`, `"\q"`, `"x\`, `"x`,
	"\"\x01\"", "\"\xff\"", "\"\xed\xa0\x80\"", `"` + strings.Repeat("long text ", 8) + `\n` + strings.Repeat("日本語", 9) + `"`,
	`"a" trailing`, `"\\"`, `"\"`,
}

// FuzzStrings holds the string readers to encoding/json on a string that
// opens the data: StrBytes reads what json.Unmarshal reads and fails
// where it fails, StringEnd ends it where StrBytes does, and
// StringEndLoose too (on UTF-8, the one thing it leaves unchecked), with
// Unescape giving back what StrBytes gave.
func FuzzStrings(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			return
		}
		var s Scanner
		s.Reset(data)
		got := string(s.StrBytes())
		loose, escaped := StringEndLoose(data, 0)
		if s.Err != nil {
			require.Equal(t, -1, StringEnd(data, 1), "%q", data)
			if utf8.Valid(data) {
				require.Equal(t, -1, loose, "%q", data)
				var x string
				require.Error(t, json.Unmarshal(data[:bytes.LastIndexByte(data, '"')+1], &x), "%q", data)
			}
			return
		}
		var want string
		require.NoError(t, json.Unmarshal(data[:s.Pos], &want), "%q", data)
		require.Equal(t, want, got, "%q", data)
		require.Equal(t, s.Pos, StringEnd(data, 1), "%q", data)
		require.Equal(t, s.Pos, loose, "%q", data)
		require.Equal(t, bytes.IndexByte(data[:s.Pos], '\\') >= 0, escaped, "%q", data)
		require.Equal(t, want, string(Unescape(nil, data[1:s.Pos-1])), "%q", data)
	})
}

// TestStringEndLoosePassesBytesThrough: what redact needs that the other
// string checks refuse.
func TestStringEndLoosePassesBytesThrough(t *testing.T) {
	for _, s := range []string{"\"\xff\"", "\"\xed\xa0\x80 \\n\"", "\"" + strings.Repeat("\xe6\x97", 20) + "\""} {
		end, _ := StringEndLoose([]byte(s), 0)
		assert.Equal(t, len(s), end, "%q", s)
		assert.Equal(t, -1, StringEnd([]byte(s), 1), "%q", s)
	}
}

// TestScannerErrors: each error says at which byte what is wrong (the
// column is the byte's offset plus one).
func TestScannerErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,}`, `column 8: want a key`},
		{`[1 2]`, `column 4: want ',' or a closing bracket`},
		{`{"a" 1}`, `column 6: want ':'`},
		{`[1}`, `column 3: want ',' or a closing bracket`},
		{`[,1]`, `column 2: want a number`},
		{`-x`, `column 2: want a number`},
		{`1.e5`, `column 3: bad number`},
		{`1e+`, `column 4: bad number`},
		{`tru`, `column 1: bad literal`},
		{`"a\qb"`, `column 3: bad escape \q`},
		{`"a\u12x4"`, `column 3: bad \u escape`},
		{"\"a\x01\"", `column 3: control character in string`},
		{"\"ab\xff\"", `column 4: invalid UTF-8`},
		{`"abc`, `column 5: unterminated string`},
		{`"abc\`, `column 5: unterminated escape`},
		{``, `column 1: unexpected end`},
		{`1 2`, `column 3: unexpected data after the value`},
		{strings.Repeat("[", MaxDepth+1), `column 258: nesting deeper than 256`},
	} {
		var s Scanner
		s.Reset([]byte(tc.in))
		s.SkipValue()
		s.End()
		require.Error(t, s.Err, "%q", tc.in)
		var se *SyntaxError
		require.ErrorAs(t, s.Err, &se)
		assert.Equal(t, tc.want, s.Err.Error(), "%q", tc.in)
	}
}

// TestScannerReads: the typed reads and the raw bytes Skip hands back.
func TestScannerReads(t *testing.T) {
	var s Scanner
	s.Reset([]byte(` {"n": -12, "f": 2.5e1, "b": false, "s": "x\ty", "raw": {"a": [1, "]"]}, "z": null} `))
	require.Equal(t, 6, s.CountMembers())
	require.True(t, s.Open('{'))
	var got []any
	for first := true; s.More(&first, '}'); {
		switch k := string(s.Key()); k {
		case "n":
			got = append(got, s.Int())
		case "f":
			got = append(got, s.Float())
		case "b":
			got = append(got, s.Bool())
		case "s":
			got = append(got, s.Str())
		case "raw":
			got = append(got, string(s.Skip()))
		case "z":
			got = append(got, s.Literal("null"))
		}
	}
	s.End()
	require.NoError(t, s.Err)
	assert.Equal(t, []any{int64(-12), 25.0, false, "x\ty", `{"a": [1, "]"]}`, true}, got)
	assert.Equal(t, 0, s.Depth)
}

// FuzzAppendString holds the string escaper to encoding/json: the output
// is valid JSON and reads back as encoding/json's own encoding of the
// same string does (invalid UTF-8 becomes U+FFFD in both), and the
// Scanner reads it back so too.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" and backslash \\", "tab\tnewline\nreturn\r", "ünïcødé ✓ 日本語 🚀",
		"\u2028line sep\u2029", "\x00\x01\x1f control", "<script>alert(1)</script>", "\xff\xfe bad \xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		require.True(t, json.Valid(got), "%q -> %s", s, got)
		want, err := json.Marshal(s)
		require.NoError(t, err)
		var a, b string
		require.NoError(t, json.Unmarshal(got, &a))
		require.NoError(t, json.Unmarshal(want, &b))
		require.Equal(t, b, a)
		var sc Scanner
		sc.Reset(got)
		require.Equal(t, b, sc.Str())
		require.NoError(t, sc.Err)
	})
}
