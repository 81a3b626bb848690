package bridge_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bridge"
)

// TestBudgetUSDInTheArtifact: WithBudgetUSD is written into the header as
// budget_usd, as the collector exporter's budget.usd is, and the trailer's
// dollars are the live budget's. Each chat is gpt-4o (2.5 in / 10 out
// $/MTok): 300 × 2.5 + 100 × 10 = 1,750 µ$ a call; four calls are $0.007,
// over $0.006.
func TestBudgetUSDInTheArtifact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	p := newProcessor(t, bridge.WithFile(path), bridge.WithBudget(100_000), bridge.WithBudgetUSD(0.006))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent a")
	for range 4 {
		chat(ctx, tr, 300, 100)
	}
	live, ok := p.CostStatus(ctx)
	require.True(t, ok)
	root.End()
	require.NoError(t, p.Shutdown(context.Background()))

	_, r := artifact(t, readFile(t, path))
	require.NotNil(t, r.Meta().Budget)
	assert.Equal(t, 0.006, r.Meta().Budget.USD, "header budget_usd")
	assert.Equal(t, int64(100_000), r.Meta().Budget.Tokens)
	sum := r.Summary()
	require.NotNil(t, sum)
	require.NotNil(t, sum.Budget)
	c := sum.Budget.CostBudget
	require.NotNil(t, c)
	assert.Equal(t, live.SpentUSD, c.SpentUSD, "the trailer's dollars are the live budget's")
	assert.InDelta(t, 0.007, c.SpentUSD, 1e-12)
	assert.True(t, c.OverBudgetUSD)
	assert.Equal(t, live.OverBudget, c.OverBudgetUSD)
	assert.False(t, sum.Budget.OverBudget, "1,600 of 100,000 tokens")
}
