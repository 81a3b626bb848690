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
	r := New(nil, true)
	f.Fuzz(func(t *testing.T, s string) {
		w := r.get()
		defer r.put(w)
		if !w.quick(bytesOf(s)) {
			return
		}
		if out, changed := w.walkText(s); changed {
			t.Fatalf("quick says unchanged, the walk changed it:\n%q\n%q", s, out)
		}
	})
}
