package judge_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/semconv"
)

func TestAuditClean(t *testing.T) {
	recs, _ := readFixture(t, "audit-clean.jsonl")
	assert.Empty(t, judge.Audit(recs))
	assert.Empty(t, judge.Audit(auditRun().records()), "from OTLP too")
}

// TestAuditDefects: each planted defect is found exactly where it was
// planted, and nothing else is.
func TestAuditDefects(t *testing.T) {
	ids := auditRun() // a defect keeps the clean run's ids
	for _, d := range defects {
		t.Run(string(d.category), func(t *testing.T) {
			t.Parallel()
			recs, _ := readFixture(t, "audit-"+string(d.category)+".jsonl")
			got := judge.Audit(recs)
			require.Len(t, got, 1, "%v", got)
			f := got[0]
			assert.Equal(t, d.category, f.Category)
			assert.Equal(t, d.category.Severity(), f.Severity)
			assert.Equal(t, ids.traceID().String(), f.TraceID)
			var want []string
			for _, l := range d.spans {
				want = append(want, ids.sid(l))
			}
			assert.Equal(t, want, f.SpanIDs)
			assert.Equal(t, d.toolCall, f.ToolCallID)
			assert.NotEmpty(t, f.Message)

			assert.Equal(t, got, judge.Audit(defectRun(d).records()), "from OTLP too")
		})
	}
}

func TestAuditSeverities(t *testing.T) {
	want := map[judge.Category]judge.Severity{
		judge.MissingCall: judge.Error, judge.PhantomCall: judge.Warning, judge.ArgumentDrift: judge.Error,
		judge.HiddenRetry: judge.Warning, judge.TokenUnderreport: judge.Error,
		judge.MissingFinishReason: judge.Warning, judge.OrphanSpan: judge.Warning,
		judge.SuppressedFinishReason: judge.Warning, judge.DoubleInstrumentation: judge.Warning,
		judge.SilentFailure: judge.Warning,
	}
	got := map[judge.Category]judge.Severity{}
	for _, c := range judge.Categories() {
		got[c] = c.Severity()
	}
	assert.Equal(t, want, got)
	assert.Len(t, defects, len(want)-2,
		"a fixture for every category Audit finds (Reconcile's has its own, double_instrumentation TestAuditDoubleInstrumentation's)")
}

// TestAuditMessages pins what the planted findings say.
func TestAuditMessages(t *testing.T) {
	want := map[judge.Category]string{
		judge.MissingCall:         "the model requested tool call call_w2 (get_weather), but no call record carries that id, and no get_weather call without an id follows under the same agent",
		judge.PhantomCall:         "call send_email carries tool call id call_x9, which no inference in the input requested",
		judge.ArgumentDrift:       `call search_flights ran with arguments other than the model requested: args.destination is "LIS" in the request, "OPO" in the call`,
		judge.HiddenRetry:         `inference "chat gpt-4o" failed and a sibling repeats its input (span ` + auditRun().sid("i2") + `): a retry the trace does not mark as one`,
		judge.TokenUnderreport:    `agent "trip-planner" reports 2435 tokens (input + output), but the inference records under it add up to 3435`,
		judge.MissingFinishReason: `inference "chat gpt-4o" records no finish reason`,
		judge.OrphanSpan:          `span "GET" names parent ` + auditRun().sid("lost-parent") + `, which is not in the input`,
		judge.SilentFailure: `inference "chat gpt-4o" under agent "trip-planner" carries no usage, no output, no finish reason and no error: ` +
			`a call that most likely failed without saying so`,
	}
	for _, d := range defects {
		got := judge.Audit(defectRun(d).records())
		require.Len(t, got, 1)
		assert.Equal(t, want[d.category], got[0].Message, d.category)
	}
}

// TestAuditAllDefects: the defects planted together are found together,
// sorted by trace, first span id and category, whatever the record order.
func TestAuditAllDefects(t *testing.T) {
	r := auditRun()
	var want []judge.Finding
	for _, d := range defects {
		d.plant(r)
		want = append(want, judge.Audit(defectRun(d).records())...)
	}
	slices.SortFunc(want, func(x, y judge.Finding) int {
		return cmp.Or(strings.Compare(x.SpanIDs[0], y.SpanIDs[0]), strings.Compare(string(x.Category), string(y.Category)))
	})
	recs := r.records()
	assert.Equal(t, want, judge.Audit(recs))
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		assert.Equal(t, want, judge.Audit(recs))
	}
}

func labels(r *run, ls ...string) []string {
	var ids []string
	for _, l := range ls {
		ids = append(ids, r.sid(l))
	}
	return ids
}

// summary renders findings as "category span,span tool-call" for tables.
func summary(fs []judge.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s", f.Category, strings.Join(f.SpanIDs, ","), f.ToolCallID)))
	}
	return out
}

func TestAuditCases(t *testing.T) {
	r := auditRun()
	tests := []struct {
		name   string
		change func(r *run)
		want   []string
	}{
		{"the same input after a failed tool call is a loop turn, no retry", func(r *run) {
			// i1's calls ran (c2 failed): a call acted on i1's output, so
			// a model call with i1's input is the loop going on, as an
			// instrumentation that records only the prompt writes it.
			r.chat("i1-again", "root", 6220, 6290, 0, 0, tripInput(0), assistant(), "stop")
		}, nil},
		{"the same input after a success is no retry", func(r *run) {
			r.chat("i1-again", "root", 2250, 2290, 0, 0, tripInput(0), assistant(), "stop")
		}, nil},
		{"a call by name must start after the request ended", func(r *run) {
			c5 := r.find("c5")
			c5.SetStartTimestamp(r.find("i4").StartTimestamp())
		}, []string{"missing_call " + r.sid("i4") + " call_s1"}},
		{"a call by name must be under the same agent", func(r *run) {
			r.find("c5").SetParentSpanID(r.id("root"))
		}, []string{"missing_call " + r.sid("i4") + " call_s1"}},
		{"a request without an id is matched by name", func(r *run) {
			r.find("i4").Attributes().PutStr(semconv.OutputMessages,
				js(arr{obj{"role": "assistant", "tool_calls": arr{obj{"type": "function", "function": obj{"name": "search_hotels", "arguments": "{}"}}}}}))
		}, nil},
		{"a request without an id and no call", func(r *run) {
			r.drop("c5")
			r.find("i4").Attributes().PutStr(semconv.OutputMessages,
				js(arr{obj{"role": "assistant", "tool_calls": arr{obj{"type": "function", "function": obj{"name": "search_hotels"}}}}}))
		}, []string{"missing_call " + r.sid("i4")}},
		{"no recorded outputs: no phantom calls", func(r *run) {
			for _, l := range []string{"i1", "i2", "i3", "i4", "i5", "i6"} {
				r.find(l).Attributes().Remove(semconv.OutputMessages)
			}
			r.tool("c7", "root", "send_email", "call_x9", 15000, 15050, nil, nil)
		}, nil},
		{"a retried tool call: both runs compared", func(r *run) {
			r.tool("c3-again", "root", "get_weather", "call_w2", 7950, 7990, js(obj{"city": "Porto", "days": 3}), nil)
		}, []string{"argument_drift " + strings.Join(labels(r, "i2", "c3-again"), ",") + " call_w2"}},
		{"redacted: arguments are not compared", func(r *run) {
			r.find("c1").Attributes().PutStr(semconv.ToolCallArguments, `{"origin":"BER","destination":"[REDACTED]"}`)
			r.res.Attributes().PutBool(semconv.Redacted, true)
		}, nil},
		{"an agent without usage is not judged", func(r *run) {
			r.find("root").Attributes().Remove(semconv.UsageInputTokens)
			r.find("root").Attributes().Remove(semconv.UsageOutputTokens)
		}, nil},
		{"a failed inference needs no finish reason", func(r *run) {
			i6 := fail(r.find("i6"), "ServerError", "500").Attributes()
			i6.Remove(semconv.ResponseFinishReasons)
			i6.PutStr(semconv.OutputMessages, js(arr{obj{"role": "assistant", "parts": arr{}}}))
		}, nil},
		{"a finish reason in the output messages counts", func(r *run) {
			r.find("i5").Attributes().Remove(semconv.ResponseFinishReasons)
		}, nil},
		{"embeddings have no finish reason", func(r *run) {
			r.span("emb", "a2", "embeddings text-embedding-3-small", 9160, 9190, map[string]any{
				semconv.OperationName: semconv.OpEmbeddings, semconv.RequestModel: "text-embedding-3-small"})
		}, nil},
		{"a server span's missing parent is remote", func(r *run) {
			sp := r.find("http1")
			sp.SetParentSpanID(r.id("gone"))
			sp.SetFlags(0)
			sp.SetKind(ptrace.SpanKindServer)
		}, nil},
		{"a client span's missing parent, flags unknown", func(r *run) {
			sp := r.find("http1")
			sp.SetParentSpanID(r.id("gone"))
			sp.SetFlags(0)
		}, []string{"orphan_span " + r.sid("http1")}},
		{"parents in a cycle terminate", func(r *run) {
			r.find("root").SetParentSpanID(r.id("c4"))
			r.find("root").SetFlags(0x101)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := auditRun()
			tt.change(r)
			assert.Equal(t, tt.want, summary(judge.Audit(r.records())))
		})
	}
}

// TestAuditWithRedacted: the option does what the header's flag does.
func TestAuditWithRedacted(t *testing.T) {
	recs, _ := readFixture(t, "audit-argument_drift.jsonl")
	require.Len(t, judge.Audit(recs), 1)
	assert.Empty(t, judge.Audit(recs, judge.WithRedacted(true)))
}

// TestAuditRequestShapes: tool calls are read from every shape models'
// outputs are recorded in. Each requests lookup(q=1) as call_a; the call
// ran with q=2, which only an exact reading of id, name and arguments
// reports as argument drift (and not as a missing or phantom call).
func TestAuditRequestShapes(t *testing.T) {
	tests := []struct {
		name string
		set  func(sp ptrace.Span)
	}{
		{"GenAI parts", func(sp ptrace.Span) {
			sp.Attributes().PutStr(semconv.OutputMessages, js(arr{obj{"role": "assistant", "parts": arr{toolCall("call_a", "lookup", obj{"q": 1})}}}))
		}},
		{"OpenAI tool_calls in gen_ai.completion", func(sp ptrace.Span) {
			sp.Attributes().PutStr(semconv.Completion, js(arr{obj{"role": "assistant", "tool_calls": arr{
				obj{"id": "call_a", "type": "function", "function": obj{"name": "lookup", "arguments": `{"q":1}`}}}}}))
		}},
		{"OpenAI choices", func(sp ptrace.Span) {
			sp.Attributes().PutStr(semconv.OutputMessages, js(obj{"choices": arr{obj{"finish_reason": "tool_calls", "message": obj{"tool_calls": arr{
				obj{"id": "call_a", "type": "function", "function": obj{"name": "lookup", "arguments": `{"q":1}`}}}}}}}))
		}},
		{"Anthropic tool_use blocks", func(sp ptrace.Span) {
			sp.Attributes().PutStr(semconv.OutputMessages, js(arr{obj{"role": "assistant", "content": arr{
				obj{"type": "tool_use", "id": "call_a", "name": "lookup", "input": obj{"q": 1}}}}}))
		}},
		{"gen_ai.choice event", func(sp ptrace.Span) {
			ev := sp.Events().AppendEmpty()
			ev.SetName("gen_ai.choice")
			putSorted(ev.Attributes(), obj{"index": int64(0), "finish_reason": "tool_calls", "tool_calls": arr{
				obj{"id": "call_a", "type": "function", "function": obj{"name": "lookup", "arguments": `{"q":1}`}}}})
		}},
		{"Vercel ai.response.toolCalls (v4)", func(sp ptrace.Span) {
			sp.Attributes().PutStr("ai.response.toolCalls", js(arr{obj{"toolCallType": "function", "toolCallId": "call_a", "toolName": "lookup", "args": `{"q":1}`}}))
		}},
		{"Vercel ai.response.toolCalls (v5)", func(sp ptrace.Span) {
			sp.Attributes().PutStr("ai.response.toolCalls", js(arr{obj{"type": "tool-call", "toolCallId": "call_a", "toolName": "lookup", "input": `{"q":1}`}}))
		}},
		{"OpenInference flattened", func(sp ptrace.Span) {
			a := sp.Attributes()
			a.PutStr("llm.output_messages.0.message.role", "assistant")
			a.PutStr("llm.output_messages.0.message.tool_calls.0.tool_call.id", "call_a")
			a.PutStr("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "lookup")
			a.PutStr("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", `{"q":1}`)
		}},
		{"Langfuse observation output", func(sp ptrace.Span) {
			sp.Attributes().PutStr(semconv.LFObservationOutput, js(obj{"role": "assistant", "content": nil, "tool_calls": arr{
				obj{"id": "call_a", "type": "function", "function": obj{"name": "lookup", "arguments": `{"q":1}`}}}}))
		}},
		{"OpenLLMetry flattened", func(sp ptrace.Span) {
			a := sp.Attributes()
			a.PutStr("gen_ai.completion.0.role", "assistant")
			a.PutStr("gen_ai.completion.0.tool_calls.0.id", "call_a")
			a.PutStr("gen_ai.completion.0.tool_calls.0.name", "lookup")
			a.PutStr("gen_ai.completion.0.tool_calls.0.arguments", `{"q":1}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRun("shapes", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			tt.set(r.chat("inf", "", 0, 100, 10, 5, nil, nil, "tool_calls"))
			r.tool("call", "", "lookup", "call_a", 200, 300, `{"q":2}`, nil)
			assert.Equal(t, []string{"argument_drift " + strings.Join(labels(r, "inf", "call"), ",") + " call_a"}, summary(judge.Audit(r.records())))
		})
	}
}

// TestAuditGolden runs the audit over the converter's golden artifacts,
// which come from real instrumentations: they hold no error, and the
// warnings they do hold are real (see the comments).
func TestAuditGolden(t *testing.T) {
	want := map[string][]string{
		// The OpenInference LangChain instrumentation records no finish
		// reason on its LLM spans (the retriever span needs none).
		"openinference.jsonl": {
			"missing_finish_reason 10b24eaa855902ad",
			"missing_finish_reason 4d19206018547531",
		},
		// Langfuse's generation observations carry the assistant message
		// as their output, and no finish reason anywhere. (Its embedding
		// needs none, and its failed generation, level ERROR, has no
		// response to have one.)
		"langfuse.jsonl": {
			"missing_finish_reason 1a00000000000003",
			"missing_finish_reason 1a00000000000005",
		},
	}
	files, err := filepath.Glob("../testdata/golden/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			recs, _ := artifacttest.Read(t, f)
			got := judge.Audit(recs)
			assert.Equal(t, want[filepath.Base(f)], summary(got))
			for _, fd := range got {
				assert.NotEqual(t, judge.Error, fd.Severity, fd.String())
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range judge.Severities() {
		got, err := judge.ParseSeverity(string(s))
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	_, err := judge.ParseSeverity("fatal")
	assert.ErrorContains(t, err, `"fatal"`)
	assert.True(t, judge.Error.AtLeast(judge.Warning))
	assert.True(t, judge.Warning.AtLeast(judge.Warning))
	assert.False(t, judge.Info.AtLeast(judge.Warning))
}

func TestFindingTextAndJSON(t *testing.T) {
	f := judge.Finding{Category: judge.ArgumentDrift, Severity: judge.Error, Message: "m", TraceID: "t", SpanIDs: []string{"a", "b"}, ToolCallID: "c"}
	assert.Equal(t, "error argument_drift: m (trace t, span a, b, tool call c)", f.String())
	raw, err := json.Marshal(f)
	require.NoError(t, err)
	assert.JSONEq(t, `{"category":"argument_drift","severity":"error","message":"m","trace_id":"t","span_ids":["a","b"],"tool_call_id":"c"}`, string(raw))
	f.ToolCallID = ""
	assert.Equal(t, "error argument_drift: m (trace t, span a, b)", f.String())
	assert.NotContains(t, string(must(json.Marshal(f))), "tool_call_id")
	assert.Equal(t, []judge.Finding{}, judge.Audit(nil), "never nil: JSON [] rather than null")
}

// budgetRun is a planner whose second model call asks for a hotel
// search that never runs. stop says how the run ended: "agent" (the agent
// span failed with budget_exceeded), "marker" (the span carries
// agenttrace.budget.exceeded), or "" (it just ended).
func budgetRun(stop string, later bool) *run {
	r := newRun("budget-"+stop, time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	root := r.agent("root", "", "planner", 0, 5000, 900, 120)
	r.chat("i1", "root", 100, 1000, 300, 40, tripInput(0),
		assistant(toolCall("call_f1", "search_flights", obj{"origin": "BER", "destination": "LIS"})), "tool_calls")
	r.tool("c1", "root", "search_flights", "call_f1", 1100, 1500, js(obj{"origin": "BER", "destination": "LIS"}), js(obj{"ok": true}))
	r.chat("i2", "root", 1600, 2600, 600, 80, tripInput(1),
		assistant(toolCall("call_h1", "find_hotels", obj{"city": "Lisbon"})), "tool_calls")
	if later {
		r.chat("i3", "root", 2700, 3000, 0, 0, tripInput(2), assistant(obj{"type": "text", "content": "done"}), "stop")
	}
	switch stop {
	case "agent":
		fail(root, judge.BudgetExceededCode, "agenttrace: token budget exceeded")
	case "marker":
		root.Attributes().PutBool(semconv.BudgetExceeded, true)
	}
	return r
}

// TestAuditBudgetStop: a run its token budget ended is ended, not missing
// the calls its last model call asked for.
func TestAuditBudgetStop(t *testing.T) {
	over := &artifact.Summary{Budget: &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 1040, OverBudget: true}}
	under := &artifact.Summary{Budget: &artifact.BudgetStatus{BudgetTokens: 5000, Spent: 1040}}
	tests := []struct {
		name    string
		run     *run
		trailer *artifact.Summary
		want    []string
	}{
		{"agent stopped by the budget", budgetRun("agent", false), nil, nil},
		{"span marked past the budget", budgetRun("marker", false), nil, nil},
		{"trailer says over budget", budgetRun("", false), over, nil},
		{"trailer under budget", budgetRun("", false), under, []string{"missing_call i2"}},
		{"no budget", budgetRun("", false), nil, []string{"missing_call i2"}},
		{"a model call came after: the call is missing", budgetRun("agent", true), nil, []string{"missing_call i2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := judge.Audit(tt.run.records(), judge.WithTrailer(tt.trailer))
			var sum []string
			for _, f := range got {
				sum = append(sum, string(f.Category)+" "+labelOf(tt.run, f.SpanIDs[0]))
			}
			assert.Equal(t, tt.want, sum)
		})
	}
}

// labelOf names a span of r by its label.
func labelOf(r *run, spanID string) string {
	for _, l := range []string{"root", "i1", "i2", "i3", "c1"} {
		if r.sid(l) == spanID {
			return l
		}
	}
	return spanID
}

// doubles returns the double_instrumentation findings of recs.
func doubles(recs []artifact.Record) []judge.Finding {
	var out []judge.Finding
	for _, f := range judge.Audit(recs) {
		if f.Category == judge.DoubleInstrumentation {
			out = append(out, f)
		}
	}
	return out
}

// naiveAndCounted returns the usage of every inference record added up,
// and what the totals count (the tally, wrappers aside).
func naiveAndCounted(recs []artifact.Record) (naive, counted int64) {
	var tally artifact.Tally
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind == semconv.Inference {
			naive += rd.TokenUsage().Total()
		}
		tally.Add(&recs[i])
	}
	return naive, tally.Summary(nil).Tokens.Total
}

// TestAuditDoubleInstrumentation: a model call recorded twice is flagged,
// once per call, and counted once, in the real captures of two
// instrumentations at once, in a planted run and in seed 002's
// double-wrapped trace; captures of one instrumentation are not flagged.
func TestAuditDoubleInstrumentation(t *testing.T) {
	real := func(lib, scenario string) string {
		return filepath.Join("..", "testdata", "real", lib, "payloads", scenario+".traces.json")
	}
	tests := []struct {
		name, path string
		calls      int  // model calls recorded twice
		nested     bool // counted once by the leaf rule
	}{
		// OpenLLMetry's chat span around the Anthropic SDK's own.
		{"openllmetry-anthropic tool-loop", real("openllmetry-anthropic", "tool-loop"), 2, true},
		{"openllmetry-anthropic stream", real("openllmetry-anthropic", "stream"), 1, true},
		{"openllmetry-anthropic fail", real("openllmetry-anthropic", "fail"), 1, true},
		{"openinference-anthropic double-tool-loop", real("openinference-anthropic", "double-tool-loop"), 2, true},
		{"openinference-anthropic double-stream", real("openinference-anthropic", "double-stream"), 1, true},
		{"openinference-anthropic double-fail", real("openinference-anthropic", "double-fail"), 1, true},
		{"traceloop-sdk anthropic-tool-loop", real("openllmetry-traceloop-sdk", "anthropic-tool-loop"), 2, true},
		// LangChain's and openai's OpenInference spans, each call the root
		// of two unrelated traces.
		{"openinference-langchain double-tool-loop", real("openinference-langchain", "double-tool-loop"), 2, false},
		{"openinference-langchain double-stream", real("openinference-langchain", "double-stream"), 1, false},
		// One instrumentation: nothing to flag.
		{"anthropic-sdk content-tool-loop", real("anthropic-sdk", "content-tool-loop"), 0, true},
		{"anthropic-sdk content-stream", real("anthropic-sdk", "content-stream"), 0, true},
		{"anthropic-sdk content-fail", real("anthropic-sdk", "content-fail"), 0, true},
		{"openinference-anthropic tool-loop", real("openinference-anthropic", "tool-loop"), 0, true},
		{"openinference-langchain tool-loop", real("openinference-langchain", "tool-loop"), 0, true},
		{"vercel-ai-v7 tool-loop", real("vercel-ai-v7", "tool-loop"), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(tt.path)
			require.NoError(t, err)
			defer f.Close()
			td, err := converter.ReadOTLP(f, converter.FormatOTLPJSON, tt.path)
			require.NoError(t, err)
			recs := artifact.Records(td)
			got := doubles(recs)
			require.Len(t, got, tt.calls, "%v", got)
			for _, f := range got {
				assert.Equal(t, judge.Warning, f.Severity)
				assert.Len(t, f.SpanIDs, 2, "the two records of the call")
			}
			if naive, counted := naiveAndCounted(recs); tt.calls > 0 && tt.nested && naive > 0 {
				assert.Less(t, counted, naive, "the outer record's usage is not added")
			}
		})
	}

	t.Run("planted", func(t *testing.T) {
		r := auditRun()
		i6 := r.find("i6")
		// The provider SDK's own span inside the framework's, same request.
		in, _ := i6.Attributes().Get(semconv.InputMessages)
		sdk := r.chat("i6-sdk", "i6", 15200, 19800, 900, 200, in.AsString(),
			assistant(obj{"type": "text", "content": "Fly TP 571 for 142 EUR, stay at Casa do Largo; expect 23-25 C."}), "stop")
		sdk.SetName("anthropic.messages.create")
		recs := r.records()
		got := doubles(recs)
		require.Len(t, got, 1)
		assert.Equal(t, []string{r.sid("i6"), r.sid("i6-sdk")}, got[0].SpanIDs)
		assert.Equal(t, `inference "chat gpt-4o" and the inference under it record the same request: one model call recorded twice (counted once)`, got[0].Message)
		assert.Len(t, judge.Audit(recs), 1, "nothing else: the agent's 3435 tokens are not under-reported against a call counted twice")
		_, counted := naiveAndCounted(recs)
		_, clean := naiveAndCounted(auditRun().records())
		assert.Equal(t, clean, counted, "counted once")
	})

	t.Run("planted usage sum", func(t *testing.T) {
		r := auditRun()
		// An agent-boundary recorder's call around two round-trips of its
		// own input, reporting their usage summed (900+200 = 600+100 + 300+100).
		r.chat("i6-a", "i6", 15200, 17000, 600, 100, tripInput(1), assistant(obj{"type": "text", "content": "…"}), "stop")
		r.chat("i6-b", "i6", 17100, 19800, 300, 100, tripInput(2), assistant(obj{"type": "text", "content": "…"}), "stop")
		recs := r.records()
		got := doubles(recs)
		require.Len(t, got, 1)
		assert.Equal(t, []string{r.sid("i6"), r.sid("i6-a"), r.sid("i6-b")}, got[0].SpanIDs)
		assert.Equal(t, `inference "chat gpt-4o" reports 1100 tokens (input + output), the sum of the 2 model calls under it: their usage recorded twice (counted once)`, got[0].Message)
		_, counted := naiveAndCounted(recs)
		_, clean := naiveAndCounted(auditRun().records())
		assert.Equal(t, clean, counted, "counted once")
	})

	t.Run("seed 002 double-wrapped", func(t *testing.T) {
		for file, want := range map[string]int{"agenteval-double.json": 1, "agenteval.json": 0, "agenteval-v10.json": 0} {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "shapes", file))
			require.NoError(t, err)
			var recs []artifact.Record
			_, err = importer.ReadAgentEval(strings.NewReader(string(data)), file, func(r *artifact.Record) error {
				recs = append(recs, *r)
				return nil
			})
			require.NoError(t, err)
			got := doubles(recs)
			require.Len(t, got, want, file)
			if want > 0 {
				// The agent boundary's call asks what the first round-trip asks.
				assert.Equal(t, `inference "chat gpt-4o-mini" and the inference under it record the same request: one model call recorded twice (counted once)`,
					got[0].Message)
				assert.Len(t, got[0].SpanIDs, 2)
				_, counted := naiveAndCounted(recs)
				assert.Equal(t, int64(432), counted, "counted once")
			}
		}
	})
}
