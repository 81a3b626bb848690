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

// untunedPayload writes an OTLP/JSON file of a run from a library no
// rule knows (written for the test, shaped like the payloads of issue
// 21: every key its own): an agent span, two model calls whose model,
// usage and prompt sit under mylib.* keys, and a tool span named only by
// mylib.tool.
func untunedPayload(t *testing.T) string {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	trace := pcommon.TraceID{1, 2, 3}
	add := func(id byte, parent byte, name string, kv ...any) {
		sp := spans.AppendEmpty()
		sp.SetTraceID(trace)
		sp.SetSpanID(pcommon.SpanID{id})
		if parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{parent})
		}
		sp.SetName(name)
		sp.SetStartTimestamp(pcommon.Timestamp(int64(id) * 1e9))
		sp.SetEndTimestamp(pcommon.Timestamp(int64(id)*1e9 + 5e8))
		for i := 0; i+1 < len(kv); i += 2 {
			require.NoError(t, sp.Attributes().PutEmpty(kv[i].(string)).FromRaw(kv[i+1]))
		}
	}
	add(1, 0, "run", "mylib.kind", "agent")
	add(2, 1, "step", "mylib.kind", "llm", "mylib.model", "m-1", "mylib.usage.in", 12, "mylib.usage.out", 5,
		"mylib.prompt", `[{"role":"user","content":"hi"}]`)
	add(3, 1, "step", "mylib.kind", "tool", "mylib.tool", "lookup")
	add(4, 1, "step", "mylib.kind", "llm", "mylib.model", "m-1", "mylib.usage.in", 20, "mylib.usage.out", 7)
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "untuned.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// explain --json names the spans nothing was understood of and the
// usage-like keys no rule reads; with the library's dialect file the
// same payload is understood. Not parallel: --dialect sets the
// process's table for the command's duration.
func TestExplainUntunedLibrary(t *testing.T) {
	path := untunedPayload(t)
	r := agenttrace(t, "", "explain", "--json", path)
	require.Equal(t, 1, r.code, "something was not understood: %s", r.stderr)
	var ex explain.Explanation
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ex))
	require.Len(t, ex.Spans, 4)
	byID := map[string]explain.Span{}
	for _, s := range ex.Spans {
		byID[s.SpanID] = s
	}
	llm := byID["0200000000000000"]
	assert.Equal(t, "span", llm.Kind)
	assert.Equal(t, []string{"mylib.model", "mylib.prompt", "mylib.usage.in", "mylib.usage.out"}, llm.Unread)
	assert.Equal(t, []string{"mylib.tool"}, byID["0300000000000000"].Unread)
	assert.Equal(t, 2, ex.Total.Unread["mylib.model"])
	assert.Equal(t, 0, ex.Total.ModelCalls)
	assert.Equal(t, 3, ex.Total.PlainWithUnread)
	assert.False(t, ex.Total.Understood)

	r = agenttrace(t, "", "explain", "--json", "--dialect", "../../semconv/testdata/mylib.dialect.yaml", path)
	require.Equal(t, 1, r.code, "the second model call has no messages: %s", r.stderr)
	ex = explain.Explanation{}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ex))
	assert.Equal(t, 2, ex.Total.ModelCalls)
	assert.Equal(t, 1, ex.Total.Tools)
	assert.Equal(t, 0, ex.Total.ToolsUnnamed)
	assert.Equal(t, 0, ex.Total.WithoutUsage)
	assert.Equal(t, 1, ex.Total.WithoutMessages)
	assert.Empty(t, ex.Total.Unread)
	for _, s := range ex.Spans {
		if s.SpanID == "0200000000000000" {
			assert.Equal(t, "inference", s.Kind)
			assert.Equal(t, "mylib rule: mylib.kind=llm", s.Rule)
			assert.Equal(t, "mylib.model", s.Sources["model"])
			assert.Equal(t, "m-1", s.Model)
		}
	}

	// The table is the embedded one again after the command.
	r = agenttrace(t, "", "tokens", "--json", path)
	require.Equal(t, 0, r.code, r.stderr)
	var tok struct {
		Tokens struct {
			Input int64 `json:"input"`
		} `json:"tokens"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tok))
	assert.Zero(t, tok.Tokens.Input, "no file, no usage")
	r = agenttrace(t, "", "tokens", "--json", "--dialect", "../../semconv/testdata/mylib.dialect.yaml", path)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tok))
	assert.Equal(t, int64(32), tok.Tokens.Input, "with the file, both calls' input")
}

// A dialect file with a mistake is refused with its name and line.
func TestDialectFlagErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("fields:\n  - name: model\n    sources:\n      - {key: x, type: text}\n"), 0o600))
	r := agenttrace(t, "", "tokens", "--dialect", bad, "x.json")
	assert.Equal(t, exitInvalid, r.code)
	assert.Contains(t, r.stderr, bad+":4:")
	r = agenttrace(t, "", "tokens", "--dialect", filepath.Join(t.TempDir(), "none.yaml"), "x.json")
	assert.Equal(t, exitUsage, r.code, r.stderr)
}

// Text names what was not understood, and says when everything was.
func TestExplainText(t *testing.T) {
	path := untunedPayload(t)
	r := agenttrace(t, "", "explain", path)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "unread keys: mylib.model, mylib.prompt, mylib.usage.in, mylib.usage.out")
	assert.Contains(t, r.stdout, "model calls: 0")
	assert.NotContains(t, r.stdout, "everything was understood")
}
