package converter_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// equalTimeLogs: one chat span and its history as the official
// @opentelemetry/instrumentation-openai 0.22.0 emits it
// (testdata/real/otel-instrumentation-openai/payloads/tool-loop.logs.json,
// the second call: four records sharing one timestamp), in emission order.
func equalTimeLogs() (ptrace.Traces, plog.Logs) {
	tid := pcommon.TraceID{1, 2, 3}
	sid := pcommon.SpanID{4, 5, 6}
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(tid)
	sp.SetSpanID(sid)
	sp.SetName("chat gpt-4o-mini")
	sp.Attributes().PutStr(semconv.OperationName, "chat")
	sp.Attributes().PutStr(semconv.RequestModel, "gpt-4o-mini")
	ld := plog.NewLogs()
	recs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	ts := pcommon.Timestamp(1795598341821000000)
	add := func(event string, body map[string]any) {
		lr := recs.AppendEmpty()
		lr.SetTraceID(tid)
		lr.SetSpanID(sid)
		lr.SetTimestamp(ts)
		lr.Attributes().PutStr(semconv.LogEventName, event)
		if err := lr.Body().SetEmptyMap().FromRaw(body); err != nil {
			panic(err)
		}
	}
	add(semconv.EventUserMessage, map[string]any{"content": "What is the weather in Paris today?"})
	add(semconv.EventAssistantMessage, map[string]any{"tool_calls": []any{map[string]any{"id": "call_weather_1", "type": "function",
		"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}})
	add(semconv.EventToolMessage, map[string]any{"id": "call_weather_1", "content": "18 degrees Celsius and sunny"})
	add(semconv.EventUserMessage, map[string]any{"content": "Thanks."})
	return td, ld
}

// The order of messages carried in log records with equal timestamps is
// the order they were emitted in, read directly and after the records are
// stored in an artifact and read back.
func TestLogsOrderEqualTimes(t *testing.T) {
	want := []string{"user:text", "assistant:tool_call", "tool:tool_call_response", "user:text"}
	shape := func(c semconv.Conversation) []string {
		var out []string
		for _, m := range c.Input {
			for _, p := range m.Parts {
				out = append(out, m.Role+":"+p.Type)
			}
		}
		return out
	}
	td, ld := equalTimeLogs()
	recs := converter.Records(td)
	logs := converter.LogRecords(ld)
	calls := converter.ModelCallsWithLogs(recs, logs)
	require.Len(t, calls, 1)
	assert.Equal(t, want, shape(calls[0].Conversation), "read directly")

	var buf bytes.Buffer
	w := converter.NewWriter(&buf, converter.MetaFor(recs))
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	for i := range logs {
		require.NoError(t, w.WriteLog(&logs[i]))
	}
	require.NoError(t, w.Close())
	var back []converter.LogRecord
	var got []converter.Record
	r := converter.NewReader(bytes.NewReader(buf.Bytes()), converter.WithLogs(func(l *converter.LogRecord) { back = append(back, *l) }))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got = append(got, *rec)
	}
	calls = converter.ModelCallsWithLogs(got, back)
	require.Len(t, calls, 1)
	assert.Equal(t, want, shape(calls[0].Conversation), "after the artifact")
}

// A model call without input takes its nearest ancestor's, and says so:
// the whole input when it is the only call below that ancestor, only the
// system and user messages when calls share it.
func TestModelCallsInherit(t *testing.T) {
	const history = `[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather?"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"get_weather","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"sunny"}]`
	build := func(chats int) []converter.Record {
		td := ptrace.NewTraces()
		spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
		tid := pcommon.TraceID{9}
		step := spans.AppendEmpty()
		step.SetTraceID(tid)
		step.SetSpanID(pcommon.SpanID{1})
		step.SetName("agent_step")
		// Mastra's key, testdata/real/mastra/payloads/tool-loop.traces.json.
		step.Attributes().PutStr("mastra.model_step.input", history)
		for i := range chats {
			sp := spans.AppendEmpty()
			sp.SetTraceID(tid)
			sp.SetSpanID(pcommon.SpanID{2, byte(i)})
			sp.SetParentSpanID(pcommon.SpanID{1})
			sp.SetName("chat gpt-4o-mini")
			sp.Attributes().PutStr(semconv.OperationName, "chat")
			sp.Attributes().PutStr(semconv.RequestModel, "gpt-4o-mini")
			sp.Attributes().PutStr(semconv.OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":"ok"}]}]`)
		}
		return converter.Records(td)
	}
	cases := []struct {
		name  string
		chats int
		roles []string
	}{
		{"only call below", 1, []string{"user", "assistant", "tool"}},
		{"calls share it", 2, []string{"user"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := converter.ModelCalls(build(tc.chats))
			require.Len(t, calls, tc.chats)
			for _, c := range calls {
				assert.Equal(t, pcommon.SpanID{1}, c.InheritedFrom)
				var roles []string
				for _, m := range c.Conversation.Input {
					roles = append(roles, m.Role)
				}
				assert.Equal(t, tc.roles, roles)
				require.Len(t, c.Conversation.System, 1)
				assert.Equal(t, "Be brief.", c.Conversation.System[0].Content)
			}
		})
	}
}

// A model call with no output takes its only-call ancestor's output when
// that output calls tools (Mastra records a step's tool calls on the
// agent step: testdata/real/mastra/payloads/tool-loop.traces.json), and
// never a wrapper's text.
func TestModelCallsInheritOutput(t *testing.T) {
	cases := []struct {
		name, stepOutput string
		want             []string // part types of the call's output
	}{
		{"tool calls", `{"text":"","toolCalls":[{"toolCallId":"c1","toolName":"get_weather","args":{"city":"Paris"}}]}`, []string{"tool_call"}},
		{"a wrapper's text", `{"text":"error 429","toolCalls":[]}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			td := ptrace.NewTraces()
			spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
			step := spans.AppendEmpty()
			step.SetTraceID(pcommon.TraceID{7})
			step.SetSpanID(pcommon.SpanID{1})
			step.SetName("agent_step")
			step.Attributes().PutStr("mastra.model_step.output", tc.stepOutput)
			sp := spans.AppendEmpty()
			sp.SetTraceID(pcommon.TraceID{7})
			sp.SetSpanID(pcommon.SpanID{2})
			sp.SetParentSpanID(pcommon.SpanID{1})
			sp.SetName("chat gpt-4o-mini")
			sp.Attributes().PutStr(semconv.OperationName, "chat")
			sp.Attributes().PutStr(semconv.RequestModel, "gpt-4o-mini")
			sp.Attributes().PutStr(semconv.OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":""}]}]`)
			calls := converter.ModelCalls(converter.Records(td))
			require.Len(t, calls, 1)
			var got []string
			for _, m := range calls[0].Conversation.Output {
				for _, p := range m.Parts {
					got = append(got, p.Type)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
