package judge_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/semconv"
)

// The two-layer fixtures: one run of the trip planner recorded twice, the
// way seed 002 (ADR-019, Trace Fidelity) describes. Layer A is the agent
// boundary, what the framework reports of the run: one invoke_agent
// record with the run's usage and its final messages, every tool call in
// them (AgentBoundaryTraceBuilder.FromAgentResponse). Layer B is the chat
// boundary: one inference record per model round trip and one call record
// per tool execution (TraceRecordingChatClient, EvaluatingAIFunction), in
// a trace of its own. Both carry the conversation id, which is how the two
// are matched. Each defect plants one lie of the framework into a copy.

const twoLayerConv = "conv_trip_7f3a"

var twoLayerT0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// The run's tool calls, as the model asked for them.
var (
	tlFlights = toolCall("call_f1", "search_flights", obj{"origin": "BER", "destination": "LIS", "date": "2026-06-01"})
	tlWeather = toolCall("call_w1", "get_weather", obj{"city": "Lisbon", "days": 3})
	tlHotels  = toolCall("call_h1", "find_hotels", obj{"city": "Lisbon", "nights": 3})
)

// twoLayer says how a pair differs from the honest one.
type twoLayer struct {
	reported   []obj  // the tool calls A reports; nil for all three
	tokens     int64  // the input tokens A reports; 0 for the true 1500
	retry      bool   // B: get_weather timed out and the framework ran it again
	lastFinish string // B: the last round trip's finish reason; "" for stop
	// promptOnly: B records only the user's prompt as each round trip's
	// input, so every loop turn has the same input (issue 26: the loop
	// turns were taken for hidden retries, hiding A's token under-report).
	promptOnly bool
}

// layerA builds the agent-boundary recording.
func (v twoLayer) layerA() *run {
	r := newRun("two-layer-a", twoLayerT0)
	calls := v.reported
	if calls == nil {
		calls = []obj{tlFlights, tlWeather, tlHotels}
	}
	var parts arr
	for _, c := range calls {
		parts = append(parts, c)
	}
	in := v.tokens
	if in == 0 {
		in = 1500
	}
	out := js(arr{
		obj{"role": "assistant", "parts": parts, "finish_reason": "tool_call"},
		obj{"role": "assistant", "parts": arr{obj{"type": "text", "content": "Fly TP 571, stay at Casa do Largo."}}, "finish_reason": "stop"},
	})
	r.span("agent", "", "invoke_agent trip-planner", 0, 20000, map[string]any{
		semconv.OperationName: semconv.OpInvokeAgent, semconv.AgentName: "trip-planner", semconv.ConversationID: twoLayerConv,
		semconv.UsageInputTokens: in, semconv.UsageOutputTokens: int64(130), semconv.OutputMessages: out,
		semconv.ResponseFinishReasons: arr{"stop"},
	})
	return r
}

// layerB builds the chat-boundary recording.
func (v twoLayer) layerB() *run {
	r := newRun("two-layer-b", twoLayerT0)
	conv := func(sp ptrace.Span) { sp.Attributes().PutStr(semconv.ConversationID, twoLayerConv) }
	input := tripInput
	if v.promptOnly {
		input = func(int) string { return tripInput(0) }
	}
	conv(r.chat("i1", "", 100, 1100, 300, 40, input(0), assistant(tlFlights, tlWeather), "tool_calls"))
	conv(r.tool("c1", "", "search_flights", "call_f1", 1200, 2200, js(tlFlights["arguments"]), js(obj{"offers": arr{obj{"flight": "TP 571", "price": 142.0}}})))
	at := 2300
	if v.retry {
		conv(fail(r.tool("c2-first", "", "get_weather", "call_w1", at, at+5000, js(tlWeather["arguments"]), nil), "TimeoutError", "no answer within 5s"))
		at += 5100
	}
	conv(r.tool("c2", "", "get_weather", "call_w1", at, at+500, js(tlWeather["arguments"]), js(obj{"highs": arr{24, 25, 23}})))
	conv(r.chat("i2", "", 8000, 9000, 500, 30, input(1), assistant(tlHotels), "tool_calls"))
	conv(r.tool("c3", "", "find_hotels", "call_h1", 9100, 15000, js(tlHotels["arguments"]), "Casa do Largo, 165 EUR a night"))
	finish := v.lastFinish
	if finish == "" {
		finish = "stop"
	}
	conv(r.chat("i3", "", 15100, 19000, 700, 60, input(2),
		js(arr{obj{"role": "assistant", "parts": arr{obj{"type": "text", "content": "Fly TP 571, stay at Casa do Largo."}}}}), finish))
	return r
}

// twoLayerDefect is one planted lie and the one finding it must give:
// its category, and the spans (by label) of A and of B it names.
type twoLayerDefect struct {
	name     string
	pair     twoLayer
	category judge.Category
	a, b     []string
}

var twoLayerDefects = []twoLayerDefect{
	{"missing", twoLayer{reported: []obj{tlFlights, tlHotels}}, judge.MissingCall, []string{"agent"}, []string{"c2"}},
	{"phantom", twoLayer{reported: []obj{tlFlights, tlWeather, tlHotels,
		toolCall("call_x9", "send_email", obj{"to": "ana@example.com"})}}, judge.PhantomCall, []string{"agent"}, []string{}},
	{"retried", twoLayer{retry: true}, judge.HiddenRetry, []string{"agent"}, []string{"c2", "c2-first"}},
	{"drifted", twoLayer{reported: []obj{
		toolCall("call_f1", "search_flights", obj{"origin": "BER", "destination": "OPO", "date": "2026-06-01"}), tlWeather, tlHotels}},
		judge.ArgumentDrift, []string{"agent"}, []string{"c1"}},
	{"underreported-loop", twoLayer{tokens: 900, promptOnly: true}, judge.TokenUnderreport, []string{"agent"}, []string{"i1", "i2", "i3"}},
}

// twoLayerFixtures are the committed pairs, by file name.
func twoLayerFixtures() map[string]func(testing.TB) []byte {
	fs := map[string]func(testing.TB) []byte{
		"two-layer-clean-a.jsonl": func(t testing.TB) []byte { return twoLayer{}.layerA().jsonl(t, false) },
		"two-layer-clean-b.jsonl": func(t testing.TB) []byte { return twoLayer{}.layerB().jsonl(t, false) },
	}
	for _, d := range twoLayerDefects {
		fs["two-layer-"+d.name+"-a.jsonl"] = func(t testing.TB) []byte { return d.pair.layerA().jsonl(t, false) }
		fs["two-layer-"+d.name+"-b.jsonl"] = func(t testing.TB) []byte { return d.pair.layerB().jsonl(t, false) }
	}
	return fs
}

// recording reads a committed fixture as a Recording, lines and all.
func recording(t testing.TB, name string) judge.Recording {
	t.Helper()
	path := filepath.Join(fixtureDir, name)
	recs, meta := artifacttest.Read(t, path)
	return judge.Recording{Name: name, Records: recs, Lines: artifactLines(t, path), Meta: meta}
}

func TestReconcileClean(t *testing.T) {
	rep := judge.Reconcile(recording(t, "two-layer-clean-a.jsonl"), recording(t, "two-layer-clean-b.jsonl"))
	assert.Empty(t, rep.Findings)
	require.Len(t, rep.Runs, 1)
	assert.Equal(t, "conversation_id", rep.Runs[0].By)
	assert.Empty(t, rep.UnmatchedA)
	assert.Empty(t, rep.UnmatchedB)
}

// TestReconcileDefects: each planted lie is found, once, and nothing else;
// the finding names both files and the lines of the records involved.
func TestReconcileDefects(t *testing.T) {
	for _, d := range twoLayerDefects {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			fa, fb := "two-layer-"+d.name+"-a.jsonl", "two-layer-"+d.name+"-b.jsonl"
			rep := judge.Reconcile(recording(t, fa), recording(t, fb))
			require.Len(t, rep.Findings, 1, "%v", rep.Findings)
			f := rep.Findings[0]
			assert.Equal(t, d.category, f.Category)
			require.NotNil(t, f.A)
			require.NotNil(t, f.B)
			assert.Equal(t, fa, f.A.File)
			assert.Equal(t, fb, f.B.File)
			ra, rb := d.pair.layerA(), d.pair.layerB()
			assert.Equal(t, sids(ra, d.a), f.A.SpanIDs)
			assert.NotEmpty(t, f.A.Lines)
			if len(d.b) > 0 {
				assert.ElementsMatch(t, sids(rb, d.b), f.B.SpanIDs)
				assert.NotEmpty(t, f.B.Lines)
			}
			assert.Contains(t, f.String(), "[A: "+fa+" line")
			assert.Contains(t, f.String(), "; B: "+fb)
		})
	}
}

// TestReconcileFindings covers what the fixtures do not: the other
// categories, and what must not be a finding.
func TestReconcileFindings(t *testing.T) {
	modelRetry := func() *run {
		r := twoLayer{}.layerB()
		i2 := r.find("i2")
		i2.SetStartTimestamp(pcommon.NewTimestampFromTime(twoLayerT0.Add(8100 * time.Millisecond)))
		sp := fail(r.chat("i2-first", "", 7900, 8000, 0, 0, tripInput(1), nil), "RateLimitError", "429")
		sp.Attributes().PutStr(semconv.ConversationID, twoLayerConv)
		return r
	}
	tests := []struct {
		name string
		a, b *run
		want []string
	}{
		{"token under-report", twoLayer{tokens: 900}.layerA(), twoLayer{}.layerB(), []string{"token_underreport"}},
		{"suppressed finish reason", twoLayer{}.layerA(), twoLayer{lastFinish: "length"}.layerB(), []string{"suppressed_finish_reason"}},
		{"finish reason reported", func() *run {
			r := twoLayer{}.layerA()
			r.find("agent").Attributes().PutEmptySlice(semconv.ResponseFinishReasons).AppendEmpty().SetStr("length")
			return r
		}(), twoLayer{lastFinish: "length"}.layerB(), nil},
		{"hidden model retry", twoLayer{}.layerA(), modelRetry(), []string{"hidden_retry"}},
		{"a hidden retry that spent tokens is one finding, not two", twoLayer{}.layerA(), func() *run {
			r := modelRetry()
			r.find("i2-first").Attributes().PutInt(semconv.UsageInputTokens, 480)
			return r
		}(), []string{"hidden_retry"}},
		{"call records without ids are the requests' calls", func() *run {
			r := twoLayer{}.layerA()
			r.tool("c1", "agent", "search_flights", "", 1200, 2200, js(tlFlights["arguments"]), nil)
			return r
		}(), func() *run {
			r := twoLayer{}.layerB()
			r.find("c2").Attributes().Remove(semconv.ToolCallID)
			return r
		}(), nil},
		{"more tokens reported than spent is no finding", twoLayer{tokens: 5000}.layerA(), twoLayer{}.layerB(), nil},
		{"same recording twice", twoLayer{}.layerB(), twoLayer{}.layerB(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := judge.Reconcile(judge.Recording{Name: "a", Records: tt.a.records()}, judge.Recording{Name: "b", Records: tt.b.records()})
			var got []string
			for _, f := range rep.Findings {
				got = append(got, string(f.Category))
				assert.Equal(t, "a", f.A.File)
				assert.Equal(t, "b", f.B.File)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestReconcileMatchesRuns: runs are matched by trace id, conversation id
// or time; a trace with nothing in common is left unmatched.
func TestReconcileMatchesRuns(t *testing.T) {
	a, b := twoLayer{}.layerA(), twoLayer{}.layerB()
	rep := judge.Reconcile(judge.Recording{Name: "a", Records: a.records()}, judge.Recording{Name: "b", Records: a.records()})
	require.Len(t, rep.Runs, 1)
	assert.Equal(t, "trace_id", rep.Runs[0].By)

	noConv := func(r *run) *run {
		for _, sp := range r.spans.All() {
			sp.Attributes().Remove(semconv.ConversationID)
		}
		return r
	}
	rep = judge.Reconcile(judge.Recording{Name: "a", Records: noConv(twoLayer{}.layerA()).records()},
		judge.Recording{Name: "b", Records: noConv(b).records()})
	require.Len(t, rep.Runs, 1)
	assert.Equal(t, "time_window", rep.Runs[0].By)
	assert.Empty(t, rep.Findings)

	later := newRun("elsewhere", twoLayerT0.Add(time.Hour))
	later.tool("x", "", "ping", "", 0, 10, `{}`, `{}`)
	rep = judge.Reconcile(judge.Recording{Name: "a", Records: noConv(twoLayer{}.layerA()).records()},
		judge.Recording{Name: "b", Records: later.records()})
	assert.Empty(t, rep.Runs)
	assert.Len(t, rep.UnmatchedA, 1)
	assert.Len(t, rep.UnmatchedB, 1)
	assert.Empty(t, rep.Findings)
}

// sids returns the span ids of labels.
func sids(r *run, labels []string) []string {
	out := []string{}
	for _, l := range labels {
		out = append(out, r.sid(l))
	}
	return out
}

// artifactLines reads the line of each record of the artifact at path, in
// the order artifacttest.Read returns them.
func artifactLines(t testing.TB, path string) []int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := artifact.NewReader(f, artifact.WithSource(path))
	var lines []int
	for {
		_, err := r.Next()
		if err == io.EOF {
			return lines
		}
		require.NoError(t, err)
		lines = append(lines, r.Line())
	}
}
