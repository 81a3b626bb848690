package store

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConversationIDSecretNotInName is issue 22's nit: a conversation id
// holding a secret (synthetic keys, made up for the test) names its
// artifact and fills its header's conversation_id without the secret, two
// ids differing only in their secrets keep two files, and a restart (the
// key recovered from the header) writes to the same file again.
func TestConversationIDSecretNotInName(t *testing.T) {
	const (
		keyA = "sk-proj-Q7vR2mXk9LpT4wYz8NcB3dFh6JsA1eGu5KoI0qWtVbPnMx"
		keyB = "ghp_R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi"
	)
	convA, convB := "session-"+keyA, "session-"+keyB
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Route: ByConversation})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1, conv: convA}, span{trace: 2, id: 2, parent: 1, conv: convB})))
	require.NoError(t, s.Close())
	s = newStore(t, Options{Dir: dir, Route: ByConversation})
	require.NoError(t, s.Write(records(span{trace: 1, id: 1, conv: convA}, span{trace: 2, id: 1, conv: convB})))
	require.NoError(t, s.Close())

	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 2, "a file per conversation, kept across the restart")
	for _, e := range ents {
		for _, k := range []string{keyA, keyB} {
			assert.NotContains(t, e.Name(), k[8:], "a secret in a file name")
		}
		raw, err := os.ReadFile(dir + "/" + e.Name())
		require.NoError(t, err)
		a := readBack(t, raw)
		assert.Equal(t, 1, a.headers)
		assert.Empty(t, a.problems)
		assert.Len(t, a.recs, 2, "%s: its root and its child", e.Name())
		assert.True(t, strings.HasSuffix(a.meta.ConversationID, "~session-[REDACTED]"), a.meta.ConversationID)
	}
}

func TestConversationValue(t *testing.T) {
	for _, clean := range []string{"conv_123", "3f2b8c4e-9d1a-4e7b-8c2f-1a2b3c4d5e6f", "x/y", "", "thread about sk-learn"} {
		assert.Equal(t, clean, ConversationKey(clean).Value, "a clean id is kept")
	}
	for _, secret := range []string{"token=ghp_R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi", "ghp_R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi",
		`{"api_key":"ghp_R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi"}`, "password: hunter2hunter2"} {
		v := ConversationKey(secret).Value
		assert.NotEqual(t, secret, v)
		assert.NotContains(t, v, "R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi")
		assert.NotContains(t, v, "hunter2hunter2")
		assert.Equal(t, v, ConversationKey(v).Value, "%q: the result is clean: recovery from the header gives the same key", secret)
	}
}
