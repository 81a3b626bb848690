package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// patternKeywordSeeds are texts each pattern matches, spelled every way
// its expression allows: upper and lower case, and the Kelvin sign and
// long s that (?i) folds into k and s.
var patternKeywordSeeds = []string{
	"use " + fakeOpenAI + " now",
	fakeAWS + " " + fakeAWSTemp,
	fakeGitHub + " " + fakeGitHubS,
	fakeGitHubPAT,
	fakeSlack,
	"Authorization: BEARER " + fakeBearerTok,
	fakePEM,
	fakeGoogle,
	"PASSWORD=" + fakePassword,
	"api-Key: " + fakePassword,
	"to\u212aen=" + fakePassword,
	"pa\u017f\u017fword: " + fakePassword,
	"Account_Key='" + fakePassword + "'",
}

// TestPatternKeywords: every text a hand-written pattern matches holds one
// of patternKeywords, so the keyword automaton's one pass may reject a
// string for the patterns as well as for the rules.
func TestPatternKeywords(t *testing.T) {
	rs := loadRules()
	for _, s := range patternKeywordSeeds {
		matched := false
		for i, re := range refPatterns {
			if re.MatchString(s) {
				matched = true
				assert.True(t, rs.candidate([]byte(s)), "pattern %s matches %q, the automaton finds no keyword", patterns[i].name, s)
			}
		}
		assert.True(t, matched, "seed %q matches no pattern", s)
	}
}

// FuzzPatternKeywords is TestPatternKeywords for any text: where a
// pattern's expression matches, the automaton finds a keyword.
func FuzzPatternKeywords(f *testing.F) {
	for _, s := range patternKeywordSeeds {
		f.Add(s)
	}
	f.Add(strings.Join(nearMisses, "\n"))
	rs := loadRules()
	f.Fuzz(func(t *testing.T, s string) {
		for i, re := range refPatterns {
			if re.MatchString(s) && !rs.candidate([]byte(s)) {
				t.Fatalf("pattern %s matches %q, the automaton finds no keyword", patterns[i].name, s)
			}
		}
	})
}

// FuzzQuick: where the quick check says a text comes out unchanged, the
// walk agrees, for JSON and for text.
func FuzzQuick(f *testing.F) {
	for _, s := range patternKeywordSeeds {
		f.Add(s)
		f.Add(`{"m":"` + s + `"}`)
	}
	f.Add(`[{"role":"user","parts":[{"type":"text","content":"plan a trip"}]}]`)
	f.Add(`{"client_secret":"abcdefghij","n":"\u0073k-` + strings.Repeat("a1B2", 8) + `"}`)
	f.Add(`{"a":"{\"password\":\"` + fakePassword + `\"}"}`)
	f.Add(`{"u":"postgres:\/\/admin:` + fakeURLPass + `@db\n"}`)
	f.Add(`{"a":"{\"b\":\"\\u0073k-` + strings.Repeat("a1B2", 8) + `\"}"}`)
	f.Add(`["{\"u\":\"https:\\/\\/admin:` + fakeURLPass + `@h\"}"]`)
	f.Add(`{"PassWord":"x"}`)
	f.Add(`{"pa\u0073sword":"x","a/b":1,"a\/b":2}`)
	f.Add(`{"API_KEY":"x","toKen":"y","ſecret":"z"}`)
	f.Add(`{"x":"{\"Api_Key\":\"v\"}"}`)
	// With the secret scan alone (the collector exporter's default), with
	// named keys too (one with a slash), and with named keys alone.
	redactors := []*Redactor{
		New(nil, true),
		New([]string{"password", "api_key", "Secret", "a/b", "token"}, true),
		New([]string{"password", "Secret", "x-key"}, false),
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, r := range redactors {
			w := r.get()
			if w.quick(bytesOf(s)) {
				if out, changed := w.walkText(s); changed {
					t.Fatalf("redactor %d: quick says unchanged, the walk changed it:\n%q\n%q", i, s, out)
				}
			}
			r.put(w)
		}
	})
}

// TestQuickKeys: with named keys, the quick check passes a text only when
// none of the keys can be a field name in it, spelled in any case, with
// the Kelvin sign or the long s, or through an escape.
func TestQuickKeys(t *testing.T) {
	for _, c := range []struct {
		name    string
		keys    []string
		secrets bool
		text    string
		quick   bool
	}{
		{"no key in it", []string{"password"}, false, `{"user":"x","n":[1,2]}`, true},
		{"the key", []string{"password"}, false, `{"password":"x"}`, false},
		{"another case", []string{"password"}, false, `{"PassWord":"x"}`, false},
		{"in a value", []string{"password"}, false, `{"m":"the password is"}`, false},
		{"a \\u escape", []string{"password"}, false, `{"pa\u0073sword":"x"}`, false},
		{"the long s", []string{"password"}, false, "{\"pa\u017f\u017fword\":\"x\"}", false},
		{"the Kelvin sign", []string{"api_key"}, false, "{\"api_\u212aey\":\"x\"}", false},
		{"a \\/ escape", []string{"a/b"}, false, `{"a\/b":1}`, false},
		{"\\/ with no slash in a key", []string{"ab"}, false, `{"a\/c":1}`, true},
		{"a quote in a key", []string{`a"b`}, false, `{"x\n":1}`, false},
		{"keys and the secret scan", []string{"password"}, true, `{"m":"plan a trip"}`, true},
		{"a rule's keyword with keys", []string{"password"}, true, `{"m":"hf_ is a prefix"}`, false},
		{"a key outside ASCII", []string{"pässword"}, false, `{"user":"x"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New(c.keys, c.secrets)
			w := r.get()
			defer r.put(w)
			assert.Equal(t, c.quick, w.quick([]byte(c.text)))
			if c.quick {
				_, changed := w.walkText(c.text)
				assert.False(t, changed)
			}
		})
	}
}
