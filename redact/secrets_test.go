package redact

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// longProse is about 100 KB of text between head and tail.
func longProse(head, tail string) string {
	return head + strings.Repeat("We discussed the roadmap for Q3: the ingestion pipeline, the new viewer.\n", 1400) + tail
}

// refPatterns are the documented, unanchored expressions. The reference
// scan runs them with FindAll over whole strings, the obvious and slow way;
// secretsIn must give the same result.
var refPatterns = func() (res [numPatterns]*regexp.Regexp) {
	for i, p := range patterns {
		res[i] = regexp.MustCompile(p.expr)
	}
	return res
}()

func refSecretsIn(s string) (string, bool) {
	changed := false
	for range maxPasses {
		passChanged := false
		for i, re := range refPatterns {
			g := patterns[i].group
			var sb strings.Builder
			last := 0
			for _, l := range re.FindAllStringSubmatchIndex(s, -1) {
				if a, z := l[2*g], l[2*g+1]; s[a:z] != Placeholder {
					sb.WriteString(s[last:a])
					sb.WriteString(Placeholder)
					last = z
				}
			}
			if last > 0 {
				sb.WriteString(s[last:])
				s, passChanged = sb.String(), true
			}
		}
		if ns, ok := refRules(s); ok {
			s, passChanged = ns, true
		}
		if !passChanged {
			break
		}
		changed = true
	}
	return s, changed
}

// refRules runs the rules the obvious and slow way, as gitleaks does: each
// rule whose keyword is in the lower-cased text, unanchored, with FindAll.
func refRules(s string) (string, bool) {
	rs := loadRules()
	changed := false
	for _, r := range rs.rules {
		r.ready()
		low := asciiLower(s)
		found := false
		for _, k := range r.keywords {
			if strings.Contains(low, k) {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		if ns, ok := r.apply(s, refMatches(r, s)); ok {
			s, changed = ns, true
		}
	}
	return s, changed
}

// checkSecrets checks secretsIn against the reference on s, and that the
// pre-check lets through every string a pattern matches.
func checkSecrets(t *testing.T, s string) {
	t.Helper()
	mask := candidates([]byte(s))
	for i, re := range refPatterns {
		if mask&(1<<i) == 0 && re.MatchString(s) {
			t.Errorf("pattern %s matches %q but the pre-check missed it", patterns[i].name, s)
		}
	}
	got, changed := secretsIn([]byte(s))
	if !changed {
		got = s
	}
	want, wantChanged := refSecretsIn(s)
	if got != want || changed != wantChanged {
		t.Errorf("secretsIn(%q) = %q, %v; the reference gives %q, %v", s, got, changed, want, wantChanged)
	}
}

// TestAgainstReference: the anchored scan replaces exactly what the
// documented expressions match, including overlaps, near misses, case
// folding and matches that appear only after a replacement.
func TestAgainstReference(t *testing.T) {
	for _, s := range []string{
		longProse("sk-learn, bearer of news, ", " the token: abcdefghijk is a match"),
		longProse("sk-learn, bearer of news, ", " -----BEGIN CERTIFICATE----- token: abcdefg"),
		fakeOpenAI, fakeOpenAIPrj, fakeAnthropic, fakeAWS, fakeAWSTemp, fakeGitHub, fakeGitHubS, fakeGitHubPAT,
		fakeSlack, "Bearer " + fakeBearerTok, fakePEM, fakeGoogle, "password=" + fakePassword,
		"to\u212Aen=" + fakePassword, "\u017Fecret: " + fakePassword, "PassWD : '" + fakePassword + "'",
		"task-" + strings.Repeat("a1", 12) + "-sk-" + strings.Repeat("b2", 12),
		fakeAWS + "sk-" + strings.Repeat("c3", 12),
		"token=token=" + fakePassword, "api_key=" + fakeOpenAI, "Bearer Bearer " + fakeBearerTok,
		"-----BEGIN PRIVATE KEY----- no end " + fakeAWS,
		"-----BEGIN CERTIFICATE-----\n" + fakeGoogle + "\n-----END CERTIFICATE-----",
		fakePEM + " " + fakePEM, "xoxb-" + fakeSlack, "ghp_" + fakeGitHub,
		strings.Repeat("-", 40) + " " + strings.Repeat(":", 20) + "token",
		"secret:\t\"" + fakePassword + "\", password=" + fakePassword,
	} {
		checkSecrets(t, s)
	}
	for _, s := range []string{fakeOpenAI, fakeAWS, fakeGitHub, fakeGitHubPAT, fakeSlack, fakeBearerTok, fakePEM, fakeGoogle} {
		assert.NotZero(t, candidates([]byte("x "+s+" Bearer "+s)), s)
	}
}

// asciiLower lower-cases ASCII letters only: keywords are matched ignoring
// ASCII case, like the automaton does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

// refMatches is what the rule matches in s, as the engine counts matches:
// anchored rules anywhere, the others with a keyword inside the match or
// at most nearWindow bytes before it, found here by plain searches.
func refMatches(r *rule, s string) [][]int {
	all := r.re.FindAllStringSubmatchIndex(s, -1)
	if r.atStart {
		return all
	}
	low := asciiLower(s)
	var out [][]int
	for _, l := range all {
		lo := max(0, l[0]-nearWindow)
		for _, k := range r.keywords {
			if i := strings.Index(low[lo:], k); i >= 0 && lo+i < l[1] {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// TestSecretKeyed: a key is secretKeyed exactly when it is at least five
// bytes long and ends with one of genericNames in any ASCII case, as the
// plain loop over every name says, whatever its last letter.
func TestSecretKeyed(t *testing.T) {
	ref := func(b []byte) bool {
		if len(b) < len("token") {
			return false
		}
		for _, name := range genericNames {
			if len(b) >= len(name) && equalFoldASCII(b[len(b)-len(name):], name) {
				return true
			}
		}
		return false
	}
	keys := []string{"", "token", "TOKEN", "oken", "x-api-key", "X-API-KEY", "client_secret", "SecretAccessKey",
		"db.password", "PASSWD", "access_token", "gen_ai.response.id", "content", "secrets", "apikeys",
		"tokens", "passwordx", "api_k\u212aey", "\u212aey_token"}
	for _, name := range genericNames {
		keys = append(keys, name, strings.ToUpper(name), "my_"+name, "my_"+strings.ToUpper(name[:1])+name[1:], name[1:])
	}
	want := map[string]bool{"token": true, "TOKEN": true, "x-api-key": true, "X-API-KEY": true,
		"client_secret": true, "SecretAccessKey": true, "db.password": true, "PASSWD": true, "access_token": true}
	for _, k := range keys {
		assert.Equal(t, ref([]byte(k)), secretKeyed([]byte(k)), "%q", k)
		if w, ok := want[k]; ok {
			assert.Equal(t, w, secretKeyed([]byte(k)), "%q", k)
		}
	}
	for _, k := range []string{"content", "gen_ai.response.id", "secrets", "tokens", "oken"} {
		assert.False(t, secretKeyed([]byte(k)), "%q", k)
	}
}
