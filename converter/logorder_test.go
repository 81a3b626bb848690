package converter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
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

// equalTimeEvents: the same call with its history as span events (the
// per-message events of the GenAI conventions v1.28 to v1.36, as
// OpenLLMetry and Strands write them), the four events sharing one
// timestamp, in emission order.
func equalTimeEvents() ptrace.Traces {
	td, ld := equalTimeLogs()
	sp := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	for _, lr := range ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
		ev := sp.Events().AppendEmpty()
		name, _ := lr.Attributes().Get(semconv.LogEventName)
		ev.SetName(name.Str())
		ev.SetTimestamp(lr.Timestamp())
		lr.Body().Map().CopyTo(ev.Attributes())
	}
	return td
}

// equalTimeFlat: the same history flattened one member per attribute
// (OpenInference's llm.input_messages.<i>.message.*), the attributes
// written in reverse order of their index: the index, not the
// attributes' order, is the message's place.
func equalTimeFlat() ptrace.Traces {
	td, _ := equalTimeLogs()
	a := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	const p = "llm.input_messages."
	a.PutStr(p+"3.message.role", "user")
	a.PutStr(p+"3.message.content", "Thanks.")
	a.PutStr(p+"2.message.role", "tool")
	a.PutStr(p+"2.message.tool_call_id", "call_weather_1")
	a.PutStr(p+"2.message.content", "18 degrees Celsius and sunny")
	a.PutStr(p+"1.message.role", "assistant")
	a.PutStr(p+"1.message.tool_calls.0.tool_call.id", "call_weather_1")
	a.PutStr(p+"1.message.tool_calls.0.tool_call.function.name", "get_weather")
	a.PutStr(p+"1.message.tool_calls.0.tool_call.function.arguments", `{"city":"Paris"}`)
	a.PutStr(p+"10.message.role", "user") // after 3, though "10" sorts before "3" as text
	a.PutStr(p+"10.message.content", "And tomorrow?")
	a.PutStr(p+"0.message.role", "user")
	a.PutStr(p+"0.message.content", "What is the weather in Paris today?")
	return td
}

// The history of a model call keeps the order the source emitted it in
// when its messages share one timestamp: log records (their position in
// the batch), span events (their position in the span), flattened
// attributes (their index). Read directly, after the records are stored
// in an artifact and read back, and in the page's view model
// (viewer.WriteRunJSON, what the page renders).
func TestHistoryOrderEqualTimes(t *testing.T) {
	want := []string{"user:text", "assistant:tool_call", "tool:tool_call_response", "user:text"}
	logTD, ld := equalTimeLogs()
	cases := []struct {
		name string
		td   ptrace.Traces
		logs []artifact.LogRecord
		want []string
	}{
		{"log records", logTD, artifact.LogRecords(ld), want},
		{"span events", equalTimeEvents(), nil, want},
		{"flattened attributes", equalTimeFlat(), nil, append(slices.Clone(want), "user:text")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := artifact.Records(tc.td)
			calls := converter.ModelCallsWithLogs(recs, tc.logs)
			require.Len(t, calls, 1)
			assert.Equal(t, tc.want, shape(calls[0].Conversation.Input), "read directly")

			got, back := roundTrip(t, recs, tc.logs)
			calls = converter.ModelCallsWithLogs(got, back)
			require.Len(t, calls, 1)
			assert.Equal(t, tc.want, shape(calls[0].Conversation.Input), "after the artifact")

			var page bytes.Buffer
			require.NoError(t, viewer.WriteRunJSON(&page, viewer.Run{Name: "run", Records: converter.LogsAsEvents(got, back)}))
			var view struct {
				Records []struct {
					Conversation struct {
						Input []semconv.Message `json:"input"`
					} `json:"conversation"`
				} `json:"records"`
			}
			require.NoError(t, json.Unmarshal(page.Bytes(), &view))
			require.Len(t, view.Records, 1)
			assert.Equal(t, tc.want, shape(view.Records[0].Conversation.Input), "the page's view model")
		})
	}
}

// shape is a history's roles and part types, in order.
func shape(ms []semconv.Message) []string {
	var out []string
	for _, m := range ms {
		for _, p := range m.Parts {
			out = append(out, m.Role+":"+p.Type)
		}
	}
	return out
}

// roundTrip writes recs and logs to an artifact and reads them back.
func roundTrip(t *testing.T, recs []artifact.Record, logs []artifact.LogRecord) ([]artifact.Record, []artifact.LogRecord) {
	t.Helper()
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, artifact.MetaFor(recs))
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	for i := range logs {
		require.NoError(t, w.WriteLog(&logs[i]))
	}
	require.NoError(t, w.Close())
	var back []artifact.LogRecord
	var got []artifact.Record
	r := artifact.NewReader(bytes.NewReader(buf.Bytes()), artifact.WithLogs(func(l *artifact.LogRecord) { back = append(back, *l) }))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got = append(got, *rec)
	}
	return got, back
}

// A model call without input takes its nearest ancestor's, and says so:
// the whole input when it is the only call below that ancestor, only the
// system and user messages when calls share it.
func TestModelCallsInherit(t *testing.T) {
	const history = `[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather?"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"get_weather","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"sunny"}]`
	build := func(chats int) []artifact.Record {
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
		return artifact.Records(td)
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
			calls := converter.ModelCalls(artifact.Records(td))
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
