package report_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// costModel is a by_model row's cost, as `tokens --json` writes it.
type costModel struct {
	Model    string   `json:"model"`
	CostUSD  *float64 `json:"cost_usd"`
	Unknown  int64    `json:"cost_unknown"`
	FromSpan int64    `json:"cost_from_spans"`
	PricedAs string   `json:"priced_as"`
}

// The expected dollars are computed by hand from the per-million prices in
// pricing/prices.json (genai-prices 0.1.8), quoted in the comments.
func TestTokensCost(t *testing.T) {
	b := newTrace()
	planner := b.agent("planner", pcommon.SpanID{})
	// gpt-4o: input 2.5, cache_read 1.25, output 10 $/MTok; 10,000 input
	// of which 4,000 cached.
	b.span("chat gpt-4o", planner, map[string]any{
		semconv.OperationName: "chat", semconv.ProviderName: "openai", semconv.ResponseModel: "gpt-4o-2024-08-06",
		semconv.UsageInputTokens: 10_000, semconv.UsageOutputTokens: 500, semconv.UsageCacheReadInput: 4_000,
	})
	gpt4o := (6_000*2.5 + 4_000*1.25 + 500*10) / 1e6
	// claude-sonnet-4-0: input 3, cache_write 3.75, cache_read 0.3,
	// output 15 $/MTok; inside a wrapper inference (ended after it) that
	// repeats its usage and must not be priced twice.
	writer := b.agent("writer", pcommon.SpanID{})
	wrapper := pcommon.SpanID{7: b.n + 2}
	b.span("chat claude", wrapper, map[string]any{
		semconv.OperationName: "chat", semconv.ProviderName: "anthropic", semconv.ResponseModel: "claude-sonnet-4-20250514",
		semconv.UsageInputTokens: 3_000, semconv.UsageOutputTokens: 100,
		semconv.UsageCacheReadInput: 1_000, semconv.UsageCacheCreationInput: 1_500,
	})
	require.Equal(t, wrapper, b.span("ai.generateText", writer, map[string]any{
		semconv.OperationName: "chat", semconv.ProviderName: "anthropic", semconv.ResponseModel: "claude-sonnet-4-20250514",
		semconv.UsageInputTokens: 3_000, semconv.UsageOutputTokens: 100,
		semconv.UsageCacheReadInput: 1_000, semconv.UsageCacheCreationInput: 1_500,
	}))
	claude := (500*3 + 1_000*0.3 + 1_500*3.75 + 100*15) / 1e6
	// A span that reports its own cost: it wins over the data's price.
	b.span("chat gpt-4o", writer, map[string]any{
		semconv.OperationName: "chat", semconv.ProviderName: "openai", semconv.ResponseModel: "gpt-4o",
		semconv.UsageInputTokens: 1_000, semconv.UsageOutputTokens: 10, semconv.UsageCost: 0.25,
	})
	// A model no price data knows.
	b.chat("llama-local", pcommon.SpanID{}, 700, 70)

	rep := report.Tokens(b.records(), nil)

	require.NotNil(t, rep.CostUSD)
	assert.InDelta(t, gpt4o+claude+0.25, *rep.CostUSD, 1e-12, "the known costs; the unknown one is not $0 but listed")
	assert.Equal(t, int64(1), rep.CostUnknown)
	assert.Equal(t, []string{"llama-local"}, rep.CostUnknownModels)
	assert.Equal(t, int64(1), rep.CostFromSpans)
	assert.Len(t, rep.Inferences, 4, "the wrapper is not a model call")

	raw, err := json.Marshal(rep.ByModel)
	require.NoError(t, err)
	var rows []costModel
	require.NoError(t, json.Unmarshal(raw, &rows))
	byName := map[string]costModel{}
	for _, r := range rows {
		byName[r.Model] = r
	}
	assert.Nil(t, byName["llama-local"].CostUSD, "unknown price is null, never 0")
	assert.Equal(t, int64(1), byName["llama-local"].Unknown)
	require.NotNil(t, byName["gpt-4o-2024-08-06"].CostUSD)
	assert.InDelta(t, gpt4o, *byName["gpt-4o-2024-08-06"].CostUSD, 1e-12)
	assert.Equal(t, "gpt-4o", byName["gpt-4o-2024-08-06"].PricedAs)
	require.NotNil(t, byName["claude-sonnet-4-20250514"].CostUSD)
	assert.InDelta(t, claude, *byName["claude-sonnet-4-20250514"].CostUSD, 1e-12)
	assert.Equal(t, int64(1), byName["gpt-4o"].FromSpan)

	agents := map[string]report.AgentUsage{}
	for _, a := range rep.ByAgent {
		agents[a.Agent] = a
	}
	require.NotNil(t, agents["planner"].CostUSD)
	assert.InDelta(t, gpt4o, *agents["planner"].CostUSD, 1e-12)
	require.NotNil(t, agents["writer"].CostUSD)
	assert.InDelta(t, claude+0.25, *agents["writer"].CostUSD, 1e-12)
	assert.Nil(t, agents[report.NoAgent].CostUSD)
}

func TestTokensCostAllUnknownIsNull(t *testing.T) {
	b := newTrace()
	b.chat("llama-local", pcommon.SpanID{}, 700, 70)
	rep := report.Tokens(b.records(), nil)
	assert.Nil(t, rep.CostUSD)
	raw, err := json.Marshal(rep)
	require.NoError(t, err)
	var top struct {
		CostUSD json.RawMessage `json:"cost_usd"`
	}
	require.NoError(t, json.Unmarshal(raw, &top))
	assert.Equal(t, "null", string(top.CostUSD))
}

// TestTokensCostNoUsageIsUnknown: a call of a priced model that reports no
// usage (a stream whose SDK never saw the totals) has no known cost, not $0.
func TestTokensCostNoUsageIsUnknown(t *testing.T) {
	b := newTrace()
	b.chat("gpt-4o", pcommon.SpanID{}, 0, 0)
	rep := report.Tokens(b.records(), nil)
	assert.Nil(t, rep.CostUSD)
	assert.Equal(t, []string{"gpt-4o"}, rep.CostUnknownModels)
}

func TestDollars(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	tests := []struct {
		in   *float64
		want string
	}{
		{nil, "unknown"}, {v(0), "$0"}, {v(0.0000123), "$0.000012"}, {v(0.01234), "$0.0123"},
		{v(1.005), "$1.00"}, {v(1.999), "$2.00"}, {v(1234.5), "$1,234.50"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, report.Dollars(tt.in))
	}
}
