package judge_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/judge"
)

// TestReplaySeedBudgetCode: a call the trace server's budget guard vetoed
// carries its own code, trace.BUDGET_EXCEEDED (HTTP 429; see the seed's
// changelog in ../shared/seeds), and no agenttrace marker. Replay skips it
// as a budget stop, as it does agenttrace's budget_exceeded, instead of
// running the tool and calling the answer a divergence.
func TestReplaySeedBudgetCode(t *testing.T) {
	for _, code := range []string{"trace.BUDGET_EXCEEDED", "budget_exceeded"} {
		t.Run(code, func(t *testing.T) {
			r := newRun("seed-budget", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
			r.tool("c0", "", "search", "call_1", 0, 10, `{"q":"tents"}`, `{"hits":3}`)
			fail(r.tool("c1", "", "search", "call_2", 20, 30, `{"q":"stoves"}`, nil), code, "budget exceeded")
			var ran []string
			rep, err := judge.Replay(context.Background(), r.records(), func(_ context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
				ran = append(ran, string(args))
				return json.RawMessage(`{"hits":3}`), nil
			})
			require.NoError(t, err)
			assert.Equal(t, judge.ReplayCounts{Calls: 2, Matched: 1, Skipped: 1}, rep.Counts)
			assert.Equal(t, []string{`{"q":"tents"}`}, ran, "the vetoed call is not run")
			assert.False(t, rep.Diverged)
		})
	}
}
