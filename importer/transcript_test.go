package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

func TestReadTranscriptFixtures(t *testing.T) {
	t.Parallel()
	cases := []fixtureCase{
		{
			file: "transcript.jsonl", read: ReadTranscript, traces: 1, records: 7,
			calls: 3, inferences: 3, agents: 1, errors: 1,
			// input includes the cached tokens: (1200+0+3000) + (150+4200+0) + (90+4500+300)
			tokens:     artifact.Tokens{Input: 13440, Output: 265, CacheRead: 8700, CacheCreation: 3300},
			tools:      []string{"read_file", "edit_file", "run_tests"},
			errorSpans: []string{"execute_tool run_tests: tool_error"},
			tree: []string{
				"chat claude-sonnet-4-5 <- invoke_agent shopbot",
				"chat claude-sonnet-4-5 <- invoke_agent shopbot",
				"chat claude-sonnet-4-5 <- invoke_agent shopbot",
				"execute_tool edit_file <- invoke_agent shopbot",
				"execute_tool read_file <- invoke_agent shopbot",
				"execute_tool run_tests <- invoke_agent shopbot",
				"invoke_agent shopbot <- ",
			},
		},
		{
			file: "transcript-edge.jsonl", read: ReadTranscript, traces: 2, records: 7,
			calls: 2, inferences: 3, agents: 2, errors: 2,
			// openai's input already includes its cached 300; anthropic's 20 does not (+100)
			tokens:     artifact.Tokens{Input: 620, Output: 50, CacheRead: 400},
			tools:      []string{"list_dir", "fetch_url"},
			errorSpans: []string{"chat gpt-4.1: incomplete", "execute_tool fetch_url: incomplete"},
			tree: []string{
				"chat claude-haiku-4-5 <- invoke_agent",
				"chat gpt-4.1 <- invoke_agent",
				"chat gpt-4.1 <- invoke_agent",
				"execute_tool fetch_url <- invoke_agent",
				"execute_tool list_dir <- invoke_agent",
				"invoke_agent <- ",
				"invoke_agent <- ",
			},
			unknown:  map[string]int64{"ui.rendered": 1, "telemetry.flushed": 1},
			problems: []int{6, 17},
		},
	}
	checkFixtures(t, cases)
}

func TestReadTranscriptDetails(t *testing.T) {
	t.Parallel()
	recs, _ := importFixture(t, ReadTranscript, "transcript.jsonl")
	root := byName(recs, "invoke_agent shopbot")
	require.Len(t, root, 1)
	assert.Equal(t, "invoke_agent shopbot", recs[len(recs)-1].Span.Name(), "the root comes last")
	rs := root[0]
	assert.Equal(t, "sess_7f3a9c", attr(rs, semconv.ConversationID))
	assert.Equal(t, "shopbot", attr(rs, semconv.AgentName))
	assert.Equal(t, ts("2026-05-04T10:00:00Z"), rs.StartTimestamp())
	assert.Equal(t, ts("2026-05-04T10:00:12.020Z"), rs.EndTimestamp())
	var evs []string
	for _, ev := range rs.Events().All() {
		evs = append(evs, ev.Name())
	}
	assert.Equal(t, []string{"session.started", "system.section.added", "tools.added", "tools.added", "tools.added",
		"state.patched", "system.section.removed", "tools.removed"}, evs)
	state := rs.Events().At(5)
	assert.Equal(t, ts("2026-05-04T10:00:03.630Z"), state.Timestamp())
	assert.JSONEq(t, `{"op":"replace","path":"/open_files","value":["shop/pricing.py"]}`, mapAttr(state.Attributes(), transcriptAttrPayload))
	assert.Equal(t, "evt_0006", mapAttr(state.Attributes(), transcriptAttrRecordID))

	chats := byName(recs, "chat claude-sonnet-4-5")
	require.Len(t, chats, 3)
	c1 := chats[0]
	assert.Equal(t, ptrace.SpanKindClient, c1.Kind())
	assert.Equal(t, ts("2026-05-04T10:00:01.100Z"), c1.StartTimestamp(), "response time - latency")
	assert.Equal(t, ts("2026-05-04T10:00:03.500Z"), c1.EndTimestamp())
	a := c1.Attributes()
	assert.Equal(t, "anthropic", attr(c1, semconv.ProviderName))
	assert.Equal(t, "claude-sonnet-4-5", attr(c1, semconv.RequestModel))
	assert.Equal(t, `["tool_use"]`, attr(c1, semconv.ResponseFinishReasons))
	for k, v := range map[string]int64{semconv.RequestMaxTokens: 8192, semconv.UsageInputTokens: 4200, semconv.UsageOutputTokens: 85,
		semconv.UsageCacheReadInput: 0, semconv.UsageCacheCreationInput: 3000, transcriptAttrTurn: 1} {
		v2, ok := a.Get(k)
		require.True(t, ok, k)
		assert.Equal(t, v, v2.Int(), k)
	}
	assert.Equal(t, "3b1f0c9d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c", attr(c1, "agenttrace.transcript.system_sha256"))
	assert.JSONEq(t, `[{"role":"user","parts":[{"type":"text","content":"The discount test fails, please fix it."},{"type":"text","content":"Remember: run the tests before you finish.","source":"reminder"}]}]`,
		attr(c1, semconv.InputMessages))
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"text","content":"Let me look at the pricing module first."},{"type":"tool_call","id":"toolu_01A","name":"read_file","arguments":{"path":"shop/pricing.py"}}],"finish_reason":"tool_call"}]`,
		attr(c1, semconv.OutputMessages))
	// The second call's input is the tool result; its output has the reasoning.
	assert.JSONEq(t, `[{"role":"user","parts":[{"type":"tool_call_response","id":"toolu_01A","response":"def discount(price):\n    return int(price * 0.9)\n"}]}]`,
		attr(chats[1], semconv.InputMessages))
	assert.Contains(t, attr(chats[1], semconv.OutputMessages), `{"type":"reasoning","content":"int() truncates; the test expects rounding to cents."}`)
	assert.Contains(t, attr(chats[2], semconv.OutputMessages), `"finish_reason":"stop"`)

	read := byName(recs, "execute_tool read_file")[0]
	assert.Equal(t, ts("2026-05-04T10:00:03.510Z"), read.StartTimestamp(), "from the assistant message")
	assert.Equal(t, ts("2026-05-04T10:00:03.620Z"), read.EndTimestamp(), "to the result")
	assert.Equal(t, "toolu_01A", attr(read, semconv.ToolCallID))
	assert.JSONEq(t, `{"path":"shop/pricing.py"}`, attr(read, semconv.ToolCallArguments))
	assert.Equal(t, "def discount(price):\n    return int(price * 0.9)\n", attr(read, semconv.ToolCallResult))
	assert.Equal(t, ptrace.StatusCodeUnset, read.Status().Code())

	tests := byName(recs, "execute_tool run_tests")[0]
	assert.Equal(t, ptrace.StatusCodeError, tests.Status().Code())
	assert.Equal(t, "FAILED tests/test_pricing.py::test_rounding - assert 8.99 == 9.0", tests.Status().Message())
	assert.JSONEq(t, `[{"type":"text","text":"FAILED tests/test_pricing.py::test_rounding - assert 8.99 == 9.0"}]`,
		attr(tests, semconv.ToolCallResult))

	// Emission follows the spans' ends: the chat before the tool call it asked for.
	var order []string
	for _, r := range recs {
		order = append(order, r.Span.Name())
	}
	assert.Equal(t, []string{"chat claude-sonnet-4-5", "execute_tool read_file", "chat claude-sonnet-4-5",
		"execute_tool edit_file", "execute_tool run_tests", "chat claude-sonnet-4-5", "invoke_agent shopbot"}, order)
	for i := 1; i < len(recs); i++ {
		assert.GreaterOrEqual(t, recs[i].Span.EndTimestamp(), recs[i-1].Span.EndTimestamp(), "end-time order at %d", i)
	}
}

func TestReadTranscriptEdgeDetails(t *testing.T) {
	t.Parallel()
	recs, st := importFixture(t, ReadTranscript, "transcript-edge.jsonl")
	require.Len(t, st.Problems, 2)
	assert.ErrorIs(t, st.Problems[0], artifact.ErrBadRecord)
	assert.ErrorIs(t, st.Problems[1], artifact.ErrTornLine)
	assert.Contains(t, st.Problems[0].Error(), "transcript-edge.jsonl:6: ")

	roots := byName(recs, "invoke_agent")
	require.Len(t, roots, 2)
	edge, fork := roots[0], roots[1]
	assert.Equal(t, "sess_edge", attr(edge, semconv.ConversationID))
	assert.Equal(t, "sess_fork", attr(fork, semconv.ConversationID))
	assert.NotEqual(t, edge.TraceID(), fork.TraceID(), "one session, one trace")
	assert.Equal(t, transcriptSessionTrace("sess_edge"), edge.TraceID())
	require.Equal(t, 1, fork.Links().Len(), "a forked session links to its origin")
	assert.Equal(t, edge.TraceID(), fork.Links().At(0).TraceID())
	assert.Equal(t, edge.SpanID(), fork.Links().At(0).SpanID())
	var evs []string
	for _, ev := range edge.Events().All() {
		evs = append(evs, ev.Name())
	}
	assert.Equal(t, []string{"session.started", "session.compacted"}, evs)
	assert.Equal(t, "session.forked", fork.Events().At(0).Name())
	assert.Equal(t, ts("2026-05-05T08:00:00Z"), edge.StartTimestamp())
	assert.Equal(t, ts("2026-05-05T08:00:03.100Z"), edge.EndTimestamp())

	chats := byName(recs, "chat gpt-4.1")
	require.Len(t, chats, 2)
	ok, open := chats[0], chats[1]
	assert.Equal(t, ts("2026-05-05T08:00:01.300Z"), ok.StartTimestamp(), "zone-less is UTC; camelCase latencyMs")
	assert.Equal(t, ts("2026-05-05T08:00:02.700Z"), ok.EndTimestamp())
	assert.Equal(t, `["tool_calls"]`, attr(ok, semconv.ResponseFinishReasons))
	assert.Equal(t, "4096", attr(ok, semconv.RequestMaxTokens))
	assert.Equal(t, "aa11", attr(ok, "agenttrace.transcript.messagesSha256"))
	assert.JSONEq(t, `[{"role":"user","parts":[{"type":"text","content":"List the files, then fetch the docs page."}]}]`,
		attr(ok, semconv.InputMessages), "epoch-ms time, string content")
	assert.Equal(t, ptrace.StatusCodeError, open.Status().Code())
	assert.Equal(t, "incomplete", attr(open, semconv.ErrorType))
	assert.JSONEq(t, `[{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"README.md\nmain.go"}]}]`,
		attr(open, semconv.InputMessages))

	list := byName(recs, "execute_tool list_dir")[0]
	assert.Equal(t, ts("2026-05-05T08:00:02.710Z"), list.StartTimestamp())
	assert.Equal(t, ts("2026-05-05T08:00:02.900Z"), list.EndTimestamp(), "+02:00 offset")
	assert.Equal(t, "README.md\nmain.go", attr(list, semconv.ToolCallResult))
	fetch := byName(recs, "execute_tool fetch_url")[0]
	assert.Equal(t, "incomplete", attr(fetch, semconv.ErrorType))
	assert.Equal(t, edge.EndTimestamp(), fetch.EndTimestamp(), "an open call ends with its session")

	haiku := byName(recs, "chat claude-haiku-4-5")[0]
	assert.Equal(t, ts("2026-05-05T08:05:01.150Z"), haiku.StartTimestamp(), `latency "850"`)
	assert.Equal(t, "120", attr(haiku, semconv.UsageInputTokens))
}

func TestReadTranscriptSmall(t *testing.T) {
	t.Parallel()
	const t0 = `"time":"2026-01-01T00:00:00Z"`
	runSmall(t, ReadTranscript, []smallCase{
		{"empty", "", func(t *testing.T, recs []*artifact.Record, st Stats) {
			assert.Empty(t, recs)
			assert.Empty(t, st.Problems)
		}},
		{"only unknown", `{"type":"x.happened",` + t0 + "}\n", func(t *testing.T, recs []*artifact.Record, st Stats) {
			assert.Empty(t, recs)
			assert.Equal(t, map[string]int64{"x.happened": 1}, st.Unknown)
		}},
		{"no type", `{"id":1}` + "\n", func(t *testing.T, recs []*artifact.Record, st Stats) {
			require.Len(t, st.Problems, 1)
			assert.ErrorIs(t, st.Problems[0], artifact.ErrBadRecord)
		}},
		{"result without call", `{"type":"message.appended",` + t0 + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"r"}]}}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				require.Len(t, recs, 2)
				assert.Equal(t, "execute_tool", recs[0].Span.Name())
				assert.Equal(t, "true", attr(recs[0].Span, transcriptAttrUnmatched))
			}},
		{"response without request", `{"type":"inference.responded",` + t0 + `,"inference":{"stop_reason":"end_turn","model":"m","usage":{"input":1,"output":2}}}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				require.Len(t, recs, 2)
				assert.Equal(t, "chat m", recs[0].Span.Name())
				assert.Equal(t, "1", attr(recs[0].Span, semconv.UsageInputTokens))
			}},
		{"bad time", `{"type":"state.patched","time":"yesterday","state":{}}`, func(t *testing.T, recs []*artifact.Record, st Stats) {
			require.Len(t, recs, 1, "the record is kept")
			require.Len(t, st.Problems, 1)
			assert.Contains(t, st.Problems[0].Error(), "yesterday")
		}},
		{"payload at top level", `{"type":"inference.requested",` + t0 + `,"model":"top","turn":1}`, func(t *testing.T, recs []*artifact.Record, st Stats) {
			require.Len(t, recs, 2)
			assert.Equal(t, "chat top", recs[0].Span.Name())
			assert.Equal(t, "incomplete", attr(recs[0].Span, semconv.ErrorType))
		}},
		{"no session id", `{"type":"session.started",` + t0 + `}` + "\r\n" + `{"type":"state.patched","time":1767225601000}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				require.Len(t, recs, 1)
				assert.Equal(t, 2, recs[0].Span.Events().Len(), "one session, CRLF lines")
				assert.Equal(t, time.Second, time.Duration(recs[0].Span.EndTimestamp()-recs[0].Span.StartTimestamp()))
			}},
	})
}

func TestReadTranscriptLongLine(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	in.WriteString(`{"type":"session.started","sessionId":"s","time":"2026-01-01T00:00:00Z"}` + "\n")
	in.WriteString(`{"type":"state.patched","sessionId":"s","time":"2026-01-01T00:00:01Z","state":"` + strings.Repeat("x", artifact.DefaultMaxLineSize) + `"}` + "\n")
	in.WriteString(`{"type":"state.patched","sessionId":"s","time":"2026-01-01T00:00:02Z","state":{}}` + "\n")
	recs, st := importBytes(t, ReadTranscript, "long", in.Bytes())
	require.Len(t, st.Problems, 1)
	assert.ErrorIs(t, st.Problems[0], artifact.ErrLineTooLong)
	assert.Contains(t, st.Problems[0].Error(), "long:2:")
	require.Len(t, recs, 1)
	assert.Equal(t, 2, recs[0].Span.Events().Len())
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	want := uint64(time.Date(2026, 5, 5, 8, 0, 1, 500_000_000, time.UTC).UnixNano())
	for _, in := range []string{`"2026-05-05T08:00:01.5Z"`, `"2026-05-05T08:00:01.500"`, `"2026-05-05 08:00:01.5"`, `" 2026-05-05T08:00:01.5Z "`,
		`"2026-05-05T10:00:01.5+02:00"`, `"2026-05-05T10:00:01.5+0200"`, `1777968001500`, `"1777968001500"`, `1777968001.5`,
		`1777968001500000`} {
		got, ok := parseTime([]byte(in))
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{`"now"`, `-5`, `"1969-12-31T23:59:59Z"`, `"9999-01-01T00:00:00Z"`, `{}`, `true`, `1e300`} {
		_, ok := parseTime([]byte(in))
		assert.False(t, ok, in)
	}
}

func TestIDs(t *testing.T) {
	t.Parallel()
	a := traceIDFor(Transcript, "s1")
	assert.Equal(t, a, traceIDFor(Transcript, "s1"))
	assert.NotEqual(t, a, traceIDFor(Trajectory, "s1"), "the shape is part of the namespace")
	assert.NotEqual(t, a, traceIDFor(Transcript, "s2"))
	assert.False(t, a.IsEmpty())
	s := spanIDFor(a, "root")
	assert.Equal(t, s, spanIDFor(a, "root"))
	assert.NotEqual(t, s, spanIDFor(a, "tool:x"))
	assert.NotEqual(t, s, spanIDFor(traceIDFor(Transcript, "s2"), "root"))
	long := strings.Repeat("k", 1000) // keys longer than the stack buffer
	assert.NotEqual(t, spanIDFor(a, long), spanIDFor(a, long+"k"))
	assert.NotEqual(t, traceIDFor(Transcript, long), traceIDFor(Transcript, long+"k"))
}

func FuzzTranscript(f *testing.F) {
	for _, name := range []string{"transcript.jsonl", "transcript-edge.jsonl", "transcript-prerename.jsonl", "transcript-messages.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "shapes", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"inference.responded","time":"2026-01-01T00:00:05Z","inference":{"latency_ms":99999999999}}`))
	f.Add([]byte(`{"type":"message.appended","time":1,"message":{"role":"assistant","content":[{"type":"tool_use"}]}}` + "\n" +
		`{"type":"message.appended","time":0,"message":{"role":"tool","content":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, ReadTranscript, data)
	})
}

// BenchmarkTranscript imports a generated ~10 MB log of tool-using turns.
func BenchmarkTranscript(b *testing.B) {
	data, lines := transcriptBenchLog(10 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for b.Loop() {
		st, err := ReadTranscript(bytes.NewReader(data), "bench", func(*artifact.Record) error { return nil })
		if err != nil || len(st.Problems) > 0 {
			b.Fatal(err, st.Problems)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	n := float64(b.N) * float64(lines)
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/line")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/n, "B/line")
}

// transcriptBenchLog returns a transcript log of about size bytes and its
// line count.
func transcriptBenchLog(size int) ([]byte, int) {
	var b bytes.Buffer
	lines := 0
	at := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	tm := func() string { at = at.Add(137 * time.Millisecond); return at.Format(time.RFC3339Nano) }
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...); lines++ }
	w(`{"type":"session.started","id":"e0","sessionId":"bench","time":%q,"session":{"cwd":"/repo","agent":"bench"}}`, tm())
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 12)
	for turn := 1; b.Len() < size; turn++ {
		w(`{"type":"message.appended","id":"u%d","sessionId":"bench","time":%q,"message":{"role":"user","content":[{"type":"text","text":%q}]}}`, turn, tm(), text)
		w(`{"type":"inference.requested","id":"q%d","sessionId":"bench","time":%q,"inference":{"provider":"anthropic","model":"claude-sonnet-4-5","max_tokens":8192,"turn":%d,"system_sha256":"3b1f0c9d8e7a6b5c4d3e2f1a0b9c8d7e","tools_sha256":"9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d","messages_sha256":"0f1e2d3c4b5a69788796a5b4c3d2e1f0"}}`, turn, tm(), turn)
		w(`{"type":"inference.responded","id":"r%d","sessionId":"bench","time":%q,"inference":{"turn":%d,"stop_reason":"tool_use","latency_ms":1200,"usage":{"input":1200,"output":85,"cache_read":4000,"cache_create":0}}}`, turn, tm(), turn)
		w(`{"type":"message.appended","id":"a%d","sessionId":"bench","time":%q,"message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"tool_use","id":"toolu_%d","name":"read_file","input":{"path":"src/file_%d.go","limit":200}}]}}`, turn, tm(), text[:200], turn, turn)
		w(`{"type":"message.appended","id":"t%d","sessionId":"bench","time":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]}}`, turn, tm(), turn, text+text)
		if turn%10 == 0 {
			w(`{"type":"state.patched","id":"s%d","sessionId":"bench","time":%q,"state":{"op":"replace","path":"/turn","value":%d}}`, turn, tm(), turn)
		}
	}
	return b.Bytes(), lines
}

// TestReadTranscriptSeedShapes: transcripts as seed 001's writer left them
// before its inference recorder and before its record rename: the
// conversation comes through as model calls made from the messages, and
// nothing is refused or dropped.
func TestReadTranscriptSeedShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, session, agentModel string
		turns                     int
		unanswered                string
	}{
		{"transcript-prerename.jsonl", "tr_2b81e0", "claude-sonnet-4-5", 2, ""},
		{"transcript-messages.jsonl", "sess_91c4", "claude-sonnet-4-5", 2, `[{"role":"user","parts":[{"type":"text","content":"Thanks."}]}]`},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			recs, st := importFixture(t, ReadTranscript, c.file)
			assertImported(t, recs)
			assert.Empty(t, st.Problems)
			assert.Empty(t, st.Unknown, "pre-rename types are known")
			root := recs[len(recs)-1].Span
			assert.Equal(t, c.session, attr(root, semconv.ConversationID))
			assert.Equal(t, transcriptSessionTrace(c.session), root.TraceID())
			if c.unanswered == "" {
				assert.False(t, hasAttr(root, transcriptAttrUnanswered))
			} else {
				assert.JSONEq(t, c.unanswered, attr(root, transcriptAttrUnanswered))
			}
			chats := byOp(recs, semconv.OpChat)
			require.Len(t, chats, c.turns, "one model call per assistant turn")
			for _, ch := range chats {
				assert.Equal(t, "true", attr(ch.Span, transcriptAttrFromMessages))
				assert.Equal(t, c.agentModel, attr(ch.Span, semconv.RequestModel))
				assert.NotEmpty(t, attr(ch.Span, semconv.InputMessages))
				assert.NotEmpty(t, attr(ch.Span, semconv.OutputMessages))
				assert.False(t, hasAttr(ch.Span, semconv.UsageInputTokens), "the log has no usage")
			}
			calls := byOp(recs, semconv.OpExecuteTool)
			require.Len(t, calls, 1)
			assert.Equal(t, ptrace.StatusCodeUnset, calls[0].Span.Status().Code())
			assert.NotEmpty(t, attr(calls[0].Span, semconv.ToolCallResult))
			// The messages view shows the conversation.
			var convo []semconv.Message
			for _, ch := range chats {
				conv := semconv.Messages(ch.Span)
				convo = append(convo, conv.Input...)
				convo = append(convo, conv.Output...)
			}
			require.Len(t, convo, 4, "user, assistant tool call, tool result, assistant")
			assert.Equal(t, "user", convo[0].Role)
			assert.Equal(t, "assistant", convo[len(convo)-1].Role)
		})
	}
	recs, _ := importFixture(t, ReadTranscript, "transcript-prerename.jsonl")
	root := recs[len(recs)-1].Span
	var names []string
	for _, ev := range root.Events().All() {
		names = append(names, ev.Name())
	}
	assert.Equal(t, []string{"transcript.started", "state.patched", "transcript.compacted"}, names)
	assert.Contains(t, mapAttr(root.Events().At(0).Attributes(), transcriptAttrPayload), `"cwd":"/home/dev/gen"`,
		"the lifecycle payload was under system")
	assert.Equal(t, "anthropic", attr(root, semconv.ProviderName))
}
