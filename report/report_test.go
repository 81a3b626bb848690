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

	"github.com/agenttrace/agenttrace/converter"
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
		// An agent's own usage repeats its children's and must not count.
		semconv.UsageInputTokens: 1_000_000,
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

func (b *traceBuilder) records() []converter.Record { return converter.Records(b.td) }

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
	assert.Equal(t, converter.Tokens{Input: 357, Output: 38, Total: 395}, rep.Tokens, "agent usage never counts")
	assert.Nil(t, rep.Budget)
	assert.Equal(t, int64(1), rep.Errors)

	assert.Equal(t, []report.ModelUsage{
		{Model: "gpt-4o", Provider: "openai", Count: 2, Tokens: converter.Tokens{Input: 300, Output: 30, Total: 330}},
		{Model: "gpt-4o-mini", Provider: "openai", Count: 2, Tokens: converter.Tokens{Input: 57, Output: 8, Total: 65}},
	}, rep.ByModel)

	assert.Equal(t, []report.AgentUsage{
		{Agent: "planner", Runs: 1, Inferences: 2, Tokens: converter.Tokens{Input: 300, Output: 30, Total: 330}},
		{Agent: "booker", Runs: 1, Inferences: 1, Tokens: converter.Tokens{Input: 50, Output: 5, Total: 55}},
		{Agent: report.NoAgent, Runs: 0, Inferences: 1, Tokens: converter.Tokens{Input: 7, Output: 3, Total: 10}},
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
		budget *converter.Budget
		want   *converter.BudgetStatus
	}{
		{"none", nil, nil},
		{"under", &converter.Budget{Tokens: 1000}, &converter.BudgetStatus{BudgetTokens: 1000, Spent: 110, Remaining: 890, WarnThreshold: 0.8}},
		{"near", &converter.Budget{Tokens: 120, WarnThreshold: 0.5}, &converter.BudgetStatus{BudgetTokens: 120, Spent: 110, Remaining: 10, NearBudget: true, WarnThreshold: 0.5}},
		{"over", &converter.Budget{Tokens: 100}, &converter.BudgetStatus{BudgetTokens: 100, Spent: 110, OverBudget: true, WarnThreshold: 0.8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTrace()
			b.chat("m", pcommon.SpanID{}, 100, 10)
			meta := converter.NewMeta(converter.MetaFor(nil).StartedAt)
			meta.Budget = tt.budget
			assert.Equal(t, tt.want, report.Tokens(b.records(), meta).Budget)
		})
	}
}

func TestTokensEmptyJSONShape(t *testing.T) {
	raw, err := json.Marshal(report.Tokens(nil, nil))
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"records":{"call":0,"inference":0,"agent":0,"span":0},
		"errors":0,
		"tokens":{"input":0,"output":0,"cache_read":0,"cache_creation":0,"reasoning":0,"total":0},
		"budget":null,
		"by_model":[],"by_tool":[],"by_agent":[],"finish_reasons":{},"largest":[],"failures":[]
	}`, string(raw))
}

func TestTokensModelRowJSON(t *testing.T) {
	b := newTrace()
	b.chat("m", pcommon.SpanID{}, 100, 10)
	raw, err := json.Marshal(report.Tokens(b.records(), nil).ByModel)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"model":"m","provider":"openai","count":1,"input":100,"output":10,
		"cache_read":0,"cache_creation":0,"reasoning":0,"total":110}]`, string(raw))
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
	meta := converter.NewMeta(converter.MetaFor(nil).StartedAt)
	meta.Budget = &converter.Budget{Tokens: 14000}

	var out bytes.Buffer
	require.NoError(t, report.Tokens(b.records(), meta).WriteText(&out))
	text := out.String()
	for _, want := range []string{
		"Records  3 (1 call, 1 inference, 1 agent, 0 span)",
		"Tokens   13,023 (input 12,345, output 678; cache read 0, cache creation 0, reasoning 0)",
		"Budget   14,000 tokens, spent 13,023 (93.0%), remaining 977: near budget (warns at 80%)",
		"By model", "gpt-4o", "By agent", "planner", "By tool", "search", "Finish reasons", "Failures",
		"it broke badly",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "\t")
	assert.NotRegexp(t, ` \n`, text, "no trailing blanks")
}
