package jsonlex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
)

// refValidEmbed is ValidEmbed by the Scanner: no newline, then SkipValue
// to the end. It is the reference FuzzValidEmbed holds the fast check to.
func refValidEmbed(b []byte) bool {
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	var sc Scanner
	sc.Reset(b)
	sc.SkipValue()
	return sc.Err == nil && sc.Pos == len(b)
}

var embedSeeds = []string{
	`{}`, `[]`, `{ }`, `[ ]`, "[\t]", `{"a":1}`, `{"a" : 1 , "b" :[ true ,false, null ]}`,
	`{"a":[1,2.5e3,-0,true,false,null,"x\u00e9\n\/\b\f\r\t\"\\"]}`, `[{"a":{}},[[]]]`,
	`{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1]`, `[1}`, `["\ud800"]`, `[01]`, `[1.]`, `[-]`, `[1e]`, `[1e+]`, `[-0.0e-0]`,
	`{"a":"\x01"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\q"}`, `{"a":"x\`, `{"a":"é日本🙂"}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\xe6\x97\"}", "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xc0\xaf\"}",
	"{\"a\":\n1}", "{\"a\":\r1}", `[tru]`, `[nul]`, `[fals]`, `[truex]`, `[true false]`, `{1:2}`, `{"a"}`,
	`{"a":}`, `[,1]`, `[1,,2]`, `{,}`, `{"a":1 "b":2}`, `]`, `[`, `{`, `"x"`, `1`, `true`, `{}}`, `[]]`, `[][]`,
	`{"a":[{"b":[{"c":"d"}]}]}`, " [1] ", "[\x00]", `["a"]x`, `t`, `f`, `n`, `nulls`, `-`, `"`, `{"a":"b" }`,
	`["` + strings.Repeat("long text ", 8) + `\"` + strings.Repeat("more ", 9) + `"]`,
	`["` + strings.Repeat("long text ", 8) + "\x01" + `"]`, `["` + strings.Repeat("long text ", 8) + "\xe6\x97" + `"]`,
	`["` + strings.Repeat("日本語", 12) + `\u0041` + strings.Repeat("x", 40) + `"]`,
}

func TestValidEmbedAgreesWithScanner(t *testing.T) {
	for _, s := range embedSeeds {
		require.Equal(t, refValidEmbed([]byte(s)), ValidEmbed([]byte(s)), "%q", s)
	}
}

func TestValidEmbedVerdicts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`[1,{"a":[true,null,"é"]},-2.5E+3]`, true},
		{"{\"a\":\t1}", true},
		{"{\"a\":\n1}", false},      // a newline would split the line
		{"{\"a\":\"\xff\"}", false}, // not UTF-8
		{`{"a":1,}`, false},
		{`[1]x`, false},
	} {
		require.Equal(t, tc.want, ValidEmbed([]byte(tc.in)), "%q", tc.in)
	}
}

func TestValidEmbedDepth(t *testing.T) {
	for _, n := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closer := "]"
			if open != "[" {
				closer = "}"
			}
			s := strings.Repeat(open, n) + "1" + strings.Repeat(closer, n)
			require.Equal(t, n <= MaxDepth, ValidEmbed([]byte(s)), "depth %d %s", n, open)
			require.Equal(t, refValidEmbed([]byte(s)), ValidEmbed([]byte(s)), "depth %d %s", n, open)
		}
	}
}

// TestValidEmbedEveryByte puts each kind of byte the string check treats
// apart at every position of a text with short and long strings, ASCII
// and not, escapes near and far, and holds ValidEmbed to the Scanner.
func TestValidEmbedEveryByte(t *testing.T) {
	long := strings.Repeat("plain words, ", 6)
	base := `{"k":"` + long + `\n` + long + `\"","u":"` + strings.Repeat("日本語", 12) + `é","e":"\u00e9` + long + `"}`
	require.True(t, ValidEmbed([]byte(base)))
	for p := range len(base) {
		for _, c := range []byte{0x00, '\t', '\n', ' ', '"', '\\', 'u', '0', 'a', 0x7f, 0x80, 0xa9, 0xc3, 0xe6, 0xed, 0xf0, 0xff} {
			b := []byte(base)
			b[p] = c
			require.Equal(t, refValidEmbed(b), ValidEmbed(b), "%q", b)
		}
		b := []byte(base[:p] + base[p+1:]) // and without it
		require.Equal(t, refValidEmbed(b), ValidEmbed(b), "%q", b)
	}
}

// FuzzValidEmbed holds ValidEmbed to the Scanner on any bytes, and to
// encoding/json on valid UTF-8 of modest depth.
func FuzzValidEmbed(f *testing.F) {
	for _, s := range embedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := ValidEmbed(data)
		require.Equal(t, refValidEmbed(data), got, "%q", data)
		if utf8.Valid(data) && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= 200 &&
			!bytes.ContainsAny(data, "\n\r") && len(bytes.TrimRight(data, " \t")) == len(data) {
			// (The value must end the text: the Scanner leaves trailing
			// spaces to its caller, encoding/json allows them.)
			require.Equal(t, json.Valid(data), got, "%q", data)
		}
	})
}

// embedShapes are JSON-valued attributes as GenAI spans carry them: long
// message text, many short strings (tool arguments), text full of escapes
// (model output with newlines and quotes), text that is not ASCII.
func embedShapes() map[string]string {
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10)
	return map[string]string{
		"messages": `[{"role":"user","parts":[{"type":"text","content":"Plan a 5-day trip to Lisbon. ` + para + `"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"search_flights","arguments":{"origin":"BER","destination":"LIS","depart_date":"2026-03-14"}}]}]`,
		"args":     `{"origin":"BER","destination":"LIS","depart_date":"2026-03-14","passengers":2,"cabin":"economy","flex":true,"max_stops":1,"carriers":["TP","FR","LH"],"budget":{"amount":2000,"currency":"EUR"}}`,
		"escapes":  `[{"role":"assistant","content":"` + strings.Repeat(`Day 1:\n- Belém \"tower\" at 9:00\n- lunch\t(pastéis)\n`, 20) + `"}]`,
		"unicode":  `[{"role":"user","content":"` + strings.Repeat("里斯本三月天气温和——带上雨衣。", 30) + `"}]`,
	}
}

// BenchmarkEmbeddable: ValidEmbed against the Scanner it replaced on the
// encoder's path, per shape of attribute.
func BenchmarkEmbeddable(b *testing.B) {
	for name, s := range embedShapes() {
		require.True(b, refValidEmbed([]byte(s)), name)
		for _, impl := range []struct {
			name string
			f    func([]byte) bool
		}{{"scanner", refValidEmbed}, {"validEmbed", ValidEmbed}} {
			b.Run("shape="+name+"/impl="+impl.name, func(b *testing.B) {
				d := []byte(s)
				b.SetBytes(int64(len(d)))
				cpu := benchcpu.Now()
				for b.Loop() {
					if !impl.f(d) {
						b.Fatal("not embeddable")
					}
				}
				benchcpu.Report(b, cpu)
			})
		}
	}
}
