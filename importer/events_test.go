package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

func TestReadEventsFixtures(t *testing.T) {
	tests := []struct {
		file      string
		spans     int
		traces    int
		tools     []string
		toolErrs  map[string]string // tool name -> error.type
		rootCodes []string          // error.type of the roots, in emit order
		unknown   map[string]int64
	}{
		{
			file: "events.json", spans: 7, traces: 1,
			tools:     []string{"get_weather", "search_web", "book_table", ""},
			toolErrs:  map[string]string{"book_table": "tool_error"},
			rootCodes: []string{""},
			unknown:   map[string]int64{"heartbeat": 1},
		},
		{
			file: "events.jsonl", spans: 6, traces: 2,
			tools:     []string{"read_file"},
			rootCodes: []string{"", "rate_limited"},
		},
		{
			file: "events-cancelled.jsonl", spans: 6, traces: 1,
			tools:     []string{"lint", "run_tests", "fetch_docs"},
			toolErrs:  map[string]string{"run_tests": "cancelled", "fetch_docs": "cancelled"},
			rootCodes: []string{"cancelled"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			recs, st := importFixture(t, ReadEvents, tt.file)
			assert.Empty(t, st.Problems)
			assert.Equal(t, tt.unknown, st.Unknown)
			require.Len(t, recs, tt.spans)
			assertImported(t, recs)
			assert.Equal(t, tt.tools, toolNames(recs))

			traces := map[pcommon.TraceID]bool{}
			for _, r := range recs {
				traces[r.Span.TraceID()] = true
				if attr(r.Span, semconv.OperationName) == semconv.OpExecuteTool {
					code := tt.toolErrs[attr(r.Span, semconv.ToolName)]
					assert.Equal(t, code, attr(r.Span, semconv.ErrorType), r.Span.Name())
					assert.Equal(t, code != "", r.Span.Status().Code() == ptrace.StatusCodeError, r.Span.Name())
				}
			}
			assert.Len(t, traces, tt.traces)

			var codes []string
			for _, root := range byOp(recs, semconv.OpInvokeAgent) {
				codes = append(codes, attr(root.Span, semconv.ErrorType))
				assert.True(t, root.Span.ParentSpanID().IsEmpty())
				assert.Equal(t, traceIDFor(Events, attr(root.Span, semconv.ConversationID)), root.Span.TraceID())
			}
			assert.Equal(t, tt.rootCodes, codes)
			for _, r := range recs {
				if attr(r.Span, semconv.OperationName) != semconv.OpInvokeAgent {
					assert.False(t, r.Span.ParentSpanID().IsEmpty(), "%s has a parent", r.Span.Name())
				}
			}
			assertRoundTrip(t, recs)
		})
	}
}

func TestReadEventsArray(t *testing.T) {
	recs, _ := importFixture(t, ReadEvents, "events.json")

	root := byOp(recs, semconv.OpInvokeAgent)[0].Span
	assert.Equal(t, "invoke_agent", root.Name())
	assert.Equal(t, "1042", attr(root, semconv.ConversationID))
	assert.Equal(t, "5b0e7c3a-91d2-4c8e-a1f4-2e6b9d0c7a15", attr(root, "agenttrace.source_trace_id"))
	assert.Equal(t, "5317", attr(root, "agenttrace.user_message_id"))
	assert.Equal(t, ts("2026-05-04T10:00:00Z"), root.StartTimestamp())
	assert.Equal(t, ts("2026-05-04T10:00:05Z"), root.EndTimestamp())
	assert.Equal(t, ptrace.StatusCodeUnset, root.Status().Code())
	assert.Equal(t, root.SpanID(), recs[len(recs)-1].Span.SpanID(), "the root ends last")

	weather := byAttr(t, recs, semconv.ToolCallID, "call_1").Span
	assert.Equal(t, "execute_tool get_weather", weather.Name())
	assert.Equal(t, `{"city":"Paris","unit":"C"}`, attr(weather, semconv.ToolCallArguments))
	assert.Equal(t, `{"temp_c":18,"sky":"cloudy"}`, attr(weather, semconv.ToolCallResult))
	assert.Equal(t, ts("2026-05-04T10:00:00.8Z"), weather.StartTimestamp())
	assert.Equal(t, ts("2026-05-04T10:00:02Z"), weather.EndTimestamp())
	assert.False(t, hasAttr(weather, "agenttrace.truncated"))
	assert.Equal(t, root.SpanID(), weather.ParentSpanID())

	search := byAttr(t, recs, semconv.ToolCallID, "call_2").Span
	v, ok := search.Attributes().Get("agenttrace.truncated")
	require.True(t, ok)
	assert.Equal(t, pcommon.ValueTypeBool, v.Type())
	assert.True(t, v.Bool())
	v, ok = search.Attributes().Get("agenttrace.full_length")
	require.True(t, ok)
	assert.Equal(t, pcommon.ValueTypeInt, v.Type())
	assert.EqualValues(t, 48213, v.Int())
	assert.True(t, strings.HasPrefix(attr(search, semconv.ToolCallResult), "1. Jazz at Sunset"))

	booked := byAttr(t, recs, semconv.ToolCallID, "call_3").Span
	assert.Equal(t, ptrace.StatusCodeError, booked.Status().Code())
	assert.Equal(t, "restaurant fully booked at 19:30", booked.Status().Message())
	assert.Equal(t, "tool_error", attr(booked, semconv.ErrorType))

	// No tool_start: the duration gives the start, the span has no tool name.
	fx := byAttr(t, recs, semconv.ToolCallID, "call_4").Span
	assert.Equal(t, "execute_tool", fx.Name())
	assert.Equal(t, ts("2026-05-04T10:00:04.1Z")-pcommon.Timestamp(350*time.Millisecond), fx.StartTimestamp())
	assert.Equal(t, "1 EUR = 1.08 USD", attr(fx, semconv.ToolCallResult))

	chats := byOp(recs, semconv.OpChat)
	require.Len(t, chats, 2)
	assert.Equal(t, ptrace.SpanKindClient, chats[0].Span.Kind())
	assert.Equal(t, ts("2026-05-04T10:00:00Z"), chats[0].Span.StartTimestamp())
	assert.Equal(t, ts("2026-05-04T10:00:00.8Z"), chats[0].Span.EndTimestamp(), "a turn ends at its tool call")
	assert.JSONEq(t, `[{"role":"assistant","finish_reason":"tool_call","parts":[
		{"type":"reasoning","content":"The user wants the weather in Paris and a dinner table. I should call get_weather first."},
		{"type":"text","content":"Let me check the weather."}]}]`, attr(chats[0].Span, semconv.OutputMessages))
	assert.False(t, hasAttr(chats[0].Span, semconv.ResponseID))
	assert.Equal(t, "5318", attr(chats[1].Span, semconv.ResponseID))
	assert.JSONEq(t, `[{"role":"assistant","finish_reason":"stop","parts":[
		{"type":"text","content":"It is 18 °C and cloudy in Paris. Le Petit Zinc is fully booked at 19:30 — shall I try 21:00?"}]}]`,
		attr(chats[1].Span, semconv.OutputMessages))
	for _, c := range chats {
		assert.False(t, hasAttr(c.Span, semconv.UsageInputTokens), "the shape has no usage")
	}

	// GenAI classification of what was built.
	var rd semconv.Reading
	kinds := map[string]semconv.Kind{}
	for _, r := range recs {
		r.Read(&rd)
		kinds[attr(r.Span, semconv.OperationName)] = rd.Kind
	}
	assert.Equal(t, map[string]semconv.Kind{"invoke_agent": semconv.Agent, "chat": semconv.Inference, "execute_tool": semconv.Call}, kinds)
}

func TestReadEventsLines(t *testing.T) {
	recs, _ := importFixture(t, ReadEvents, "events.jsonl")

	read := byAttr(t, recs, semconv.ToolName, "read_file").Span
	assert.Equal(t, "server:\n  port: 8080\n  host: 127.0.0.1\n", attr(read, semconv.ToolCallResult), "output chunks concatenate")

	b := byAttr(t, recs, semconv.ConversationID, "conv-b").Span
	assert.Equal(t, ptrace.StatusCodeError, b.Status().Code())
	assert.Equal(t, "429 Too Many Requests from the model provider", b.Status().Message())
	assert.Equal(t, "rate_limited", attr(b, semconv.ErrorType))
	require.Equal(t, 1, b.Events().Len())
	ev := b.Events().At(0)
	assert.Equal(t, "exception", ev.Name())
	assert.Equal(t, ts("2026-05-04T11:00:00.6Z"), ev.Timestamp())
	et, _ := ev.Attributes().Get("exception.type")
	assert.Equal(t, "rate_limited", et.Str())
	assert.Equal(t, ts("2026-05-04T11:00:00.1Z"), b.StartTimestamp())
	assert.Equal(t, ts("2026-05-04T11:00:00.6Z"), b.EndTimestamp())

	var bChat ptrace.Span
	for _, c := range byOp(recs, semconv.OpChat) {
		if c.Span.TraceID() == b.TraceID() {
			bChat = c.Span
		}
	}
	assert.JSONEq(t, `[{"role":"assistant","finish_reason":"error","parts":[{"type":"text","content":"Summarising the thread…"}]}]`,
		attr(bChat, semconv.OutputMessages))

	a := byAttr(t, recs, semconv.ConversationID, "conv-a").Span
	assert.NotEqual(t, a.TraceID(), b.TraceID())
	assert.Equal(t, ptrace.StatusCodeUnset, a.Status().Code())
}

func TestReadEventsCancelled(t *testing.T) {
	recs, _ := importFixture(t, ReadEvents, "events-cancelled.jsonl")
	cancelledAt := ts("2026-05-04T12:00:03Z")
	for _, id := range []string{"t1", "t3"} {
		sp := byAttr(t, recs, semconv.ToolCallID, id).Span
		assert.Equal(t, ptrace.StatusCodeError, sp.Status().Code(), id)
		assert.Equal(t, "user pressed stop", sp.Status().Message(), id)
		assert.Equal(t, "cancelled", attr(sp, semconv.ErrorType), id)
		assert.Equal(t, cancelledAt, sp.EndTimestamp(), id)
	}
	assert.Equal(t, "collected 42 items\n", attr(byAttr(t, recs, semconv.ToolCallID, "t1").Span, semconv.ToolCallResult))
	assert.Equal(t, `{"topic":"flaky tests"}`, attr(byAttr(t, recs, semconv.ToolCallID, "t3").Span, semconv.ToolCallArguments),
		"string tool_args are kept as they are")
	assert.Equal(t, `{"paths":["cmd","internal"]}`, attr(byAttr(t, recs, semconv.ToolCallID, "t2").Span, semconv.ToolCallArguments))

	root := byOp(recs, semconv.OpInvokeAgent)[0].Span
	assert.Equal(t, ptrace.StatusCodeError, root.Status().Code())
	assert.Equal(t, "cancelled", attr(root, semconv.ErrorType))
	assert.Equal(t, "user pressed stop", root.Status().Message())
	assert.Equal(t, cancelledAt, root.EndTimestamp())

	chats := byOp(recs, semconv.OpChat)
	require.Len(t, chats, 2)
	assert.Equal(t, "msg_c9", attr(chats[1].Span, semconv.ResponseID), "the partial message")
	assert.JSONEq(t, `[{"role":"assistant","finish_reason":"cancelled","parts":[{"type":"text","content":"Still waiting on"}]}]`,
		attr(chats[1].Span, semconv.OutputMessages))
}

// The array and the line form of the same events give the same spans.
func TestReadEventsArrayEqualsLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shapesDir, "events.json"))
	require.NoError(t, err)
	var evs []json.RawMessage
	require.NoError(t, json.Unmarshal(data, &evs))
	var lines bytes.Buffer
	for _, e := range evs {
		require.NoError(t, json.Compact(&lines, e))
		lines.WriteByte('\n')
	}
	fromArray, _ := importBytes(t, ReadEvents, "a", data)
	fromLines, _ := importBytes(t, ReadEvents, "l", lines.Bytes())
	assert.Equal(t, spansOf(fromArray),
		spansOf(fromLines))
}

func TestReadEventsDeterministic(t *testing.T) {
	for _, f := range []string{"events.json", "events.jsonl", "events-cancelled.jsonl"} {
		a, _ := importFixture(t, ReadEvents, f)
		b, _ := importFixture(t, ReadEvents, f)
		require.Equal(t, len(a), len(b))
		ids := map[pcommon.SpanID]bool{}
		for i := range a {
			assert.Equal(t, a[i].Span.TraceID(), b[i].Span.TraceID(), f)
			assert.Equal(t, a[i].Span.SpanID(), b[i].Span.SpanID(), f)
			assert.False(t, ids[a[i].Span.SpanID()], "span ids are distinct")
			ids[a[i].Span.SpanID()] = true
		}
	}
}

func TestReadEventsProblems(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		spans    int
		problems []int // line numbers
		unknown  map[string]int64
	}{
		{
			name:     "bad lines are skipped",
			in:       "{\"type\":\"text\",\"conversation_id\":\"c\",\"timestamp\":1777888800000,\"content\":\"hi\"}\nnot json\n\n{\"conversation_id\":\"c\"}\n{\"type\":\"final\",\"conversation_id\":\"c\",\"timestamp\":1777888801000}\n",
			spans:    2,
			problems: []int{2, 4},
		},
		{
			name:     "a bad time is reported, the event kept",
			in:       `{"type":"tool_start","conversation_id":"c","timestamp":"yesterday","tool_call_id":"x","tool_name":"t"}` + "\n",
			spans:    2,
			problems: []int{1},
		},
		{
			name:     "a field of the wrong type is reported, the event kept",
			in:       `{"type":"tool_start","conversation_id":"c","timestamp":"2026-05-04T10:00:00Z","tool_call_id":5,"tool_name":"t"}` + "\n",
			spans:    2,
			problems: []int{1},
		},
		{
			name:     "array with a bad element",
			in:       "[\n {\"type\":\"text\",\"conversation_id\":\"c\",\"content\":\"a\"},\n 42,\n {\"type\":\"final\",\"conversation_id\":\"c\"}\n]",
			spans:    2,
			problems: []int{3},
		},
		{
			name:     "array cut short",
			in:       "[\n {\"type\":\"text\",\"conversation_id\":\"c\",\"content\":\"a\"},\n {\"type\":\"fin",
			spans:    2,
			problems: []int{3},
		},
		{
			name:    "unknown types are counted",
			in:      `{"type":"ping","conversation_id":"c"}` + "\n" + `{"type":"ping"}` + "\n" + `{"type":"usage","conversation_id":"c"}`,
			unknown: map[string]int64{"ping": 2, "usage": 1},
		},
		{name: "empty", in: ""},
		{name: "blank", in: " \n\n"},
		{name: "empty array", in: "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st := importBytes(t, ReadEvents, "in.jsonl", []byte(tt.in))
			assert.Len(t, recs, tt.spans)
			assertSane(t, recs)
			assert.Equal(t, tt.problems, problemLines(t, st, "in.jsonl"), "%v", st.Problems)
			assert.Equal(t, tt.unknown, st.Unknown)
		})
	}
}

func TestReadEventsEdgeCases(t *testing.T) {
	t.Run("a conversation that goes on after final is a second root in the same trace", func(t *testing.T) {
		in := `{"type":"text","conversation_id":"c","timestamp":"2026-05-04T10:00:00Z","content":"one"}
{"type":"final","conversation_id":"c","timestamp":"2026-05-04T10:00:01Z","message_id":"m1"}
{"type":"text","conversation_id":"c","timestamp":"2026-05-04T10:01:00Z","content":"two"}
{"type":"final","conversation_id":"c","timestamp":"2026-05-04T10:01:01Z","message_id":"m2"}
`
		recs, _ := importBytes(t, ReadEvents, "x", []byte(in))
		roots := byOp(recs, semconv.OpInvokeAgent)
		require.Len(t, roots, 2)
		assert.Equal(t, roots[0].Span.TraceID(), roots[1].Span.TraceID())
		assert.NotEqual(t, roots[0].Span.SpanID(), roots[1].Span.SpanID())
		chats := byOp(recs, semconv.OpChat)
		require.Len(t, chats, 2)
		assert.NotEqual(t, chats[0].Span.SpanID(), chats[1].Span.SpanID())
		assert.Equal(t, roots[1].Span.SpanID(), chats[1].Span.ParentSpanID())
	})
	t.Run("a stream that just ends leaves its open calls as incomplete errors", func(t *testing.T) {
		in := `{"type":"tool_start","conversation_id":"c","timestamp":1777888800,"tool_call_id":"x","tool_name":"sleep","tool_args":{"s":60}}`
		recs, _ := importBytes(t, ReadEvents, "x", []byte(in))
		require.Len(t, recs, 2)
		call := byOp(recs, semconv.OpExecuteTool)[0].Span
		assert.Equal(t, "incomplete", attr(call, semconv.ErrorType))
		assert.Equal(t, ptrace.StatusCodeError, call.Status().Code())
		assert.Equal(t, ts("2026-05-04T10:00:00Z"), call.StartTimestamp(), "epoch seconds")
	})
	t.Run("a second tool_start with one id ends the first", func(t *testing.T) {
		in := `{"type":"tool_start","conversation_id":"c","tool_call_id":"x","tool_name":"a"}
{"type":"tool_start","conversation_id":"c","tool_call_id":"x","tool_name":"b"}
{"type":"tool_end","conversation_id":"c","tool_call_id":"x","status":"success"}`
		recs, _ := importBytes(t, ReadEvents, "x", []byte(in))
		assert.Equal(t, []string{"a", "b"}, toolNames(recs))
		calls := byOp(recs, semconv.OpExecuteTool)
		assert.Equal(t, "incomplete", attr(calls[0].Span, semconv.ErrorType))
		assert.NotEqual(t, calls[0].Span.SpanID(), calls[1].Span.SpanID())
	})
	t.Run("a whole text after its chunks replaces them", func(t *testing.T) {
		in := `{"type":"text","conversation_id":"c","content":"Hel","delta":true}
{"type":"text","conversation_id":"c","content":"lo","delta":true}
{"type":"text","conversation_id":"c","content":"Hello there"}
{"type":"text","conversation_id":"c","content":"Bye"}
{"type":"final","conversation_id":"c"}`
		recs, _ := importBytes(t, ReadEvents, "x", []byte(in))
		assert.JSONEq(t, `[{"role":"assistant","finish_reason":"stop","parts":[{"type":"text","content":"Hello there"},{"type":"text","content":"Bye"}]}]`,
			attr(byOp(recs, semconv.OpChat)[0].Span, semconv.OutputMessages))
	})
	t.Run("non-string outputs are kept as JSON", func(t *testing.T) {
		in := `{"type":"tool_start","conversation_id":"c","tool_call_id":"x","tool_name":"q"}
{"type":"tool_output","conversation_id":"c","tool_call_id":"x","output":{"rows":1}}
{"type":"tool_output","conversation_id":"c","tool_call_id":"x","output":"done"}
{"type":"tool_end","conversation_id":"c","tool_call_id":"x","status":"success"}`
		recs, _ := importBytes(t, ReadEvents, "x", []byte(in))
		assert.Equal(t, `[{"rows":1},"done"]`, attr(byOp(recs, semconv.OpExecuteTool)[0].Span, semconv.ToolCallResult))
	})
}

func TestEventTime(t *testing.T) {
	want := uint64(ts("2026-05-04T10:00:00Z"))
	for _, in := range []string{`"2026-05-04T10:00:00Z"`, `"2026-05-04T12:00:00+02:00"`, `"2026-05-04T10:00:00"`, `"2026-05-04 10:00:00"`,
		`1777888800`, `1777888800000`, `1777888800000000`, `1777888800000000000`, `"1777888800000"`, `"2026-05-04 12:00:00+0200"`} {
		got, ok, err := eventTime(json.RawMessage(in))
		require.NoError(t, err, in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{`"soon"`, `-5`, `"1960-01-01T00:00:00Z"`, `"2262-06-01T00:00:00Z"`, `{}`} {
		_, ok, err := eventTime(json.RawMessage(in))
		assert.Error(t, err, in)
		assert.False(t, ok, in)
	}
	for _, in := range []string{``, `null`, `""`} {
		_, ok, err := eventTime(json.RawMessage(in))
		assert.NoError(t, err, "no time: %s", in)
		assert.False(t, ok, in)
	}
}

func FuzzEvents(f *testing.F) {
	for _, name := range []string{"events.json", "events.jsonl", "events-cancelled.jsonl", "events-stored.json",
		"events-rows.jsonl", "events-sse.txt"} {
		data, err := os.ReadFile(filepath.Join(shapesDir, name))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"type":"tool_end","conversation_id":"c","tool_call_id":"x","duration_ms":1e300,"timestamp":5}`))
	f.Add([]byte(`[{"type":"cancelled"},{"type":"error"}]`))
	f.Fuzz(func(t *testing.T, data []byte) { checkFuzz(t, ReadEvents, data) })
}

// BenchmarkEvents imports ~10 MB of streaming events, one a line: tool
// calls with their output and text deltas, a conversation after another.
func BenchmarkEvents(b *testing.B) {
	var buf bytes.Buffer
	lines := 0
	w := func(format string, args ...any) { fmt.Fprintf(&buf, format+"\n", args...); lines++ }
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 8)
	for i := 0; buf.Len() < 10<<20; i++ {
		c, ts := "conv-"+strconv.Itoa(i), 1777888800000+int64(i)*1000
		w(`{"type":"text","conversation_id":%q,"timestamp":%d,"content":%q,"delta":true}`, c, ts, text)
		w(`{"type":"tool_start","conversation_id":%q,"timestamp":%d,"tool_call_id":"t%d","tool_name":"read_file","tool_args":{"path":"src/f%d.go"}}`, c, ts+100, i, i)
		w(`{"type":"tool_output","conversation_id":%q,"timestamp":%d,"tool_call_id":"t%d","output":%q}`, c, ts+200, i, text+text)
		w(`{"type":"tool_end","conversation_id":%q,"timestamp":%d,"tool_call_id":"t%d","status":"success","duration_ms":200}`, c, ts+300, i)
		w(`{"type":"final","conversation_id":%q,"timestamp":%d,"message_id":"m%d"}`, c, ts+400, i)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		st, err := ReadEvents(bytes.NewReader(data), "bench", func(*artifact.Record) error { return nil })
		if err != nil || len(st.Problems) > 0 {
			b.Fatal(err, st.Problems)
		}
	}
	b.ReportMetric(float64(lines), "lines")
}

// The line form holds only open conversations: finished ones are let go
// as they end.
func TestReadEventsStreamsLines(t *testing.T) {
	pr, pw := io.Pipe()
	const n = 2000
	go func() {
		for i := range n {
			c := "conv-" + strconv.Itoa(i)
			_, _ = io.WriteString(pw, `{"type":"tool_start","conversation_id":"`+c+`","tool_call_id":"t","tool_name":"grep"}`+"\n"+
				`{"type":"tool_end","conversation_id":"`+c+`","tool_call_id":"t","status":"success"}`+"\n"+
				`{"type":"text","conversation_id":"`+c+`","content":"done"}`+"\n"+
				`{"type":"final","conversation_id":"`+c+`"}`+"\n")
		}
		_ = pw.Close()
	}()
	most := 0
	var st *eventsState
	st = newEventsState("pipe", func(*artifact.Record) error {
		most = max(most, len(st.convs))
		return nil
	})
	require.NoError(t, st.readLines(artifact.NewLineReader(pr, artifact.DefaultMaxLineSize)))
	assert.EqualValues(t, 3*n, st.stats.Records)
	assert.Equal(t, 1, most, "one conversation open at a time")
	assert.Empty(t, st.convs)
	assert.Empty(t, st.order)
}

// TestReadEventsSeedShapes: the shapes seed 003 itself describes — its
// stored trace object, a row of its agent_traces table per line, the
// server-sent events its app streams, conversation and message ids that
// are numbers (its TypeScript types), events that name no conversation —
// read without loss.
func TestReadEventsSeedShapes(t *testing.T) {
	t.Run("stored object", func(t *testing.T) {
		recs, st := importFixture(t, ReadEvents, "events-stored.json")
		assertImported(t, recs)
		assert.Empty(t, st.Problems)
		require.Len(t, recs, 3)
		call := byOp(recs, semconv.OpExecuteTool)[0].Span
		assert.Equal(t, "grep_search", attr(call, semconv.ToolName))
		assert.Equal(t, `{"query":"TODO"}`, attr(call, semconv.ToolCallArguments))
		assert.Equal(t, "Found 12 matches...", attr(call, semconv.ToolCallResult))
		assert.Equal(t, "4523", attr(call, attrFullLength))
		assert.Equal(t, ts("2026-01-22T10:30:00.123Z"), call.StartTimestamp())
		chat := byOp(recs, semconv.OpChat)[0].Span
		assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"text","content":"Here's a summary..."}]}]`,
			attr(chat, semconv.OutputMessages))
		root := byOp(recs, semconv.OpInvokeAgent)[0].Span
		assert.Equal(t, call.ParentSpanID(), root.SpanID())
		assert.Equal(t, chat.ParentSpanID(), root.SpanID())
	})
	t.Run("rows", func(t *testing.T) {
		recs, st := importFixture(t, ReadEvents, "events-rows.jsonl")
		assertImported(t, recs)
		assert.Empty(t, st.Problems)
		roots := byOp(recs, semconv.OpInvokeAgent)
		require.Len(t, roots, 2, "one root per row")
		done, cut := roots[0].Span, roots[1].Span
		assert.Equal(t, "31", attr(done, semconv.ConversationID))
		assert.Equal(t, "6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b", attr(done, attrSourceTraceID))
		assert.Equal(t, "902", attr(byOp(recs, semconv.OpChat)[0].Span, semconv.ResponseID))
		assert.Equal(t, "902", attr(done, "agenttrace.events.message_id"))
		assert.Equal(t, "901", attr(done, attrUserMessageID))
		assert.Equal(t, "CMSCompOpsAgent", attr(done, "agenttrace.events.pipeline_name"))
		assert.Equal(t, "completed", attr(done, "agenttrace.events.status"))
		assert.Equal(t, ptrace.StatusCodeUnset, done.Status().Code())
		assert.Equal(t, "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d", attr(cut, attrSourceTraceID))
		assert.Equal(t, "31", attr(cut, semconv.ConversationID), "the cancelled event names no conversation: it is the row's")
		assert.Equal(t, errCancelled, attr(cut, semconv.ErrorType))
		call := byAttr(t, recs, semconv.ToolCallID, "call_b").Span
		assert.Equal(t, errCancelled, attr(call, semconv.ErrorType), "the cancelled run's open call is cancelled, not incomplete")
		assert.Equal(t, cut.SpanID(), call.ParentSpanID())
	})
	t.Run("server-sent events", func(t *testing.T) {
		recs, st := importFixture(t, ReadEvents, "events-sse.txt")
		assertImported(t, recs)
		assert.Empty(t, st.Problems)
		assert.Empty(t, st.Unknown)
		require.Len(t, recs, 4)
		root := byOp(recs, semconv.OpInvokeAgent)[0].Span
		assert.Equal(t, "57", attr(root, semconv.ConversationID))
		assert.Equal(t, "9d8c7b6a-5f4e-4d3c-2b1a-0f9e8d7c6b5a", attr(root, attrSourceTraceID))
		chats := byOp(recs, semconv.OpChat)
		require.Len(t, chats, 2)
		assert.Equal(t, "4410", attr(chats[1].Span, semconv.ResponseID))
		assert.Contains(t, attr(chats[1].Span, semconv.OutputMessages), "One TODO: add validation in config.py.")
	})
	runSmall(t, ReadEvents, []smallCase{
		{"numeric conversation ids are one conversation with their string form",
			`{"type":"text","conversation_id":7,"content":"a","timestamp":1}` + "\n" +
				`{"type":"final","conversation_id":"7","message_id":12,"user_message_id":11,"timestamp":2}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Empty(t, st.Problems)
				require.Len(t, recs, 2)
				assert.Equal(t, "7", attr(recs[1].Span, semconv.ConversationID))
				assert.Equal(t, "12", attr(recs[0].Span, semconv.ResponseID))
				assert.Equal(t, "11", attr(recs[1].Span, attrUserMessageID))
			}},
		{"an event without a conversation belongs to the one before",
			`{"type":"tool_start","conversation_id":3,"tool_call_id":"a","tool_name":"x","timestamp":1}` + "\n" +
				`{"type":"cancelled","reason":"user"}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Empty(t, st.Problems)
				require.Len(t, recs, 2)
				assert.Equal(t, errCancelled, attr(recs[0].Span, semconv.ErrorType))
				assert.Equal(t, "3", attr(recs[1].Span, semconv.ConversationID))
			}},
		{"a stored object without an events array is reported",
			"{\n\"trace_id\": \"x\"\n}\n",
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Empty(t, recs)
				assert.Equal(t, []int{1}, problemLines(t, st, "small"))
			}},
		{"a bad event in a stored object is reported with its line",
			"{\"events\": [\n{\"type\":\"text\",\"content\":\"a\"},\n7,\n{\"type\":\"text\",\"content\":\"b\"}\n]}",
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Equal(t, []int{3}, problemLines(t, st, "small"))
				require.Len(t, recs, 2)
			}},
	})
}
