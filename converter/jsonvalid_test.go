package converter

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
)

// refEmbeddable is embeddable as it was before validEmbed: two newline
// searches, then the scanner's skipValue. It is the reference
// FuzzValidEmbed holds the fast check to.
func refEmbeddable(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch s[0] {
	case '{':
		if s[len(s)-1] != '}' {
			return false
		}
	case '[':
		if s[len(s)-1] != ']' {
			return false
		}
	default:
		return false
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	var sc scanner
	sc.reset(b)
	sc.skipValue()
	return sc.err == nil && sc.pos == len(b)
}

// refValidEmbed is the reference for validEmbed on any text, not only one
// that starts with a bracket.
func refValidEmbed(b []byte) bool {
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	var sc scanner
	sc.reset(b)
	sc.skipValue()
	return sc.err == nil && sc.pos == len(b)
}

var embedSeeds = []string{
	`{}`, `[]`, `{ }`, `[ ]`, "[\t]", `{"a":1}`, `{"a" : 1 , "b" :[ true ,false, null ]}`,
	`{"a":[1,2.5e3,-0,true,false,null,"x\u00e9\n\/\b\f\r\t\"\\"]}`, `[{"a":{}},[[]]]`,
	`{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1]`, `[1}`, `["\ud800"]`, `[01]`, `[1.]`, `[-]`, `[1e]`, `[1e+]`, `[-0.0e-0]`,
	`{"a":"\x01"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\q"}`, `{"a":"x\`, `{"a":"é日本🙂"}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\xe6\x97\"}", "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xc0\xaf\"}",
	"{\"a\":\n1}", "{\"a\":\r1}", `[tru]`, `[nul]`, `[fals]`, `[truex]`, `[true false]`, `{1:2}`, `{"a"}`,
	`{"a":}`, `[,1]`, `[1,,2]`, `{,}`, `{"a":1 "b":2}`, `]`, `[`, `{`, `"x"`, `1`, `true`, `{}}`, `[]]`, `[][]`,
	`{"a":[{"b":[{"c":"d"}]}]}`, " [1] ", "[\x00]", `["a"]x`,
	`["` + strings.Repeat("long text ", 8) + `\"` + strings.Repeat("more ", 9) + `"]`,
	`["` + strings.Repeat("long text ", 8) + "\x01" + `"]`, `["` + strings.Repeat("long text ", 8) + "\xe6\x97" + `"]`,
	`["` + strings.Repeat("日本語", 12) + `\u0041` + strings.Repeat("x", 40) + `"]`,
}

func TestValidEmbedAgreesWithScanner(t *testing.T) {
	for _, s := range embedSeeds {
		require.Equal(t, refValidEmbed([]byte(s)), validEmbed([]byte(s)), "%q", s)
		require.Equal(t, refEmbeddable(s), embeddable(s), "%q", s)
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
		require.Equal(t, tc.want, validEmbed([]byte(tc.in)), "%q", tc.in)
	}
}

func TestValidEmbedDepth(t *testing.T) {
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closer := "]"
			if open != "[" {
				closer = "}"
			}
			s := strings.Repeat(open, n) + "1" + strings.Repeat(closer, n)
			require.Equal(t, n <= maxDepth, validEmbed([]byte(s)), "depth %d %s", n, open)
			require.Equal(t, refValidEmbed([]byte(s)), validEmbed([]byte(s)), "depth %d %s", n, open)
		}
	}
}

// TestValidEmbedEveryByte puts each kind of byte the string check treats
// apart at every position of a text with short and long strings, ASCII
// and not, escapes near and far, and holds validEmbed to the scanner.
func TestValidEmbedEveryByte(t *testing.T) {
	long := strings.Repeat("plain words, ", 6)
	base := `{"k":"` + long + `\n` + long + `\"","u":"` + strings.Repeat("日本語", 12) + `é","e":"\u00e9` + long + `"}`
	require.True(t, validEmbed([]byte(base)))
	for p := range len(base) {
		for _, c := range []byte{0x00, '\t', '\n', ' ', '"', '\\', 'u', '0', 'a', 0x7f, 0x80, 0xa9, 0xc3, 0xe6, 0xed, 0xf0, 0xff} {
			b := []byte(base)
			b[p] = c
			require.Equal(t, refValidEmbed(b), validEmbed(b), "%q", b)
		}
		b := []byte(base[:p] + base[p+1:]) // and without it
		require.Equal(t, refValidEmbed(b), validEmbed(b), "%q", b)
	}
}

// FuzzValidEmbed holds validEmbed and embeddable to the scanner they
// replace on any bytes, and to encoding/json on valid UTF-8 of modest depth.
func FuzzValidEmbed(f *testing.F) {
	for _, s := range embedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := validEmbed(data)
		require.Equal(t, refValidEmbed(data), got, "%q", data)
		require.Equal(t, refEmbeddable(string(data)), embeddable(string(data)), "%q", data)
		if utf8.Valid(data) && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= 200 &&
			!bytes.ContainsAny(data, "\n\r") && len(bytes.TrimRight(data, " \t")) == len(data) {
			// (The value must end the text: the scanner leaves trailing
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

func BenchmarkEmbeddable(b *testing.B) {
	for name, s := range embedShapes() {
		require.True(b, refEmbeddable(s), name)
		for _, impl := range []struct {
			name string
			f    func(string) bool
		}{{"scanner", refEmbeddable}, {"validEmbed", embeddable}} {
			b.Run("shape="+name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				cpu := benchcpu.Now()
				for b.Loop() {
					if !impl.f(s) {
						b.Fatal("not embeddable")
					}
				}
				benchcpu.Report(b, cpu)
			})
		}
	}
}

// refPlainRun is plainRun as it was before it looked at two words a
// time with exact per-byte flags: the reference TestPlainRunAgrees holds
// it to.
func refPlainRun(d []byte, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		q := x ^ (ones * '"')
		b := x ^ (ones * '\\')
		if special := (((q - ones) & ^q) | ((b - ones) & ^b) | ((x - ones*0x20) & ^x) | x) & highs; special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// TestPlainRunAgrees tries every byte value at every position of texts
// of every length up to 40, from every start, and two special bytes in a
// row (a borrow from one must not hide or invent the other).
func TestPlainRunAgrees(t *testing.T) {
	for n := range 41 {
		for p := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[p] = byte(c)
				for i := 0; i <= n; i++ {
					if want, got := refPlainRun(b, i), plainRun(b, i); got != want { // (require is slow in this loop)
						require.Equal(t, want, got, "%q from %d", b, i)
					}
				}
				if p+1 < n {
					for _, c2 := range []byte{0, '"', '\\', 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff} {
						b[p+1] = c2
						if want, got := refPlainRun(b, 0), plainRun(b, 0); got != want {
							require.Equal(t, want, got, "%q", b)
						}
					}
				}
			}
		}
	}
}

// FuzzPlainRun holds plainRun to the reference on any bytes.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`plain text, then a "quote"`), 0)
	f.Add([]byte("\x00\x1f\x20\x7f\x80\xff\\\""), 3)
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		require.Equal(t, refPlainRun(b, i), plainRun(b, i), "%q from %d", b, i)
	})
}

func BenchmarkPlainRun(b *testing.B) {
	text := []byte(strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10) + `"`)
	for _, impl := range []struct {
		name string
		f    func([]byte, int) int
	}{{"reference", refPlainRun}, {"plainRun", plainRun}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu := benchcpu.Now()
			for b.Loop() {
				if impl.f(text, 0) != len(text)-1 {
					b.Fatal("wrong end")
				}
			}
			benchcpu.Report(b, cpu)
		})
	}
}
