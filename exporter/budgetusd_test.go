package agenttraceexporter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// mini makes a span a gpt-4o-mini call: openai prices it at input 0.15,
// output 0.6 $/MTok (pricing/prices.json, genai-prices 0.1.8), so each
// test call of 10 in and 5 out costs 1.5 + 3 = 4.5 $/M = $0.0000045.
var mini = map[string]any{"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini"}

// A run that crosses budget.usd says so in its trailer, as one that
// crosses budget.tokens does; the resource and a late root span override
// the dollars as they do the tokens, and a model of unknown price is
// counted as unpriced, never as $0.
func TestCostBudgetCrossed(t *testing.T) {
	dir := t.TempDir()
	// $0.00001 (10 µ$), near at 80%: 8 µ$.
	e := newTestExporter(t, dir, func(c *Config) { c.Budget = BudgetConfig{USD: 0.00001} })
	dollar := map[string]any{"agenttrace.budget.usd": 1.0}
	push(t, e,
		// Trace 1: three calls, 13.5 µ$: over.
		spec{tid: 1, sid: 2, parent: 1, attrs: mini}, spec{tid: 1, sid: 3, parent: 1, attrs: mini}, spec{tid: 1, sid: 4, parent: 1, attrs: mini},
		spec{tid: 1, sid: 1},
		// Trace 2: two calls, 9 µ$: near.
		spec{tid: 2, sid: 2, parent: 1, attrs: mini}, spec{tid: 2, sid: 3, parent: 1, attrs: mini}, spec{tid: 2, sid: 1},
		// Trace 3: the resource's $1: under.
		spec{tid: 3, sid: 2, parent: 1, attrs: mini, res: dollar}, spec{tid: 3, sid: 1, res: dollar},
		// Trace 4: one call (4.5 µ$); its root, later, says $0.000004.
		spec{tid: 4, sid: 2, parent: 1, attrs: mini},
		// Trace 5: one priced call and two of a model no price data knows.
		spec{tid: 5, sid: 2, parent: 1, attrs: mini}, spec{tid: 5, sid: 3, parent: 1}, spec{tid: 5, sid: 4, parent: 1}, spec{tid: 5, sid: 1},
	)
	push(t, e, spec{tid: 4, sid: 1, attrs: map[string]any{"agenttrace.budget.usd": 0.000004}})
	require.NoError(t, e.shutdown(context.Background()))

	tests := []struct {
		tid        byte
		header     float64 // the header's budget_usd
		want       artifact.CostBudget
		overTokens bool
	}{
		{1, 0.00001, artifact.CostBudget{BudgetUSD: 0.00001, SpentUSD: 0.0000135, OverBudgetUSD: true}, false},
		{2, 0.00001, artifact.CostBudget{BudgetUSD: 0.00001, SpentUSD: 0.000009, RemainingUSD: 0.00001 - atRunTime(0.000009), NearBudgetUSD: true}, false},
		{3, 1, artifact.CostBudget{BudgetUSD: 1, SpentUSD: 0.0000045, RemainingUSD: 1 - atRunTime(0.0000045)}, false},
		{4, 0.00001, artifact.CostBudget{BudgetUSD: 0.000004, SpentUSD: 0.0000045, OverBudgetUSD: true}, false},
		{5, 0.00001, artifact.CostBudget{BudgetUSD: 0.00001, SpentUSD: 0.0000045, RemainingUSD: 0.00001 - atRunTime(0.0000045), UnpricedCalls: 2}, false},
	}
	for _, tt := range tests {
		a := readArtifact(t, tracePath(dir, tt.tid))
		require.NotNil(t, a.meta.Budget, "trace %d", tt.tid)
		assert.Equal(t, tt.header, a.meta.Budget.USD, "trace %d: header budget_usd", tt.tid)
		assert.Zero(t, a.meta.Budget.Tokens, "trace %d: no token budget", tt.tid)
		require.NotNil(t, a.summary, "trace %d", tt.tid)
		require.NotNil(t, a.summary.Budget, "trace %d", tt.tid)
		require.NotNil(t, a.summary.Budget.CostBudget, "trace %d", tt.tid)
		assert.Equal(t, tt.want, *a.summary.Budget.CostBudget, "trace %d", tt.tid)
		assert.Equal(t, tt.overTokens, a.summary.Budget.OverBudget, "trace %d: over_budget keeps its token meaning", tt.tid)
	}
}

// atRunTime returns f unchanged, computed at run time: a writer subtracts
// floats at run time, and the compiler would subtract the constants
// exactly.
func atRunTime(f float64) float64 { return f }
