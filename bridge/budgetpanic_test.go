package bridge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bridge"
)

// TestEveryBudgetCallbackPanicRecovered: with a token and a cost budget, a
// chat that crosses both fires four callbacks (near and over, tokens and
// dollars); each panics, each panic is recovered and reported through
// otel.Handle as ErrCallbackPanicked, the agent's span.End() returns and the
// span is written. TestBudgetCallbackPanic covers the token budget alone.
func TestEveryBudgetCallbackPanicRecovered(t *testing.T) {
	errs := recordErrors(t)
	var buf syncBuffer
	boom := func(e bridge.BudgetEvent) {
		if e.Cost != nil {
			panic("cost boom")
		}
		panic("token boom")
	}
	// 400 tokens of gpt-4o cost $0.00175: past 10 tokens and past $0.001.
	p := newProcessor(t, bridge.WithWriter(&buf), bridge.WithBudget(10), bridge.WithBudgetUSD(0.001),
		bridge.WithBudgetCallbacks(boom, boom))
	require.NotPanics(t, func() { chat(context.Background(), provider(t, p), 300, 100) })
	require.NoError(t, p.Shutdown(context.Background()))

	recs, _ := readArtifact(t, buf.Bytes())
	assert.Len(t, recs, 1, "the span is written")
	panics := map[string]int{}
	for _, err := range errs() {
		require.ErrorIs(t, err, bridge.ErrCallbackPanicked)
		for _, what := range []string{"token boom", "cost boom"} {
			if strings.Contains(err.Error(), what) {
				panics[what]++
			}
		}
	}
	assert.Equal(t, map[string]int{"token boom": 2, "cost boom": 2}, panics, "near and over of each budget")
}
