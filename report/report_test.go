package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// traceBuilder makes small hand-shaped traces: one span per call, each
// ending after the previous one.
type traceBuilder struct {
	spans ptrace.SpanSlice
	td    ptrace.Traces
	n     byte
}

func newTrace() *traceBuilder {
	td := ptrace.NewTraces()
	return &traceBuilder{td: td, spans: td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()}
}

func (b *traceBuilder) span(name string, parent pcommon.SpanID, attrs map[string]any) pcommon.SpanID {
	b.n++
	sp := b.spans.AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	id := pcommon.SpanID{0, 0, 0, 0, 0, 0, 0, b.n}
	sp.SetSpanID(id)
	sp.SetParentSpanID(parent)
	sp.SetName(name)
	sp.SetStartTimestamp(pcommon.Timestamp(uint64(b.n) * 1e9))
	sp.SetEndTimestamp(pcommon.Timestamp(uint64(b.n)*1e9 + 250e6))
	if err := sp.Attributes().FromRaw(attrs); err != nil {
		panic(err)
	}
	if _, failed := attrs[semconv.ErrorType]; failed {
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage("it broke\nbadly")
	}
	return id
}

func (b *traceBuilder) agent(name string, parent pcommon.SpanID) pcommon.SpanID {
	return b.span("invoke_agent "+name, parent, map[string]any{
		semconv.OperationName: "invoke_agent", semconv.AgentName: name,
		// No usage of its own: one that repeats its children's adds
		// nothing, one above it adds the excess (the usage rule,
		// TestTokensUsageRule).
	})
}

func (b *traceBuilder) chat(model string, parent pcommon.SpanID, in, out int64, finish ...any) pcommon.SpanID {
	attrs := map[string]any{
		semconv.OperationName: "chat", semconv.ProviderName: "openai", semconv.ResponseModel: model,
		semconv.UsageInputTokens: in, semconv.UsageOutputTokens: out,
		semconv.OutputMessages: strings.Repeat("o", int(out)),
	}
	if len(finish) > 0 {
		attrs[semconv.ResponseFinishReasons] = finish
	}
	return b.span("chat "+model, parent, attrs)
}

func (b *traceBuilder) tool(name string, parent pcommon.SpanID, result string, failed bool) pcommon.SpanID {
	attrs := map[string]any{
		semconv.OperationName: "execute_tool", semconv.ToolName: name, semconv.ToolCallResult: result,
	}
	if failed {
		attrs[semconv.ErrorType] = "timeout"
	}
	return b.span("execute_tool "+name, parent, attrs)
}

func (b *traceBuilder) records() []artifact.Record { return artifact.Records(b.td) }

func TestTokensBreakdowns(t *testing.T) {
	b := newTrace()
	planner := b.agent("planner", pcommon.SpanID{})
	b.chat("gpt-4o", planner, 100, 10, "tool_calls")
	step := b.span("step", planner, nil) // a plain span between agent and model
	b.chat("gpt-4o", step, 200, 20, "stop")
	booker := b.agent("booker", planner)
	b.chat("gpt-4o-mini", booker, 50, 5, "end_turn")
	b.tool("search", booker, strings.Repeat("r", 400), false)
	b.tool("search", booker, "short", true)
	b.tool("book", booker, `{"ok":true}`, false)
	b.chat("gpt-4o-mini", pcommon.SpanID{}, 7, 3, "max_tokens")

	rep := report.Tokens(b.records(), nil, report.WithTop(2))

	assert.Equal(t, report.RecordCounts{Call: 3, Inference: 4, Agent: 2, Span: 1}, rep.Records)
	assert.Equal(t, artifact.Tokens{Input: 357, Output: 38, Total: 395}, rep.Tokens, "model calls' usage, summed")
	assert.Nil(t, rep.Budget)
	assert.Equal(t, int64(1), rep.Errors)

	// Costs by hand from pricing/prices.json: gpt-4o 2.5 in / 10 out,
	// gpt-4o-mini 0.15 in / 0.6 out $/MTok.
	wantModelCost := []float64{(300*2.5 + 30*10) / 1e6, (57*0.15 + 8*0.6) / 1e6}
	for i, m := range rep.ByModel {
		require.NotNil(t, m.CostUSD, m.Model)
		assert.InDelta(t, wantModelCost[i], *m.CostUSD, 1e-15, m.Model)
		rep.ByModel[i].Cost = report.Cost{}
	}
	wantAgentCost := []float64{(300*2.5 + 30*10) / 1e6, (50*0.15 + 5*0.6) / 1e6, (7*0.15 + 3*0.6) / 1e6}
	for i, a := range rep.ByAgent {
		require.NotNil(t, a.CostUSD, a.Agent)
		assert.InDelta(t, wantAgentCost[i], *a.CostUSD, 1e-15, a.Agent)
		rep.ByAgent[i].Cost = report.Cost{}
	}
	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, wantModelCost[0]+wantModelCost[1], *rep.CostUSD, 1e-15)

	assert.Equal(t, []report.ModelUsage{
		{Model: "gpt-4o", Provider: "openai", Count: 2, Tokens: artifact.Tokens{Input: 300, Output: 30, Total: 330}, PricedAs: "gpt-4o"},
		{Model: "gpt-4o-mini", Provider: "openai", Count: 2, Tokens: artifact.Tokens{Input: 57, Output: 8, Total: 65}, PricedAs: "gpt-4o-mini"},
	}, rep.ByModel)

	assert.Equal(t, []report.AgentUsage{
		{Agent: "planner", Runs: 1, Inferences: 2, Tokens: artifact.Tokens{Input: 300, Output: 30, Total: 330}},
		{Agent: "booker", Runs: 1, Inferences: 1, Tokens: artifact.Tokens{Input: 50, Output: 5, Total: 55}},
		{Agent: report.NoAgent, Runs: 0, Inferences: 1, Tokens: artifact.Tokens{Input: 7, Output: 3, Total: 10}},
	}, rep.ByAgent)

	assert.Equal(t, []report.ToolUsage{
		{Tool: "search", Calls: 2, Errors: 1, EstimatedTokens: 100 + 2, DurationMS: 500},
		{Tool: "book", Calls: 1, Errors: 0, EstimatedTokens: 3, DurationMS: 250},
	}, rep.ByTool)

	assert.Equal(t, map[string]int64{"tool_call": 1, "stop": 2, "length": 1}, rep.FinishReasons)

	require.Len(t, rep.Largest, 2)
	assert.Equal(t, report.Response{Kind: "call", TraceID: pcommon.TraceID{1}.String(),
		SpanID: "0000000000000007", Name: "execute_tool search", Tool: "search", Bytes: 400, Tokens: 100}, rep.Largest[0])
	assert.Equal(t, "inference", rep.Largest[1].Kind)
	assert.Equal(t, int64(20), rep.Largest[1].Bytes)
	assert.Equal(t, "gpt-4o", rep.Largest[1].Model)

	require.Len(t, rep.Failures, 1)
	assert.Equal(t, report.Failure{Kind: "call", TraceID: pcommon.TraceID{1}.String(), SpanID: "0000000000000008",
		Name: "execute_tool search", Code: "timeout", Message: "it broke\nbadly"}, rep.Failures[0])
}

func TestTokensBudget(t *testing.T) {
	tests := []struct {
		name   string
		budget *artifact.Budget
		want   *artifact.BudgetStatus
	}{
		{"none", nil, nil},
		{"under", &artifact.Budget{Tokens: 1000}, &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 110, Remaining: 890, WarnThreshold: 0.8}},
		{"near", &artifact.Budget{Tokens: 120, WarnThreshold: 0.5}, &artifact.BudgetStatus{BudgetTokens: 120, Spent: 110, Remaining: 10, NearBudget: true, WarnThreshold: 0.5}},
		{"over", &artifact.Budget{Tokens: 100}, &artifact.BudgetStatus{BudgetTokens: 100, Spent: 110, OverBudget: true, WarnThreshold: 0.8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTrace()
			b.chat("m", pcommon.SpanID{}, 100, 10)
			meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
			meta.Budget = tt.budget
			assert.Equal(t, tt.want, report.Tokens(b.records(), meta).Budget)
		})
	}
}

func TestTokensEmptyJSONShape(t *testing.T) {
	prices, err := pricing.Default()
	require.NoError(t, err)
	raw, err := json.Marshal(report.Tokens(nil, nil))
	require.NoError(t, err)
	// A run without model calls costs nothing, and says so.
	assert.JSONEq(t, `{
		"records":{"call":0,"inference":0,"agent":0,"span":0},
		"errors":0,"budget_stopped":0,
		"tokens":{"input":0,"output":0,"cache_read":0,"cache_creation":0,"reasoning":0,"total":0},
		"budget":null,
		"from_trailer":false,"dropped":0,"truncated":0,"notes":[],
		"by_model":[],"by_tool":[],"by_agent":[],"finish_reasons":{},"largest":[],"failures":[],"usage_levels":[],"evaluations":[],
		"cost_usd":0,"cost_unknown":0,"cost_from_spans":0,"cost_unknown_models":[],"price_data":"genai-prices `+prices.Version+`"
	}`, string(raw))
}

// TestTokensUsageRule: an agent holding more than its model calls report
// (a model span with the last step of a multi-step call) adds the excess,
// per class, and is listed as a disagreeing level; one repeating the sum
// adds nothing and is not listed.
func TestTokensUsageRule(t *testing.T) {
	for _, tc := range []struct {
		name          string
		agentIn       int64
		total, listed int64
	}{
		{"agent holds more", 300, 300 + 10, 1},
		{"agent repeats the sum", 100, 100 + 10, 0},
		{"agent holds less", 40, 100 + 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTrace()
			ag := b.span("invoke_agent a", pcommon.SpanID{}, map[string]any{
				semconv.OperationName: "invoke_agent", semconv.AgentName: "a", semconv.UsageInputTokens: tc.agentIn,
			})
			b.chat("gpt-4o", ag, 100, 10)
			rep := report.Tokens(b.records(), nil)
			assert.Equal(t, tc.total, rep.Tokens.Total)
			require.Len(t, rep.UsageLevels, int(tc.listed))
			if tc.listed > 0 {
				l := rep.UsageLevels[0]
				assert.Equal(t, "invoke_agent a", l.Name)
				assert.Equal(t, tc.agentIn, l.Reported.Input)
				assert.Equal(t, int64(100), l.Children.Input)
				assert.Equal(t, max(tc.agentIn-100, 0), l.Counted.Input)
			}
		})
	}
}

func TestTokensModelRowJSON(t *testing.T) {
	b := newTrace()
	b.chat("m", pcommon.SpanID{}, 100, 10)
	raw, err := json.Marshal(report.Tokens(b.records(), nil).ByModel)
	require.NoError(t, err)
	// "m" is no model the price data knows: its cost is unknown (null),
	// not $0.
	assert.JSONEq(t, `[{"model":"m","provider":"openai","count":1,"input":100,"output":10,
		"cache_read":0,"cache_creation":0,"reasoning":0,"total":110,
		"cost_usd":null,"cost_unknown":1,"cost_from_spans":0}]`, string(raw))
}

func TestTokensParentCycleTerminates(t *testing.T) {
	b := newTrace()
	// Two spans that name each other as parent, and a model call under them.
	first := b.span("a", pcommon.SpanID{0, 0, 0, 0, 0, 0, 0, 2}, nil)
	second := b.span("b", first, nil)
	b.chat("m", second, 1, 1)
	rep := report.Tokens(b.records(), nil)
	require.Len(t, rep.ByAgent, 1)
	assert.Equal(t, report.NoAgent, rep.ByAgent[0].Agent)
}

func TestTokensTopZeroListsNone(t *testing.T) {
	b := newTrace()
	b.tool("t", pcommon.SpanID{}, "result", false)
	assert.Empty(t, report.Tokens(b.records(), nil, report.WithTop(0)).Largest)
	assert.Len(t, report.Tokens(b.records(), nil, report.WithTop(-3)).Largest, 0)
	assert.Len(t, report.Tokens(b.records(), nil).Largest, 1)
}

func TestWriteText(t *testing.T) {
	b := newTrace()
	a := b.agent("planner", pcommon.SpanID{})
	b.chat("gpt-4o", a, 12345, 678, "stop")
	b.tool("search", a, "result", true)
	meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
	meta.Budget = &artifact.Budget{Tokens: 14000}

	var out bytes.Buffer
	require.NoError(t, report.Tokens(b.records(), meta).WriteText(&out))
	text := out.String()
	for _, want := range []string{
		"Records  3 (1 call, 1 inference, 1 agent, 0 span)",
		"Tokens   13,023 (input 12,345, output 678; cache read 0, cache creation 0, reasoning 0)",
		"Budget   14,000 tokens, spent 13,023 (93.0%), remaining 977: near budget (warns at 80%)",
		// gpt-4o at 2.5 in / 10 out $/MTok: 12,345 × 2.5 + 678 × 10 =
		// 37,642.5 µ$ ≈ $0.0376.
		"Cost     $0.0376 (priced with genai-prices ",
		"By model", "gpt-4o", "By agent", "planner", "By tool", "search", "Finish reasons", "Failures",
		"it broke badly",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "\t")
	assert.NotRegexp(t, ` \n`, text, "no trailing blanks")
}

// TestTokensTrailer: a trailer that accounts for more records than its
// artifact holds gives the totals and the budget; one that does not
// changes nothing but the truncation count.
func TestTokensTrailer(t *testing.T) {
	// Two chat records of 100 + 10 tokens are in the file.
	two := artifact.Tokens{Input: 200, Output: 20, Total: 220}
	trailer := func(records, dropped, truncated int64, tok artifact.Tokens, budget *artifact.BudgetStatus) *artifact.Summary {
		return &artifact.Summary{Records: records, Inferences: records, Dropped: dropped, Truncated: truncated, Tokens: tok, Budget: budget}
	}
	over := &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 1200, OverBudget: true, WarnThreshold: 0.8}
	tests := []struct {
		name        string
		sum         *artifact.Summary
		header      *artifact.Budget
		wantTokens  artifact.Tokens
		wantBudget  *artifact.BudgetStatus
		fromTrailer bool
		dropped     int64
		truncated   int64
		notes       []string // substrings, one per note
	}{
		{name: "no trailer", wantTokens: two, notes: []string{}},
		{name: "agrees", sum: trailer(2, 0, 0, two, nil), wantTokens: two, notes: []string{}},
		{
			name: "dropped by a cap, budget in the header", header: &artifact.Budget{Tokens: 1000},
			sum:        trailer(2, 6, 0, artifact.Tokens{Input: 1000, Output: 200, Total: 1200}, over),
			wantTokens: artifact.Tokens{Input: 1000, Output: 200, Total: 1200}, wantBudget: over,
			fromTrailer: true, dropped: 6, notes: []string{"6 records are not in the file"},
		},
		{
			name:        "dropped, budget only in the trailer",
			sum:         trailer(2, 1, 0, artifact.Tokens{Input: 300, Output: 30, Total: 330}, &artifact.BudgetStatus{BudgetTokens: 400, Spent: 330, Remaining: 70, NearBudget: true, WarnThreshold: 0.8}),
			wantTokens:  artifact.Tokens{Input: 300, Output: 30, Total: 330},
			wantBudget:  &artifact.BudgetStatus{BudgetTokens: 400, Spent: 330, Remaining: 70, NearBudget: true, WarnThreshold: 0.8},
			fromTrailer: true, dropped: 1, notes: []string{"1 record is not in the file"},
		},
		{
			name: "a record the file lost", header: &artifact.Budget{Tokens: 1000},
			sum:         trailer(3, 0, 0, artifact.Tokens{Input: 300, Output: 30, Total: 330}, nil),
			wantTokens:  artifact.Tokens{Input: 300, Output: 30, Total: 330},
			wantBudget:  &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 330, Remaining: 670, WarnThreshold: 0.8},
			fromTrailer: true, dropped: 1, notes: []string{"1 record is not in the file"},
		},
		{
			name: "fewer records than the file: the records win", header: &artifact.Budget{Tokens: 1000},
			sum:        trailer(1, 0, 0, artifact.Tokens{Input: 100, Output: 10, Total: 110}, nil),
			wantTokens: two, wantBudget: &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 220, Remaining: 780, WarnThreshold: 0.8},
			notes: []string{},
		},
		{
			name: "truncated only", sum: trailer(2, 0, 3, two, nil), wantTokens: two, truncated: 3,
			notes: []string{"3 attribute values were cut short"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTrace()
			b.chat("m", pcommon.SpanID{}, 100, 10)
			b.chat("m", pcommon.SpanID{}, 100, 10)
			recs := b.records()
			meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
			meta.Budget = tt.header
			rep := report.Tokens(recs, meta, report.WithTrailer(tt.sum, recs))

			assert.Equal(t, tt.wantTokens, rep.Tokens)
			assert.Equal(t, tt.wantBudget, rep.Budget)
			assert.Equal(t, tt.fromTrailer, rep.FromTrailer)
			assert.Equal(t, tt.dropped, rep.Dropped)
			assert.Equal(t, tt.truncated, rep.Truncated)
			assert.Equal(t, report.RecordCounts{Inference: 2}, rep.Records, "the records in the file")
			if tt.fromTrailer {
				require.NotNil(t, rep.InFile)
				assert.Equal(t, two, *rep.InFile)
			} else {
				assert.Nil(t, rep.InFile)
			}
			require.Len(t, rep.Notes, len(tt.notes))
			for i, n := range tt.notes {
				assert.Contains(t, rep.Notes[i], n)
			}
		})
	}
}

// TestTokensTrailersOfSeveralArtifacts: each trailer replaces only its own
// artifact's share of the totals.
func TestTokensTrailersOfSeveralArtifacts(t *testing.T) {
	a, b := newTrace(), newTrace()
	a.chat("m", pcommon.SpanID{}, 100, 10)
	b.chat("m", pcommon.SpanID{}, 40, 4)
	ra, rb := a.records(), b.records()
	all := append(append([]artifact.Record{}, ra...), rb...)
	sumA := &artifact.Summary{Records: 1, Inferences: 1, Dropped: 2, Tokens: artifact.Tokens{Input: 300, Output: 30, Total: 330}}
	sumB := &artifact.Summary{Records: 1, Inferences: 1, Tokens: artifact.Tokens{Input: 40, Output: 4, Total: 44}}
	meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
	meta.Budget = &artifact.Budget{Tokens: 500}
	rep := report.Tokens(all, meta, report.WithTrailer(sumA, ra), report.WithTrailer(sumB, rb), report.WithTrailer(nil, nil))

	assert.Equal(t, artifact.Tokens{Input: 340, Output: 34, Total: 374}, rep.Tokens)
	assert.Equal(t, &artifact.BudgetStatus{BudgetTokens: 500, Spent: 374, Remaining: 126, WarnThreshold: 0.8}, rep.Budget)
	assert.Equal(t, int64(2), rep.Dropped)
	assert.Equal(t, artifact.Tokens{Input: 140, Output: 14, Total: 154}, *rep.InFile)
}

// TestTokensTextTrailer: the text report says where its totals come from
// and what was dropped or truncated.
func TestTokensTextTrailer(t *testing.T) {
	b := newTrace()
	b.chat("m", pcommon.SpanID{}, 100, 10)
	recs := b.records()
	meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
	meta.Budget = &artifact.Budget{Tokens: 1000}
	sum := &artifact.Summary{Records: 1, Inferences: 1, Dropped: 6, Truncated: 1,
		Tokens: artifact.Tokens{Input: 1000, Output: 200, Total: 1200}}
	var buf bytes.Buffer
	require.NoError(t, report.Tokens(recs, meta, report.WithTrailer(sum, recs)).WriteText(&buf))
	out := buf.String()
	assert.Regexp(t, `(?m)^Tokens +1,200 \(input 1,000, output 200;.*\), from the summary trailer; the records in the file add up to 110$`, out)
	assert.Regexp(t, `(?m)^Budget +1,000 tokens, spent 1,200 \(120\.0%\), remaining 0: OVER BUDGET$`, out)
	assert.Regexp(t, `(?m)^Dropped +6 records, not in the file$`, out)
	assert.Regexp(t, `(?m)^Truncated +1 value$`, out)
	assert.Regexp(t, `(?m)^Note +6 records are not in the file .*details are not in the file`, out)
	assert.Regexp(t, `(?m)^Note +1 attribute value was cut short .*agenttrace\.truncated\.<key>`, out)
}

// TestTokensTruncatedMarkers: values marked as truncated are counted from
// the records when no trailer says so.
func TestTokensTruncatedMarkers(t *testing.T) {
	b := newTrace()
	b.tool("fetch", pcommon.SpanID{}, "cut", false)
	recs := b.records()
	recs[0].Span.Attributes().PutInt(artifact.TruncatedPrefix+semconv.ToolCallResult, 1<<30)
	rep := report.Tokens(recs, nil)
	assert.Equal(t, int64(1), rep.Truncated)
	require.Len(t, rep.Notes, 1)
	assert.Contains(t, rep.Notes[0], "1 attribute value was cut short")
	assert.Equal(t, int64(1<<28), rep.ByTool[0].EstimatedTokens, "the estimate counts the whole result")
}
