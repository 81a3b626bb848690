package bridge_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestBudgetUSD: a cost budget is counted and enforced like the token
// budget. Each chat is gpt-4o (2.5 in / 10 out $/MTok in
// pricing/prices.json) with 300 input and 100 output tokens:
// 300 × 2.5 + 100 × 10 = 1,750 µ$ = $0.00175 a call.
func TestBudgetUSD(t *testing.T) {
	const perCall = (300*2.5 + 100*10) / 1e6
	var mu sync.Mutex
	var near, over []bridge.CostStatus
	note := func(to *[]bridge.CostStatus) func(bridge.BudgetEvent) {
		return func(e bridge.BudgetEvent) {
			mu.Lock()
			defer mu.Unlock()
			require.NotNil(t, e.Cost, "a cost crossing carries the cost status")
			*to = append(*to, *e.Cost)
		}
	}
	p := newProcessor(t, bridge.WithFile(filepath.Join(t.TempDir(), "run.jsonl")),
		bridge.WithBudgetUSD(0.006), bridge.WithBudgetCallbacks(note(&near), note(&over)))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent a")
	defer root.End()

	// Near at 80% of $0.006 = $0.0048: after the third call ($0.00525);
	// over after the fourth ($0.007).
	for i, want := range []struct{ near, over bool }{{false, false}, {false, false}, {true, false}, {false, true}} {
		require.NoError(t, p.Guard(ctx), "call %d may run", i)
		chat(ctx, tr, 300, 100)
		cs, ok := p.CostStatus(ctx)
		require.True(t, ok)
		assert.InDelta(t, float64(i+1)*perCall, cs.SpentUSD, 1e-9)
		assert.Equal(t, want.near, cs.NearBudget, "call %d", i)
		assert.Equal(t, want.over, cs.OverBudget, "call %d", i)
	}
	require.ErrorIs(t, p.Guard(ctx), bridge.ErrBudgetExceeded)
	st, ok := p.Status(ctx)
	require.True(t, ok)
	assert.True(t, st.OverBudget, "Status says over when the dollars ran out")
	assert.Equal(t, int64(0), st.BudgetTokens, "no token budget was set")
	require.Len(t, near, 1)
	require.Len(t, over, 1)
	assert.InDelta(t, 3*perCall, near[0].SpentUSD, 1e-9)
	assert.InDelta(t, 4*perCall, over[0].SpentUSD, 1e-9)
}

// TestBudgetUSDSpanCostWinsAndUnknownAddsNothing: a span's own cost is what
// counts; a model the data does not price adds nothing and is reported.
func TestBudgetUSDSpanCostWinsAndUnknownAddsNothing(t *testing.T) {
	var mu sync.Mutex
	var handled []error
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, err)
	}))
	t.Cleanup(func() { otel.SetErrorHandler(prev) })

	p := newProcessor(t, bridge.WithFile(filepath.Join(t.TempDir(), "run.jsonl")), bridge.WithBudgetUSD(1))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent a")
	defer root.End()

	chat(ctx, tr, 300, 100, attribute.String(semconv.ResponseModel, "llama-local"))
	chat(ctx, tr, 300, 100, attribute.String(semconv.ResponseModel, "llama-local"))
	cs, _ := p.CostStatus(ctx)
	assert.Zero(t, cs.SpentUSD)
	mu.Lock()
	require.Len(t, handled, 1, "reported once per model")
	assert.True(t, errors.Is(handled[0], bridge.ErrUnpricedModel))
	mu.Unlock()

	chat(ctx, tr, 300, 100, attribute.Float64(semconv.UsageCost, 0.85))
	cs, _ = p.CostStatus(ctx)
	assert.InDelta(t, 0.85, cs.SpentUSD, 1e-9)
	assert.True(t, cs.NearBudget, "past 80 percent of $1")
	require.NoError(t, p.Guard(ctx))
	chat(ctx, tr, 300, 100, attribute.Float64(semconv.UsageCost, 0.15))
	require.ErrorIs(t, p.Guard(ctx), bridge.ErrBudgetExceeded)
}

func TestBudgetUSDInvalid(t *testing.T) {
	for _, usd := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := bridge.New(bridge.WithWriter(&syncBuffer{}), bridge.WithBudgetUSD(usd))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "cost budget")
	}
}
