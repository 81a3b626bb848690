package redact

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// keywordTexts are texts for the differential tests: prose, JSON, the
// near misses, every keyword of the rules in several cases and at every
// offset against the stream borders of a long text.
func keywordTexts(tb testing.TB) []string {
	tb.Helper()
	texts := append([]string{"", "a", "ey", "EY", "s.", "q~", "\u017f", "\u212a", "-----BEGIN ",
		`\u`, `\U`, `\/`, `a\"b`, `{"a":"\u0073k-x"}`, `x\`, `\\/`}, nearMisses...)
	texts = append(texts, patternKeywordSeeds...)
	base := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers. ", 12)
	for i, k := range loadRules().keywords {
		for _, v := range []string{k, strings.ToUpper(k), strings.ToUpper(k[:1]) + k[1:]} {
			texts = append(texts, v, "x"+v+"x", v[:len(v)-1])
			at := (i * 7) % len(base)
			texts = append(texts, base[:at]+v+base[at:])
		}
	}
	// Every offset of one long and one short keyword across a text four
	// streams read.
	for _, k := range []string{"ey", "sk-ant-api03", "github_pat_", "authorization"} {
		for at := 0; at <= len(base); at += 5 {
			texts = append(texts, base[:at]+k+base[at:])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "abcdefghijklmnopqrstuvwxyzEYSKAIZ0123456789_-.:/~ \"{}\\\xc5\xbf\xe2\x84\xaa"
	for range 2000 {
		n := rng.IntN(600)
		var sb strings.Builder
		for range n {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, sb.String())
	}
	return texts
}

// TestKeywordDFAReference: the prefix automaton finds what the
// whole-keyword automaton it replaced finds (keyword_ref_test.go), the
// same occurrences in the same order, over the embedded rules' keywords.
func TestKeywordDFAReference(t *testing.T) {
	rs := loadRules()
	ref := refDFA()
	for _, s := range keywordTexts(t) {
		checkKeywordDFA(t, rs, ref, s)
	}
}

// FuzzKeywordDFAReference is TestKeywordDFAReference for any text.
func FuzzKeywordDFAReference(f *testing.F) {
	for _, s := range keywordTexts(f)[:200] {
		f.Add(s)
	}
	rs := loadRules()
	ref := refDFA()
	f.Fuzz(func(t *testing.T, s string) {
		checkKeywordDFA(t, rs, ref, s)
	})
}

// refQuick is walker.quick's test as it was: the keyword automaton, and
// searches for the escapes that could hide a keyword.
func refQuick(rs *ruleSet, ref *refKeywordDFA, b []byte) bool {
	if bytes.IndexByte(b, '\\') >= 0 {
		if rs.kwEscaped || bytes.Contains(b, []byte(`\u`)) || rs.kwSlash && bytes.Contains(b, []byte(`\/`)) {
			return false
		}
	}
	return !ref.any(b)
}

func checkKeywordDFA(t *testing.T, rs *ruleSet, ref *refKeywordDFA, s string) {
	t.Helper()
	b := []byte(s)
	// The quick check: the escapes it looks for are keywords of its
	// automaton now, which match \U too (the old check was exact case).
	wantQuick, gotQuick := refQuick(rs, ref, b), !rs.quick.any(b)
	if bytes.Contains(b, []byte(`\U`)) {
		require.False(t, gotQuick && !wantQuick, "quick %q", s)
	} else {
		require.Equal(t, wantQuick, gotQuick, "quick %q", s)
	}
	want := refHits(ref, rs.keywords, b)
	require.Equal(t, ref.any(b), rs.dfa.any(b), "any %q", s)
	require.Equal(t, len(want) > 0, rs.dfa.any(b), "any %q", s)
	got := rs.dfa.hits(b, nil)
	if len(want) == 0 {
		require.Empty(t, got, "hits %q", s)
		return
	}
	require.Equal(t, want, got, "hits %q", s)
}

// BenchmarkKeywordScan compares the keyword automaton with the one it
// replaced on clean text, the common case, of the lengths attribute values
// have.
func BenchmarkKeywordScan(b *testing.B) {
	rs := loadRules()
	ref := refDFA()
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 40)
	for _, n := range []int{40, 200, 800, 3200} {
		in := []byte(para[:n])
		if rs.dfa.any(in) || ref.any(in) {
			b.Fatal("not clean")
		}
		b.Run("new/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			loop(b, func() { rs.dfa.any(in) })
		})
		b.Run("ref/"+itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			loop(b, func() { ref.any(in) })
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestRuleMaskNext: next visits the members of a set in order, as a scan
// of every index with has does.
func TestRuleMaskNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var m ruleMask
		for range rng.IntN(12) {
			i := rng.IntN(maxRules)
			m[i/64] |= 1 << (i % 64)
		}
		var want, got []int
		for i := range maxRules {
			if m.has(i) {
				want = append(want, i)
			}
		}
		for i := m.next(0); i >= 0; i = m.next(i + 1) {
			got = append(got, i)
		}
		require.Equal(t, want, got)
	}
}
