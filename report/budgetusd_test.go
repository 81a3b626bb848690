package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// The report's budget carries the cost budget's state, with the same
// dollars as the report's cost: one rule prices both (pricing.Total over
// the leaf calls). gpt-4o (openai): input 2.5, output 10 $/MTok, so each
// chat of 1,000 in and 100 out is 2,500 + 1,000 = 3,500 $/M = $0.0035;
// llama-local has no price.
func TestTokensCostBudget(t *testing.T) {
	b := newTrace()
	b.chat("gpt-4o", pcommon.SpanID{}, 1_000, 100)
	b.chat("gpt-4o", pcommon.SpanID{}, 1_000, 100)
	b.chat("llama-local", pcommon.SpanID{}, 700, 70)
	recs := b.records()
	tests := []struct {
		name           string
		budget         artifact.Budget
		over, near     bool
		remaining      float64
		tokensOverFlag bool
	}{
		{name: "under", budget: artifact.Budget{USD: 1}, remaining: 1 - 0.007},
		{name: "near", budget: artifact.Budget{USD: 0.008}, near: true, remaining: 0.008 - 0.007},
		{name: "over", budget: artifact.Budget{USD: 0.005}, over: true},
		{name: "over in dollars, under in tokens", budget: artifact.Budget{Tokens: 100_000, USD: 0.005}, over: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
			meta.Budget = &tt.budget
			rep := report.Tokens(recs, meta)
			require.NotNil(t, rep.Budget)
			c := rep.Budget.CostBudget
			require.NotNil(t, c)
			require.NotNil(t, rep.CostUSD)
			assert.Equal(t, *rep.CostUSD, c.SpentUSD, "the budget's dollars are the report's cost")
			assert.InDelta(t, 0.007, c.SpentUSD, 1e-12)
			assert.Equal(t, int64(1), c.UnpricedCalls, "llama-local: unknown, not $0")
			assert.Equal(t, tt.budget.USD, c.BudgetUSD)
			assert.Equal(t, tt.over, c.OverBudgetUSD)
			assert.Equal(t, tt.near, c.NearBudgetUSD)
			assert.InDelta(t, tt.remaining, c.RemainingUSD, 1e-12)
			assert.False(t, rep.Budget.OverBudget, "over_budget stays the tokens'")

			raw, err := json.Marshal(rep)
			require.NoError(t, err)
			var out struct {
				Budget map[string]any `json:"budget"`
			}
			require.NoError(t, json.Unmarshal(raw, &out))
			for _, k := range []string{"budget_usd", "spent_usd", "remaining_usd", "over_budget_usd", "near_budget_usd", "unpriced_calls", "budget_tokens", "over_budget"} {
				assert.Contains(t, out.Budget, k, "tokens --json budget")
			}
		})
	}

	t.Run("no cost budget, no dollar members", func(t *testing.T) {
		meta := artifact.NewMeta(artifact.MetaFor(nil).StartedAt)
		meta.Budget = &artifact.Budget{Tokens: 100}
		rep := report.Tokens(recs, meta)
		raw, err := json.Marshal(rep.Budget)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "usd")
	})
}

// A trailer that counts records the file no longer holds gives the
// dollars too: its spent_usd replaces its records' share, as its tokens
// do, and its cost budget stands for a header without one.
func TestTokensCostBudgetFromTrailer(t *testing.T) {
	b := newTrace()
	b.span("chat gpt-4o", pcommon.SpanID{}, map[string]any{
		semconv.OperationName: "chat", semconv.ProviderName: "openai", semconv.ResponseModel: "gpt-4o",
		semconv.UsageInputTokens: 1_000, semconv.UsageOutputTokens: 100,
	})
	recs := b.records()
	// The file holds one $0.0035 call; the trailer counts three more
	// dropped by a cap, $0.0105 in all, one of them unpriced.
	sum := &artifact.Summary{Records: 1, Inferences: 1, Dropped: 3,
		Tokens: artifact.Tokens{Input: 4_000, Output: 400, Total: 4_400},
		Budget: &artifact.BudgetStatus{BudgetTokens: 0, Spent: 4_400, WarnThreshold: 0.8,
			CostBudget: &artifact.CostBudget{BudgetUSD: 0.01, SpentUSD: 0.0105, OverBudgetUSD: true, UnpricedCalls: 1}}}
	rep := report.Tokens(recs, artifact.NewMeta(artifact.MetaFor(nil).StartedAt), report.WithTrailer(sum, recs))
	require.True(t, rep.FromTrailer)
	require.NotNil(t, rep.Budget)
	assert.Equal(t, sum.Budget.CostBudget, rep.Budget.CostBudget)
}

func TestBudgetTextCost(t *testing.T) {
	tests := []struct {
		name   string
		budget artifact.BudgetStatus
		want   string
	}{{
		name:   "cost only, near",
		budget: artifact.BudgetStatus{Spent: 4_400, WarnThreshold: 0.8, CostBudget: &artifact.CostBudget{BudgetUSD: 0.01, SpentUSD: 0.0085, RemainingUSD: 0.0015, NearBudgetUSD: true}},
		want:   "$0.0100, spent $0.0085 (85.0%), remaining $0.0015: near cost budget (warns at 80%)\n",
	}, {
		name: "tokens and dollars, over in dollars, a call unpriced",
		budget: artifact.BudgetStatus{BudgetTokens: 10_000, Spent: 4_400, Remaining: 5_600, WarnThreshold: 0.8,
			CostBudget: &artifact.CostBudget{BudgetUSD: 0.01, SpentUSD: 0.0105, OverBudgetUSD: true, UnpricedCalls: 1}},
		want: "10,000 tokens, spent 4,400 (44.0%), remaining 5,600; $0.0100, spent $0.0105 (105.0%) or more, remaining $0 (1 model call of unknown cost not counted): OVER COST BUDGET\n",
	}, {
		name:   "every call unpriced",
		budget: artifact.BudgetStatus{WarnThreshold: 0.8, CostBudget: &artifact.CostBudget{BudgetUSD: 2, RemainingUSD: 2, UnpricedCalls: 3}},
		want:   "$2.00, spent unknown, remaining $2.00 (3 model calls of unknown cost not counted)\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := report.Tokens(nil, nil)
			rep.Budget = &tt.budget
			var sb strings.Builder
			require.NoError(t, rep.WriteText(&sb))
			var line string
			for _, l := range strings.SplitAfter(sb.String(), "\n") {
				if rest, ok := strings.CutPrefix(l, "Budget"); ok {
					line = strings.TrimLeft(rest, " ")
				}
			}
			assert.Equal(t, tt.want, line)
		})
	}
}
