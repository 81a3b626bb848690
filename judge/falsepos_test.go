package judge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/semconv"
)

// The audit's false alarms of issue 26: parallel tool calls without ids
// recorded in another order than the model listed them, and agent loop
// turns whose recorded input is the same prompt each turn. Each run is
// written as an artifact and read back, as the CLI reads it.

// viaArtifact writes r as a JSONL artifact and reads it back.
func viaArtifact(t *testing.T, r *run) []artifact.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, r.jsonl(t, false), 0o600))
	recs, _ := artifacttest.Read(t, path)
	return recs
}

// Parallel calls of one tool, without ids, as the model asked for them.
var (
	parisArgs = obj{"city": "Paris", "days": 2}
	romeArgs  = obj{"city": "Rome", "days": 2}
	parallel  = arr{
		obj{"type": "tool_call", "name": "get_weather", "arguments": parisArgs},
		obj{"type": "tool_call", "name": "get_weather", "arguments": romeArgs},
	}
)

// parallelB is the chat boundary of a run whose model asked for
// get_weather(Paris) then get_weather(Rome), without ids; the tool spans
// are recorded Rome first.
func parallelB() *run {
	r := newRun("parallel-b", twoLayerT0)
	conv := func(sp ptrace.Span) { sp.Attributes().PutStr(semconv.ConversationID, twoLayerConv) }
	conv(r.chat("i1", "", 100, 1100, 300, 40, tripInput(0), js(arr{obj{"role": "assistant", "parts": parallel}}), "tool_calls"))
	conv(r.tool("c-rome", "", "get_weather", "", 1200, 1700, js(romeArgs), js(obj{"highs": arr{27, 28}})))
	conv(r.tool("c-paris", "", "get_weather", "", 1210, 1800, js(parisArgs), js(obj{"highs": arr{19, 21}})))
	conv(r.chat("i2", "", 1900, 2900, 500, 30, tripInput(1), assistant(obj{"type": "text", "content": "Rome is warmer."}), "stop"))
	return r
}

// parallelA is the agent boundary of that run: what the framework
// reports, the calls in the model's order.
func parallelA() *run {
	r := newRun("parallel-a", twoLayerT0)
	r.span("agent", "", "invoke_agent weather", 0, 3000, map[string]any{
		semconv.OperationName: semconv.OpInvokeAgent, semconv.AgentName: "weather", semconv.ConversationID: twoLayerConv,
		semconv.UsageInputTokens: int64(800), semconv.UsageOutputTokens: int64(70),
		semconv.OutputMessages:        js(arr{obj{"role": "assistant", "parts": parallel, "finish_reason": "tool_call"}}),
		semconv.ResponseFinishReasons: arr{"stop"},
	})
	r.tool("c-paris", "agent", "get_weather", "", 1200, 1800, js(parisArgs), nil)
	r.tool("c-rome", "agent", "get_weather", "", 1210, 1700, js(romeArgs), nil)
	return r
}

func TestReconcileParallelCallsWithoutIDs(t *testing.T) {
	tests := []struct {
		name string
		a, b *run
		want []string
	}{
		{"recorded in the other order: no finding", parallelA(), parallelB(), nil},
		{"a changed argument is still drift", func() *run {
			r := parallelA()
			r.find("c-rome").Attributes().PutStr(semconv.ToolCallArguments, js(obj{"city": "Rome", "days": 5}))
			return r
		}(), parallelB(), []string{"argument_drift"}},
		{"a call A does not report is still missing", func() *run {
			r := parallelA()
			r.drop("c-rome")
			r.find("agent").Attributes().PutStr(semconv.OutputMessages, js(arr{obj{"role": "assistant", "parts": parallel[:1]}}))
			return r
		}(), parallelB(), []string{"missing_call"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := judge.Reconcile(judge.Recording{Name: "a", Records: viaArtifact(t, tt.a)}, judge.Recording{Name: "b", Records: viaArtifact(t, tt.b)})
			var got []string
			for _, f := range rep.Findings {
				got = append(got, string(f.Category))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestAuditParallelCallsWithoutIDs(t *testing.T) {
	r := newRun("parallel-audit", twoLayerT0)
	r.agent("agent", "", "weather", 0, 3000, 800, 70)
	r.chat("i1", "agent", 100, 1100, 300, 40, tripInput(0), js(arr{obj{"role": "assistant", "parts": parallel}}), "tool_calls")
	r.tool("c-rome", "agent", "get_weather", "", 1200, 1700, js(romeArgs), js(obj{"highs": arr{27, 28}}))
	r.tool("c-paris", "agent", "get_weather", "", 1210, 1800, js(parisArgs), js(obj{"highs": arr{19, 21}}))
	r.chat("i2", "agent", 1900, 2900, 500, 30, tripInput(1), assistant(obj{"type": "text", "content": "Rome is warmer."}), "stop")
	assert.Empty(t, judge.Audit(viaArtifact(t, r)))
}

// samePrompt makes each model call of r record only the user's prompt as
// its input, as an instrumentation that keeps the prompt and not the
// history does: every loop turn then has the same input.
func samePrompt(r *run, labels ...string) *run {
	for _, l := range labels {
		r.find(l).Attributes().PutStr(semconv.InputMessages, tripInput(0))
	}
	return r
}

func TestAuditLoopTurnsAreNoRetries(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *run)
		want   []string // "category label,label"
	}{
		{"loop turns that share one prompt, a tool failed between", func(r *run) {
			samePrompt(r, "i1", "i2", "i3", "i6")
		}, nil},
		{"loop turns that share one prompt, tools under a span of their own", func(r *run) {
			samePrompt(r, "i1", "i2", "i3", "i6")
			r.span("tools", "root", "run tools", 1150, 15050, map[string]any{})
			for _, l := range []string{"c1", "c2", "c3", "c4"} {
				r.find(l).SetParentSpanID(r.id("tools"))
			}
		}, nil},
		{"a failed model call repeated is a retry", func(r *run) {
			samePrompt(r, "i1", "i2", "i3", "i6")
			fail(r.chat("i6-first", "root", 15000, 15050, 0, 0, tripInput(0), nil), "RateLimitError", "429")
		}, []string{"hidden_retry i6-first,i6"}},
		{"an answer nothing acted on, asked again, is a retry", func(r *run) {
			r.chat("i6-again", "root", 19910, 19990, 0, 0, tripInput(3), assistant(obj{"type": "text", "content": "Fly TP 571."}), "stop")
		}, []string{"hidden_retry i6,i6-again"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := auditRun()
			tt.change(r)
			var want, got []string
			for _, w := range tt.want {
				c, ls, _ := strings.Cut(w, " ")
				want = append(want, c+" "+strings.Join(labels(r, strings.Split(ls, ",")...), ","))
			}
			for _, f := range judge.Audit(viaArtifact(t, r)) {
				got = append(got, string(f.Category)+" "+strings.Join(f.SpanIDs, ","))
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestReconcileLoopTurnsAreNoRetries(t *testing.T) {
	tests := []struct {
		name string
		a, b *run
		want []string
	}{
		{"loop turns that share one prompt", twoLayer{}.layerA(), samePrompt(twoLayer{}.layerB(), "i1", "i2", "i3"), nil},
		// B's model calls spent 340 + 530 + 760 = 1630 tokens; A says
		// 900 + 130. Counted as retries, the two later turns' tokens
		// were taken out of the comparison and the under-report hid.
		{"the token under-report the false retries hid", twoLayer{tokens: 900}.layerA(),
			samePrompt(twoLayer{}.layerB(), "i1", "i2", "i3"), []string{"token_underreport"}},
		{"an answer nothing acted on, asked again, is a retry", twoLayer{}.layerA(), func() *run {
			r := twoLayer{}.layerB()
			r.chat("i3-again", "", 19100, 19900, 700, 60, tripInput(2), assistant(obj{"type": "text", "content": "Fly TP 571."}), "stop").
				Attributes().PutStr(semconv.ConversationID, twoLayerConv)
			return r
		}(), []string{"hidden_retry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := judge.Reconcile(judge.Recording{Name: "a", Records: viaArtifact(t, tt.a)}, judge.Recording{Name: "b", Records: viaArtifact(t, tt.b)})
			var got []string
			for _, f := range rep.Findings {
				got = append(got, string(f.Category))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
