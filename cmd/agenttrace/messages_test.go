package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMessagesGolden pins the transcript and the JSON of every dialect
// payload (go test ./cmd/agenttrace -run TestMessagesGolden -update).
func TestMessagesGolden(t *testing.T) {
	for name, path := range dialects(t) {
		t.Run(name, func(t *testing.T) {
			for _, form := range []struct {
				ext  string
				args []string
			}{{"txt", nil}, {"json", []string{"--json"}}} {
				r := agenttrace(t, "", append([]string{"messages", path}, form.args...)...)
				require.Equal(t, 0, r.code, r.stderr)
				golden := filepath.Join("testdata", "messages", name+"."+form.ext)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
					require.NoError(t, os.WriteFile(golden, []byte(r.stdout), 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run with -update to write it")
				assert.Equal(t, string(want), r.stdout)
			}
		})
	}
}

// messages --json lists one object per model call, in file order, with
// the members the issue names and lists never null.
func TestMessagesJSONShape(t *testing.T) {
	r := agenttrace(t, "", "messages", "--json", dialects(t)["genai-v141"], dialects(t)["openinference"])
	require.Equal(t, 0, r.code, r.stderr)
	var turns []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &turns))
	require.NotEmpty(t, turns)
	for _, tn := range turns {
		for _, k := range []string{"trace_id", "span_id", "model", "system", "input", "output"} {
			require.Contains(t, tn, k)
		}
		for _, k := range []string{"system", "input", "output"} {
			assert.NotEqual(t, "null", string(tn[k]), k)
		}
	}
}

// A wrapper is not a model call: the Langfuse fixture's four model calls
// and no more, the failing one included.
func TestMessagesCountsModelCalls(t *testing.T) {
	r := agenttrace(t, "", "messages", "--json", dialects(t)["langfuse"])
	require.Equal(t, 0, r.code, r.stderr)
	var turns []turn
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &turns))
	assert.Len(t, turns, 4)
}

func TestMessagesUsage(t *testing.T) {
	r := agenttrace(t, "", "messages")
	assert.Equal(t, exitUsage, r.code)
	r = agenttrace(t, "", "messages", filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.Equal(t, exitUsage, r.code, r.stderr)
}
