package redact

import (
	"math"
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestShortest: a Redactor lets through unscanned only what is shorter
// than both the shortest secret and the shortest named key.
func TestShortest(t *testing.T) {
	for _, c := range []struct {
		name    string
		keys    []string
		secrets bool
		want    int
	}{
		{"secrets", nil, true, minSecretLen},
		{"secrets and long keys", []string{"password", "api_key"}, true, len("api_key")},
		{"secrets and a short key", []string{"pw", "password"}, true, 2},
		{"keys", []string{"password"}, false, len("password")},
		// The long s folds into s: a text can spell the key in one byte.
		{"key outside ASCII", []string{"\u017fecret"}, false, len("secret")},
		{"empty keys skipped", []string{"", "token"}, false, len("token")},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, New(c.keys, c.secrets).shortest)
		})
	}
}

// TestShortestRedacts: the shortest strings that can change still do, as
// the value of an attribute and inside a slice.
func TestShortestRedacts(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		in   string
	}{
		{"url credentials", nil, "a0://:p@h"},
		{"one-letter key", []string{"k"}, `{"k":1}`},
		{"key spelled outside ASCII", []string{"sk"}, `{"\u017fk":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New(c.keys, true)
			m := pcommon.NewMap()
			m.PutStr("gen_ai.tool.call.result", c.in)
			m.PutEmptySlice("list").AppendEmpty().SetStr(c.in)
			require.True(t, r.Map(m))
			v, _ := m.Get("gen_ai.tool.call.result")
			assert.NotEqual(t, c.in, v.Str())
			l, _ := m.Get("list")
			assert.NotEqual(t, c.in, l.Slice().At(0).Str())
		})
	}
}

// TestMinSecretLen: no pattern or rule matches fewer than minSecretLen
// bytes, by the expressions themselves (each rune at least one byte), so
// that the scan and Redactor.shortest can let shorter strings through.
func TestMinSecretLen(t *testing.T) {
	shortest, by := math.MaxInt, ""
	check := func(id, expr string) {
		re, err := syntax.Parse(expr, syntax.Perl)
		require.NoError(t, err, id)
		if n := minMatch(t, re); n < shortest {
			shortest, by = n, id
		}
	}
	for _, p := range patterns {
		check(p.name, p.expr)
	}
	for _, r := range loadRules().rules {
		check(r.id, r.expr)
	}
	t.Logf("shortest match: %d bytes (%s)", shortest, by)
	assert.GreaterOrEqual(t, shortest, minSecretLen, "rule %s", by)
}

// minMatch returns a lower bound of the length in bytes of re's matches.
func minMatch(t *testing.T, re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpNoMatch:
		return math.MaxInt / 2
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpStar, syntax.OpQuest:
		return 0
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minMatch(t, re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minMatch(t, re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minMatch(t, s)
		}
		return n
	case syntax.OpAlternate:
		n := math.MaxInt / 2
		for _, s := range re.Sub {
			n = min(n, minMatch(t, s))
		}
		return n
	}
	t.Fatalf("op %v in %s", re.Op, re)
	return 0
}

// FuzzShortest: a string shorter than Redactor.shortest comes out of the
// whole walk (JSON, named keys, every pattern and rule) unchanged, so
// letting it through unscanned loses nothing.
func FuzzShortest(f *testing.F) {
	for _, s := range []string{"a0://:p@", `{"pw":1}`, `{"k":1}`, "token:ab", "sk-", `{"\u017fk":1}`, "password"} {
		f.Add(s)
	}
	rs := []*Redactor{
		New(nil, true),
		New([]string{"password", "api_key"}, true),
		New([]string{"pw"}, true),
		New([]string{"sk", "k"}, false),
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range rs {
			if len(s) >= r.shortest {
				continue
			}
			w := r.get()
			out, changed := w.walkText(s)
			r.put(w)
			if changed || out != s {
				t.Fatalf("keys %v: %q is shorter than %d bytes but came out %q", r.keys, s, r.shortest, out)
			}
		}
	})
}
