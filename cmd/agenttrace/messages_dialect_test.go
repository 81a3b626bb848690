package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/explain"
)

// A user's dialect file that names a library's content keys (the table's
// content section, docs/dialects.md) makes messages --json read them:
// a key holding the history, a flattened family, a key holding the
// answer. The payload is written for the test (an invented library,
// "acme", whose model call keeps its conversation under keys of its own);
// without the file its content is read by no rule. Not parallel:
// --dialect sets the process's table for the command's duration.
func TestMessagesUserContentKeys(t *testing.T) {
	const dialectFile = `kinds:
  - dialect: acme
    key: acme.kind
    values: {llm: inference}
fields:
  - name: model
    sources:
      - {key: acme.model, type: string}
content:
  input:
    - {key: acme.prompt_history}
    - {prefix: acme.message., shape: flat}
  output:
    - {key: acme.output_text}
`
	cases := []struct {
		name  string
		attrs map[string]any // content keys, each one the file names
	}{
		{"a key holding a message list", map[string]any{
			"acme.prompt_history": `[{"role":"user","content":"What is the weather in Paris?"}]`,
			"acme.output_text":    `{"role":"assistant","content":"Sunny, 18 degrees."}`,
		}},
		{"a flattened family", map[string]any{
			"acme.message.0.role":    "user",
			"acme.message.0.content": "What is the weather in Paris?",
			"acme.output_text":       "Sunny, 18 degrees.",
		}},
	}
	dir := t.TempDir()
	dfile := filepath.Join(dir, "acme.yaml")
	require.NoError(t, os.WriteFile(dfile, []byte(dialectFile), 0o600))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			td := ptrace.NewTraces()
			sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
			sp.SetTraceID(pcommon.TraceID{7})
			sp.SetSpanID(pcommon.SpanID{7})
			sp.SetName("acme step")
			sp.SetStartTimestamp(1e9)
			sp.SetEndTimestamp(2e9)
			require.NoError(t, sp.Attributes().FromRaw(map[string]any{"acme.kind": "llm", "acme.model": "m-1"}))
			for k, v := range tc.attrs {
				sp.Attributes().PutStr(k, v.(string))
			}
			b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "acme.json")
			require.NoError(t, os.WriteFile(path, b, 0o600))

			r := agenttrace(t, "", "messages", "--json", "--dialect", dfile, path)
			require.Equal(t, 0, r.code, r.stderr)
			var turns []messageJSON
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &turns))
			require.Len(t, turns, 1)
			require.Len(t, turns[0].Input, 1)
			assert.Equal(t, "user", turns[0].Input[0].Role)
			require.Len(t, turns[0].Input[0].Parts, 1)
			assert.Equal(t, "What is the weather in Paris?", turns[0].Input[0].Parts[0].Content)
			require.Len(t, turns[0].Output, 1)
			assert.Equal(t, "assistant", turns[0].Output[0].Role)
			require.Len(t, turns[0].Output[0].Parts, 1)
			assert.Equal(t, "Sunny, 18 degrees.", turns[0].Output[0].Parts[0].Content)

			// explain counts the keys as read with the file, unread without.
			r = agenttrace(t, "", "explain", "--json", "--dialect", dfile, path)
			var ex explain.Explanation
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &ex), r.stderr)
			assert.Empty(t, ex.Total.Unread)
			assert.Zero(t, ex.Total.WithoutMessages)
			r = agenttrace(t, "", "explain", "--json", path)
			ex = explain.Explanation{}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &ex), r.stderr)
			for k := range tc.attrs {
				assert.Contains(t, ex.Total.Unread, k, "without the file the content keys are unread")
			}
		})
	}
}
