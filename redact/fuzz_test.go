package redact

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// FuzzRedactJSON runs arbitrary strings through the string path (the JSON
// walker, and the text scan for what is not JSON): it must not panic, valid
// JSON must stay valid, redacting twice must equal redacting once, and the
// secret pre-check must never miss what a pattern matches.
func FuzzRedactJSON(f *testing.F) {
	for _, s := range []string{
		`{"password":"x","a":[1,2,{"api_key":null}]}`,
		`[{"type":"tool_call","arguments":"{\"password\":\"x\"}"}]`,
		`{"m":"use ` + fakeOpenAI + ` now","n":"\u0073k-` + strings.Repeat("a1B2", 8) + `"}`,
		`{"token":"` + fakePassword + `"}`,
		`["` + strings.ReplaceAll(fakePEM, "\n", `\n`) + `"]`,
		"Authorization: Bearer " + fakeBearerTok,
		`{"password": "` + fakePassword + `"`,
		`"password=abcdefgh\""`,
		`{ "z" : 1.5e3 , "a" : "\ud800" }`,
		"",
		"[",
	} {
		f.Add(s)
	}
	r := New([]string{"password", "api_key", "Secret"}, true)
	f.Fuzz(func(t *testing.T, s string) {
		w := r.get()
		defer r.put(w)

		checkSecrets(t, s)
		out, changed := w.text(s)
		if !changed && out != s {
			t.Fatalf("unchanged but different:\n%q\n%q", s, out)
		}
		if json.Valid([]byte(s)) && !json.Valid([]byte(out)) {
			t.Fatalf("valid JSON became invalid:\n%q\n%q", s, out)
		}
		again, changedAgain := w.text(out)
		if changedAgain || again != out {
			t.Fatalf("not idempotent:\n%q\n%q\n%q", s, out, again)
		}
	})
}

// FuzzRedactSecrets: redaction never grows a secret back. For every
// hand-written pattern and every rule that replaced something in the
// input, the output holds nothing that pattern or rule would replace; and
// redacting the output again changes nothing.
func FuzzRedactSecrets(f *testing.F) {
	for _, s := range []string{
		"charge with " + fakeStripe + ", then refund",
		"HF_TOKEN=" + fakeHF + ".",
		"token " + fakeGitLab + ";" + fakeNPM,
		"the cookie was " + fakeJWT + ", expired",
		"Authorization: Basic " + fakeBasic,
		"postgres://admin:" + fakeURLPass + "@db.internal:5432/app",
		"export AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret,
		"AccountName=acct;AccountKey=" + fakeAzureKey + ";EndpointSuffix=core.windows.net",
		`{"private_key": "` + fakeServiceKey + `"}`,
		`{"private_key": "` + fakeServiceKey[:90],
		"use " + fakeOpenAIPrj + " and " + fakeGitHub + " and " + fakeAWS,
		strings.Join(nearMisses, "\n"),
		"https://u:" + Placeholder + "@h " + "Basic " + Placeholder,
	} {
		f.Add(s)
	}
	rs := loadRules()
	f.Fuzz(func(t *testing.T, s string) {
		out, changed := secretsIn([]byte(s))
		if !changed {
			out = s
		}
		low := asciiLower(s)
		for i, re := range refPatterns {
			if patternReplaces(re, i, s) && patternReplaces(re, i, out) {
				t.Fatalf("pattern %s matches again after redaction:\n%q\n%q", patterns[i].name, s, out)
			}
		}
		for _, r := range rs.rules {
			if !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.Contains(low, k) }) {
				continue // a rule runs only where its keyword is
			}
			r.ready()
			if _, fired := r.apply(s, refMatches(r, s)); !fired {
				continue
			}
			if again, ok := r.apply(out, refMatches(r, out)); ok {
				t.Fatalf("rule %s matches again after redaction:\n%q\n%q\n%q", r.id, s, out, again)
			}
		}
		if again, changedAgain := secretsIn([]byte(out)); changedAgain {
			t.Fatalf("not idempotent:\n%q\n%q\n%q", s, out, again)
		}
	})
}

// patternReplaces reports whether hand-written pattern i, as its
// reference expression re, would replace a secret in s.
func patternReplaces(re *regexp.Regexp, i int, s string) bool {
	g := patterns[i].group
	for _, l := range re.FindAllStringSubmatchIndex(s, -1) {
		if s[l[2*g]:l[2*g+1]] != Placeholder {
			return true
		}
	}
	return false
}
