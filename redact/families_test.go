package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Synthetic secrets of the families issue 16 names, built from pieces so
// that no scanner takes this file for a leak. They are random-looking, as
// real ones are: gitleaks' rules check the entropy of what they match.
const (
	fakeStripe     = "sk" + "_live_" + "xEEsAoCaA2QTqpOoast0vQj8"
	fakeStripeRK   = "rk" + "_live_" + "51HqLyjWDarjtT1zdp7dc"
	fakeHF         = "hf" + "_" + "VMtbYoMqbjZMQObDDMOTsoYtxqAYfwFBHP"
	fakeGitLab     = "gl" + "pat-" + "wLfKkaVE_tNMO66iv9b4"
	fakeNPM        = "np" + "m_" + "5a4h3f5bjozxc8czu46eougf8hpazchdzjqp"
	fakeJWT        = "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	fakeBasic      = "YWRtaW46" + "czNjcjN0LXBhc3M=" // admin:s3cr3t-pass
	fakeURLPass    = "s3cr3t" + "P4ss"
	fakeAWSSecret  = "wbEFonsIX0eZ776Hehdz" + "2GXnBo1nKo63sZEqqZ3C"
	fakeAzureKey   = "yl65/VnQatoL+ZuXPyec/3vxa+JE+yg2oB3sKf4aq1czus6Q" + "yCFyYehrBgBxqspoHIkLxR1LcWmJDm/x9rJF6w=="
	fakeKeyBody    = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "WDdhCy+/kjFPE188dbBo3y5dLewoEE1OUGnVFbU6ztGEPsRjteG/3QiwYilsxNIcbNOuFs+yCkvVeKRVzxzAFczlEkkAVWOW0g0aPABAoCia5EvbkNEqSxWYhpvjoSaF"
	fakeServiceKey = "-----BEGIN " + "PRIVATE KEY-----\\n" + fakeKeyBody + "\\n-----END PRIVATE KEY-----\\n"
)

// Near misses: text that looks a little like a secret and must stay as it
// is.
var nearMisses = []string{
	"request 3f2b8c4e-9d1a-4e7b-8c2f-1a2b3c4d5e6f failed",
	"commit c9f033ac8e9680f062d47ad380a5bd9b65612800 fixed it",
	"git checkout 9fceb02d0ae598e95dc970b74767f19372d61af8",
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"we used sk-learn and the sk-models package; ask-me-anything and task-runner-v2 too",
	"this is a risk-free sk- prefix in prose, not a key",
	"hf_hub_download fetched the model; npm_config_cache is set",
	"the basic idea is simple: Basic authentication is enabled on the proxy",
	"open https://example.com/docs/a@b or postgres://localhost:5432/app as user@example.com",
	"they keyed the eyes of the monkey; jwt.io explains tokens",
	"AccountName=acct;EndpointSuffix=core.windows.net",
	"AWS_SECRET_ACCESS_KEY is unset; set it in ~/.aws/credentials",
	"password: see the docs, token count 1234",
	"glpat- tokens are created under Settings; sk_live_ keys are for production",
	"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
	"the input_tokens were 512 and the api key rotated yesterday",
}

// TestFamilies: each family's real-looking positives lose the secret, in
// prose (followed by a comma or a period too), in JSON and in a header,
// and the rest of the text stays; the near misses stay whole.
func TestFamilies(t *testing.T) {
	r := New(nil, true)
	for _, c := range []struct {
		family string
		in     string
		secret string
		keep   []string // what must survive
	}{
		{"stripe sk_live", "charge with " + fakeStripe + ", then refund", fakeStripe, []string{"charge with", ", then refund"}},
		{"stripe rk_live", `{"STRIPE_KEY":"` + fakeStripeRK + `"}`, fakeStripeRK, []string{"STRIPE_KEY"}},
		{"hugging face", "HF_TOKEN=" + fakeHF + ".", fakeHF, []string{"HF_TOKEN="}},
		{"hugging face in prose", "login with " + fakeHF + " now", fakeHF, []string{"login with", "now"}},
		{"gitlab", "git clone https://oauth2:" + fakeGitLab + "@gitlab.com/g/p.git", fakeGitLab, []string{"gitlab.com/g/p.git"}},
		{"gitlab bare", "token " + fakeGitLab + ";", fakeGitLab, []string{"token"}},
		{"gitlab long", "token " + fakeGitLab + "Xy12abZ9.01.0f1nq2mmm", "Xy12abZ9", []string{"token"}},
		{"hugging face with digits", "HF " + "hf_" + "Q7vR2mXk9LpT4wYz8NcB3dFh6JsA1eGu5K", "Q7vR2mXk9LpT4wYz8NcB3dFh6", []string{"HF"}},
		{"basic header any value", "authorization: basic " + "Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4", []string{"authorization: basic"}},
		{"url credentials without user", "REDIS_URL=redis://:" + fakeURLPass + "@cache:6379/0", fakeURLPass, []string{"@cache:6379/0"}},
		{"npm", "//registry.npmjs.org/:_authToken=" + fakeNPM, fakeNPM, []string{"registry.npmjs.org"}},
		{"jwt bare", "the cookie was " + fakeJWT + ", expired", fakeJWT[:40], []string{"the cookie was", "expired"}},
		{"jwt in json", `{"id_token":"` + fakeJWT + `"}`, fakeJWT[:40], []string{"id_token"}},
		{"basic header", "Authorization: Basic " + fakeBasic, fakeBasic, []string{"Authorization: Basic"}},
		{"basic header json", `{"headers":{"Authorization":"Basic ` + fakeBasic + `"}}`, fakeBasic, []string{"Authorization"}},
		{"url credentials", "DATABASE_URL=postgres://admin:" + fakeURLPass + "@db.internal:5432/app", fakeURLPass, []string{"postgres://admin:", "@db.internal:5432/app"}},
		{"url credentials mongo", `{"uri":"mongodb+srv://svc:` + fakeURLPass + `@cluster0.example.net/x"}`, fakeURLPass, []string{"cluster0.example.net"}},
		{"aws secret env", "export AWS_SECRET_ACCESS_KEY=" + fakeAWSSecret, fakeAWSSecret, []string{"export AWS_SECRET_ACCESS_KEY="}},
		{"aws secret json", `{"Credentials":{"SecretAccessKey":"` + fakeAWSSecret + `"}}`, fakeAWSSecret, []string{"SecretAccessKey"}},
		{"aws credentials file", "[default]\naws_secret_access_key = " + fakeAWSSecret + "\n", fakeAWSSecret, []string{"aws_secret_access_key"}},
		{"azure account key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + fakeAzureKey + ";EndpointSuffix=core.windows.net",
			fakeAzureKey[:30], []string{"AccountName=acct", "EndpointSuffix=core.windows.net"}},
		{"service account as text", `{"type": "service_account", "private_key": "` + fakeServiceKey + `", "client_email": "x@p.iam.gserviceaccount.com"}`,
			fakeKeyBody[:30], []string{"service_account", "client_email"}},
		{"service account in a tool result", `{"content":` + mustJSON(t, `{"type": "service_account", "private_key": "`+fakeServiceKey+`"}`) + `}`,
			fakeKeyBody[:30], []string{"service_account"}},
		{"service account cut short", `cat key.json: {"private_key": "` + fakeServiceKey[:120], fakeKeyBody[:30], []string{"cat key.json"}},
		{"openai project", "OPENAI_API_KEY=" + fakeOpenAIPrj, fakeOpenAIPrj, nil},
		{"aws key id", "id " + fakeAWS + " here", fakeAWS, []string{"here"}},
		{"github", "push with " + fakeGitHub, fakeGitHub, []string{"push with"}},
	} {
		t.Run(c.family, func(t *testing.T) {
			out, changed := r.get().text(c.in)
			require.True(t, changed, "nothing redacted in %q", c.in)
			assert.NotContains(t, out, c.secret)
			assert.Contains(t, out, Placeholder)
			for _, k := range c.keep {
				assert.Contains(t, out, k)
			}
			if json.Valid([]byte(c.in)) {
				assert.True(t, json.Valid([]byte(out)), "JSON became invalid: %s", out)
			}
			again, changedAgain := r.get().text(out)
			assert.False(t, changedAgain, "not idempotent: %q -> %q", out, again)
		})
	}
	for _, s := range nearMisses {
		t.Run("near miss "+s[:min(len(s), 30)], func(t *testing.T) {
			out, changed := r.get().text(s)
			assert.False(t, changed, "%q became %q", s, out)
		})
	}
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// TestRulesCompile compiles every vendored and project rule: a bad
// expression in the data file fails here, not in a user's span processor.
// Each rule has keywords, and a rule read as anchored at its keywords
// (atStart) really starts with one.
func TestRulesCompile(t *testing.T) {
	rs, err := compileRules(gitleaksJSON)
	require.NoError(t, err)
	require.NoError(t, rs.compileAll())
	assert.Greater(t, len(rs.rules), 200, "gitleaks' rules")
	ids := map[string]bool{}
	anchored := 0
	for _, r := range rs.rules {
		assert.False(t, ids[r.id], "duplicate rule %s", r.id)
		ids[r.id] = true
		assert.NotEmpty(t, r.keywords, r.id)
		if r.atStart {
			anchored++
		}
	}
	for _, id := range []string{"stripe-access-token", "huggingface-access-token", "gitlab-pat", "npm-access-token", "jwt",
		"agenttrace/url-credentials", "agenttrace/basic-auth", "agenttrace/private-key-truncated"} {
		assert.True(t, ids[id], "rule %s", id)
	}
	t.Logf("%d rules, %d anchored at their keywords", len(rs.rules), anchored)
	assert.Greater(t, anchored, 80)
}

// TestKeywordDFA: the automaton finds every occurrence of every keyword,
// overlapping ones too, in any ASCII case, in order of where they start.
func TestKeywordDFA(t *testing.T) {
	kws := []string{"ey", "key", "hf_", "-----begin", "sk_live", "k"}
	d := newKeywordDFA(kws)
	for _, s := range []string{"", "they KEY hf_x", "-----BEGIN sk_LIVE_ x", "kkk eyey", strings.Repeat("ab", 50)} {
		var want []hit
		low := asciiLower(s)
		for i := range len(low) {
			for k, kw := range kws {
				if strings.HasPrefix(low[i:], kw) {
					want = append(want, hit{int32(i), int32(k)})
				}
			}
		}
		got := d.hits([]byte(s), nil)
		// Ties (two keywords starting at one place) may come in either
		// order; compare as sets per position.
		assert.ElementsMatch(t, want, got, s)
		for i := 1; i < len(got); i++ {
			assert.LessOrEqual(t, got[i-1].start, got[i].start, s)
		}
		assert.Equal(t, len(want) > 0, d.any([]byte(s)), s)
	}
}

// TestBasicCredential: Basic is a credential only when it decodes to
// user:password.
func TestBasicCredential(t *testing.T) {
	assert.True(t, isBasicCredential(fakeBasic))
	assert.True(t, isBasicCredential("dXNlcjpwYXNz"))
	assert.False(t, isBasicCredential("authentication"))
	assert.False(t, isBasicCredential("reasoning"))
	assert.False(t, isBasicCredential("aGVsbG8gd29ybGQ=")) // hello world
}

// TestKeywordDFAStreams: the four-stream scan of a long text finds a
// keyword wherever it is, across the borders between streams too.
func TestKeywordDFAStreams(t *testing.T) {
	d := newKeywordDFA([]string{"-----begin", "hf_", "ey"})
	base := strings.Repeat("abcdxz0123 ", 60)
	assert.False(t, d.any([]byte(base)))
	for _, kw := range []string{"-----BEGIN", "hf_", "eY"} {
		for i := 0; i+len(kw) <= len(base); i++ {
			s := base[:i] + kw + base[i+len(kw):]
			if !d.any([]byte(s)) {
				t.Fatalf("%q at %d of %d not found", kw, i, len(s))
			}
		}
	}
}

// TestKeywordDFAHitsStreams: the four-stream hits of long texts are the
// occurrences a plain search finds, each once, in order, wherever the
// keywords fall against the borders between streams.
func TestKeywordDFAHitsStreams(t *testing.T) {
	kws := []string{"-----begin", "hf_", "ey", "key"}
	d := newKeywordDFA(kws)
	base := strings.Repeat("abcdxz0123 ", 60)
	for _, kw := range []string{"-----BEGIN", "hf_", "KEY"} {
		for i := 0; i+len(kw) <= len(base); i += 3 {
			s := base[:i] + kw + base[i+len(kw):] + " they " + base[:i]
			var want []hit
			low := asciiLower(s)
			for p := range len(low) {
				for k, w := range kws {
					if strings.HasPrefix(low[p:], w) {
						want = append(want, hit{int32(p), int32(k)})
					}
				}
			}
			got := d.hits([]byte(s), nil)
			require.ElementsMatch(t, want, got, "%q at %d", kw, i)
			for j := 1; j < len(got); j++ {
				require.LessOrEqual(t, got[j-1].start, got[j].start)
			}
		}
	}
}

// TestIndexFold against a plain search of the lower-cased text.
func TestIndexFold(t *testing.T) {
	for _, c := range []struct{ s, w string }{
		{"a -H b -h c", " -h"}, {"Curl curl CURL x", "curl"}, {"no", "curl"}, {"", "x"},
		{"xx@yy", "@"}, {"WwWw we", "we"}, {"abc", "abcd"}, {"--HEADER --header", "--header"},
	} {
		assert.Equal(t, strings.Index(asciiLower(c.s), c.w), indexFold(c.s, c.w), "%q in %q", c.w, c.s)
	}
}

// TestJSON: a whole artifact line loses its secrets and its named fields
// and stays valid JSON; redacting it again changes nothing.
func TestJSON(t *testing.T) {
	r := New([]string{"path"}, true)
	line := []byte(`{"kind":"call","tool":"read","args":{"path":"/home/u/.env"},"result":"` +
		"STRIPE=" + fakeStripe + `","attrs":{"gen_ai.tool.call.result":"` + "postgres://u:" + fakeURLPass + `@db/x"}}`)
	out, changed := r.JSON(line)
	require.True(t, changed)
	assert.True(t, json.Valid(out), string(out))
	for _, gone := range []string{fakeStripe, fakeURLPass, "/home/u/.env"} {
		assert.NotContains(t, string(out), gone)
	}
	again, changedAgain := r.JSON(out)
	assert.False(t, changedAgain)
	assert.Equal(t, out, again)
	clean := []byte(`{"kind":"call","tool":"read"}`)
	same, changed := r.JSON(clean)
	assert.False(t, changed)
	assert.Equal(t, clean, same)
}
