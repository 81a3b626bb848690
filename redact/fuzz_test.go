package redact

import (
	"encoding/json"
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
