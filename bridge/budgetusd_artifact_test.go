package bridge_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
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

	_, r := readArtifact(t, readFile(t, path))
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

// TestBudgetUSDCountsLeavesNotWrappers: the live cost budget follows the
// leaf rule as the trailer does, whichever of a wrapper and its model call
// ends first: gpt-4o-mini (openai: 0.15 in / 0.6 out $/MTok) for 300 in and
// 100 out is 45 + 60 = 105 µ$, counted once; a wrapper reporting its own
// cost of $1 counts nothing either.
func TestBudgetUSDCountsLeavesNotWrappers(t *testing.T) {
	const want = (300*0.15 + 100*0.6) / 1e6
	call := func(s trace.Span, cost float64) {
		s.SetAttributes(attribute.String(semconv.OperationName, "chat"),
			attribute.String(semconv.ProviderName, "openai"), attribute.String(semconv.RequestModel, "gpt-4o-mini"),
			attribute.Int64(semconv.UsageInputTokens, 300), attribute.Int64(semconv.UsageOutputTokens, 100))
		if cost > 0 {
			s.SetAttributes(attribute.Float64(semconv.UsageCost, cost))
		}
	}
	for _, childLast := range []bool{false, true} {
		t.Run(fmt.Sprintf("child ends last %v", childLast), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			p := newProcessor(t, bridge.WithFile(path), bridge.WithBudgetUSD(1))
			tr := provider(t, p)
			ctx, root := tr.Start(context.Background(), "invoke_agent a")
			root.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"))
			cctx, outer := tr.Start(ctx, "chat framework")
			call(outer, 1)
			_, inner := tr.Start(cctx, "chat sdk")
			call(inner, 0)
			if childLast {
				outer.End()
				inner.End()
			} else {
				inner.End()
				outer.End()
			}
			live, ok := p.CostStatus(ctx)
			require.True(t, ok)
			assert.InDelta(t, want, live.SpentUSD, 1e-12, "live")
			root.End()
			require.NoError(t, p.Shutdown(context.Background()))
			_, r := readArtifact(t, readFile(t, path))
			require.NotNil(t, r.Summary().Budget.CostBudget)
			assert.Equal(t, live.SpentUSD, r.Summary().Budget.CostBudget.SpentUSD, "trailer")
		})
	}
}
