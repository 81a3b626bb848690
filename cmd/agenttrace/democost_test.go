package main

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCost reads cost_usd off `tokens --json` of paths.
func runCost(t *testing.T, paths []string) (usd float64, inferences int64) {
	t.Helper()
	r := agenttrace(t, "", append([]string{"tokens", "--json"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		CostUSD *float64         `json:"cost_usd"`
		Unknown int64            `json:"cost_unknown"`
		Records map[string]int64 `json:"records"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.NotNil(t, got.CostUSD, "the demo's models are in the price data")
	assert.Zero(t, got.Unknown)
	return *got.CostUSD, got.Records["inference"]
}

// TestDemoBudgetUSD: a cost budget of half what the full run costs stops
// the demo's agent early, as the token budget does; the run it leaves
// costs at least the budget (the call that crossed it ran) and has fewer
// model calls.
func TestDemoBudgetUSD(t *testing.T) {
	t.Parallel()
	_, full := demoRun(t)
	fullCost, fullCalls := runCost(t, full)
	require.Positive(t, fullCost)
	budget := fullCost / 2
	arg := strconv.FormatFloat(budget, 'g', -1, 64)

	r, paths := demoRun(t, "--budget-usd", arg)
	assert.Regexp(t, `(?m)^cost budget exceeded after \d+ model calls: spent \$[\d.]+ of \$[\d.e-]+; stopping$`, r.stderr)
	assert.Contains(t, r.stdout, "planner stopped by its cost budget")
	assert.Regexp(t, `(?m)^Cost +\$[\d.]+ \(priced with genai-prices `, r.stdout, "the demo's summary shows the cost")

	cost, calls := runCost(t, paths)
	assert.GreaterOrEqual(t, cost, budget)
	assert.Less(t, calls, fullCalls, "fewer model calls than the full run")

	v := agenttrace(t, "", append([]string{"validate"}, paths...)...)
	assert.Equal(t, 0, v.code, v.stdout+v.stderr)
}

func TestDemoBudgetUSDUsageErrors(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-0.5", "NaN", "+Inf"} {
		r := agenttrace(t, "", "demo", "--out", t.TempDir(), "--budget-usd", arg)
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "--budget-usd")
		assert.Empty(t, r.stdout)
	}
}
