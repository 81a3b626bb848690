package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestStripeKeyContexts is issue 21's point 8: a Stripe secret key
// (synthetic, made up for the test) survived redaction where its
// restricted twin was caught. Two general causes, each fixed by rule:
// gitleaks' bounded token length ({10,99}) before its terminator let a
// longer key through whole, and a literal escape right before a token
// ("\n" as two characters, in text that quotes JSON without being JSON)
// took away the \b the rule anchors on. Every context here holds the key;
// none may keep it, for sk_ and rk_ alike.
func TestStripeKeyContexts(t *testing.T) {
	// 99 characters after the prefix, and more: live keys are this long.
	long := "51HqLyjWDarjtT1zdp7dcQ8mZr4XvN2bKcT7yLpW9sGhF3jD6aE1uVo5iRxq0BnMk7PzYw2CtHs4Lg8JdUe6Fv3Ra9Nb1Qm5Xk0ZpWy7TcVh"
	r := New(nil, true)
	for _, prefix := range []string{"sk_live_", "rk_live_", "sk_test_"} {
		for _, key := range []string{prefix + "xEEsAoCaA2QTqpOoast0vQj8", prefix + long} {
			for _, ctx := range []string{
				"%s",
				"pay with %s now",
				`line one\n%s`,
				`STRIPE=x\t%s`,
				`{"a":"b\n%s"`, // JSON cut short: read as text
				`key: %s\r\n`,
				"charge(%s).",
			} {
				text := strings.Replace(ctx, "%s", key, 1)
				m := pcommon.NewMap()
				m.PutStr("v", text)
				r.Map(m)
				v, _ := m.Get("v")
				assert.NotContains(t, v.Str(), key[len(prefix):], "%q kept the key", text)
				assert.Contains(t, v.Str(), Placeholder, text)
				// What is not the key stays, escapes included.
				assert.Equal(t, strings.Replace(text, key, Placeholder, 1), v.Str())
			}
		}
	}
}

// TestEscapedSecretsLeavesCleanText: the escape view changes nothing
// where there is no secret, and a backslash-escaped backslash is no
// escape of the letter after it.
func TestEscapedSecretsLeavesCleanText(t *testing.T) {
	for _, s := range []string{`no secret\nhere\tat all`, `C:\\new\\table`, `\n\r\t`, "plain"} {
		_, ok := escapedSecrets([]byte(s))
		assert.False(t, ok, s)
	}
	assert.False(t, hasEscapeBeforeWord([]byte(`C:\\new`)), "an escaped backslash, then n")
	assert.True(t, hasEscapeBeforeWord([]byte(`a\nb`)))
}

// TestEscapedViewNoAllocWithoutCandidate: text with escapes before words
// but no keyword of any rule or pattern (code, a log excerpt) costs the
// escape view no allocation.
func TestEscapedViewNoAllocWithoutCandidate(t *testing.T) {
	b := []byte(`func main() {\n\tfmt.Println("hello")\n\treturn\n}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := secretsIn(b); ok {
			t.Fatal("no secret here")
		}
	})
	assert.Zero(t, allocs)
}
