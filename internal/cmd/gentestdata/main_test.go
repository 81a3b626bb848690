package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/agentsim/genai"
)

// committedDir is testdata/otlp at the module root.
var committedDir = filepath.Join("..", "..", "..", "testdata", "otlp")

var allFiles = []string{agentRunJSON, agentRunPB, conversationJSON, conversationLines}

// TestCommittedFixturesAreCurrent fails when testdata/otlp no longer matches
// what the generator produces, so stale fixtures break CI.
func TestCommittedFixturesAreCurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, run(dir, defaultSeed))

	for _, name := range allFiles {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(committedDir, name))
		require.NoError(t, err, "missing fixture; run: go run ./internal/cmd/gentestdata -out testdata/otlp")
		assert.True(t, bytes.Equal(want, got),
			"testdata/otlp/%s is stale; run: go run ./internal/cmd/gentestdata -out testdata/otlp", name)
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	first, err := generate(defaultSeed)
	require.NoError(t, err)
	second, err := generate(defaultSeed)
	require.NoError(t, err)
	require.Equal(t, first, second)

	other, err := generate(defaultSeed + 1)
	require.NoError(t, err)
	require.Len(t, other, len(first))
	for i := range first {
		assert.NotEqual(t, first[i].data, other[i].data, "%s should depend on -seed", first[i].name)
	}
}

func generated(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := generate(defaultSeed)
	require.NoError(t, err)
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		m[f.name] = f.data
	}
	return m
}

func unmarshalJSON(t *testing.T, b []byte) ptrace.Traces {
	t.Helper()
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	require.NoError(t, err)
	return td
}

func spansOf(td ptrace.Traces) []ptrace.Span {
	var out []ptrace.Span
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				out = append(out, sp)
			}
		}
	}
	return out
}

func str(sp ptrace.Span, key string) string {
	v, ok := sp.Attributes().Get(key)
	if !ok {
		return ""
	}
	return v.Str()
}

func intAttr(sp ptrace.Span, key string) int64 {
	v, ok := sp.Attributes().Get(key)
	if !ok {
		return 0
	}
	return v.Int()
}

func TestAgentRunShape(t *testing.T) {
	t.Parallel()
	files := generated(t)
	td := unmarshalJSON(t, files[agentRunJSON])

	// The protobuf file holds the same trace.
	fromPB, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(files[agentRunPB])
	require.NoError(t, err)
	wantPB, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	gotPB, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(fromPB)
	require.NoError(t, err)
	require.Equal(t, wantPB, gotPB)

	spans := spansOf(td)
	byID := map[pcommon.SpanID]ptrace.Span{}
	traceIDs := map[pcommon.TraceID]bool{}
	for _, sp := range spans {
		byID[sp.SpanID()] = sp
		traceIDs[sp.TraceID()] = true
	}
	require.Len(t, traceIDs, 1, "agent-run is one trace")

	var chats, agents, plainSpans, errored []ptrace.Span
	toolCallIDs := map[string]bool{}
	for _, sp := range spans {
		switch str(sp, "gen_ai.operation.name") {
		case "chat":
			chats = append(chats, sp)
			assert.Equal(t, ptrace.SpanKindClient, sp.Kind())
			assert.Equal(t, "chat "+str(sp, "gen_ai.request.model"), sp.Name())
			for _, key := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions", "gen_ai.tool.definitions"} {
				assert.True(t, json.Valid([]byte(str(sp, key))), "%s on %s is JSON", key, sp.Name())
			}
			var out []genai.Message
			require.NoError(t, json.Unmarshal([]byte(str(sp, "gen_ai.output.messages")), &out))
			for _, m := range out {
				assert.NotEmpty(t, m.FinishReason, "v1.41 output messages require finish_reason")
				for _, p := range m.Parts {
					if p.Type == "tool_call" {
						toolCallIDs[p.ID] = true
					}
				}
			}
		case "invoke_agent":
			agents = append(agents, sp)
			assert.Equal(t, ptrace.SpanKindInternal, sp.Kind())
		case "execute_tool":
			assert.Equal(t, ptrace.SpanKindInternal, sp.Kind())
			assert.Equal(t, "execute_tool "+str(sp, "gen_ai.tool.name"), sp.Name())
		case "":
			plainSpans = append(plainSpans, sp)
		}
		if sp.Status().Code() == ptrace.StatusCodeError {
			errored = append(errored, sp)
		}
	}

	assert.GreaterOrEqual(t, len(chats), 3)
	finishReasons := map[string]bool{}
	for _, c := range chats {
		v, _ := c.Attributes().Get("gen_ai.response.finish_reasons")
		finishReasons[v.Slice().At(0).Str()] = true
	}
	assert.Equal(t, map[string]bool{"tool_calls": true, "stop": true}, finishReasons)

	for _, sp := range spans {
		if str(sp, "gen_ai.operation.name") == "execute_tool" {
			assert.True(t, toolCallIDs[str(sp, "gen_ai.tool.call.id")], "tool call id of %s comes from a model tool_call", sp.Name())
		}
	}

	require.Len(t, errored, 1)
	failed := errored[0]
	assert.Equal(t, "TimeoutError", str(failed, "error.type"))
	assert.NotEmpty(t, failed.Status().Message())
	require.Equal(t, 1, failed.Events().Len())
	assert.Equal(t, "exception", failed.Events().At(0).Name())

	// A nested invoke_agent: an agent span with another agent span above it.
	nested := 0
	for _, a := range agents {
		for p, ok := byID[a.ParentSpanID()]; ok; p, ok = byID[p.ParentSpanID()] {
			if str(p, "gen_ai.operation.name") == "invoke_agent" {
				nested++
				break
			}
		}
	}
	assert.Equal(t, 1, nested)

	// Agents repeat the usage of the chats under them.
	for _, a := range agents {
		var sum int64
		for _, c := range chats {
			for p, ok := byID[c.ParentSpanID()]; ok; p, ok = byID[p.ParentSpanID()] {
				if p.SpanID() == a.SpanID() {
					sum += intAttr(c, "gen_ai.usage.input_tokens")
					break
				}
			}
		}
		assert.Equal(t, sum, intAttr(a, "gen_ai.usage.input_tokens"), a.Name())
	}

	require.Len(t, plainSpans, 1, "one non-GenAI span")
	assert.Equal(t, "GET", str(plainSpans[0], "http.request.method"))
	assert.Equal(t, int64(200), intAttr(plainSpans[0], "http.response.status_code"))

	links := 0
	for _, sp := range spans {
		for _, l := range sp.Links().All() {
			links++
			assert.NotEqual(t, sp.TraceID(), l.TraceID(), "link points to another trace")
		}
	}
	assert.Equal(t, 1, links)
}

func TestConversationShape(t *testing.T) {
	t.Parallel()
	files := generated(t)
	td := unmarshalJSON(t, files[conversationJSON])

	roots := map[pcommon.TraceID]ptrace.Span{}
	for _, sp := range spansOf(td) {
		if sp.ParentSpanID().IsEmpty() {
			roots[sp.TraceID()] = sp
		}
	}
	require.Len(t, roots, 2, "two traces, one per user turn")
	conv := map[string]bool{}
	for _, r := range roots {
		assert.Equal(t, "invoke_agent", str(r, "gen_ai.operation.name"))
		conv[str(r, "gen_ai.conversation.id")] = true
	}
	assert.Len(t, conv, 1, "both turns share a conversation id")

	lines := strings.Split(strings.TrimSuffix(string(files[conversationLines]), "\n"), "\n")
	require.Len(t, lines, 2, "one TracesData per line")
	total := 0
	for _, line := range lines {
		ltd := unmarshalJSON(t, []byte(line))
		ids := map[pcommon.TraceID]bool{}
		for _, sp := range spansOf(ltd) {
			ids[sp.TraceID()] = true
			total++
		}
		assert.Len(t, ids, 1, "one trace per line")
	}
	assert.Equal(t, td.SpanCount(), total, "lines hold the same spans as conversation.json")
}
