package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// costBudgetArtifact is the genai-v141 fixture (three claude-sonnet-4-5
// calls, $0.0323 with the vendored prices) written by convert from an
// input whose header holds a cost budget of $0.03: the trailer is over it.
func costBudgetArtifact(t *testing.T) []string {
	t.Helper()
	ls := validArtifact(t)
	in := append([]string{strings.TrimSuffix(ls[0], "}") + `,"budget":{"budget_tokens":0,"budget_usd":0.03,"warn_threshold":0.8}}`}, ls[1:len(ls)-1]...)
	r := agenttrace(t, "", "convert", writeTemp(t, "in.jsonl", join(in)), "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Contains(t, out[0], `"budget_usd":0.03`, "the header keeps the cost budget")
	require.Contains(t, out[len(out)-1], `"over_budget_usd":true`)
	return out
}

// TestValidateCostBudget: validate checks the trailer's dollars against
// the records, priced again, and the rest of the cost budget against its
// spent_usd.
func TestValidateCostBudget(t *testing.T) {
	ls := costBudgetArtifact(t)
	last := len(ls)
	trailer := func(old, new string) string {
		require.Contains(t, ls[last-1], old)
		return join(append(append([]string{}, ls[:last-1]...), strings.Replace(ls[last-1], old, new, 1)))
	}
	tests := []struct {
		name, content string
		code          int
		want          string // the first stdout line, FILE for the path
	}{
		{"as written", join(ls), 0, "FILE: ok (8 records)"},
		{"spent_usd not the records'", trailer(`"spent_usd":0.0322578`, `"spent_usd":0.0122578`), 1, "FILE:10: summary says budget.spent_usd 0.0122578, the records cost 0.0322578 (priced with genai-prices"},
		{"over not said", trailer(`"over_budget_usd":true`, `"over_budget_usd":false`), 1, "FILE:10: summary's cost budget does not follow from its spent_usd"},
		{"unpriced calls not the records'", trailer(`"unpriced_calls":0`, `"unpriced_calls":2`), 1, "FILE:10: summary says budget.unpriced_calls 2, the records have 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "run.jsonl", tt.content)
			r := agenttrace(t, "", "validate", path)
			assert.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, strings.ReplaceAll(tt.want, "FILE", path)), "got %q, want prefix %q", r.stdout, tt.want)
		})
	}
}

// TestTokensCostBudget: tokens shows the cost budget, and --json's budget
// carries its members, with the same dollars as cost_usd.
func TestTokensCostBudget(t *testing.T) {
	path := writeTemp(t, "run.jsonl", join(costBudgetArtifact(t)))
	r := agenttrace(t, "", "tokens", path, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		CostUSD *float64 `json:"cost_usd"`
		Budget  struct {
			BudgetTokens  int64    `json:"budget_tokens"`
			OverBudget    bool     `json:"over_budget"`
			BudgetUSD     float64  `json:"budget_usd"`
			SpentUSD      *float64 `json:"spent_usd"`
			RemainingUSD  *float64 `json:"remaining_usd"`
			OverBudgetUSD bool     `json:"over_budget_usd"`
			NearBudgetUSD bool     `json:"near_budget_usd"`
			UnpricedCalls *int64   `json:"unpriced_calls"`
		} `json:"budget"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.NotNil(t, rep.CostUSD)
	require.NotNil(t, rep.Budget.SpentUSD)
	assert.Equal(t, *rep.CostUSD, *rep.Budget.SpentUSD, "one rule prices the run and its budget")
	assert.Equal(t, 0.03, rep.Budget.BudgetUSD)
	require.NotNil(t, rep.Budget.RemainingUSD)
	assert.Zero(t, *rep.Budget.RemainingUSD)
	assert.True(t, rep.Budget.OverBudgetUSD)
	assert.False(t, rep.Budget.NearBudgetUSD)
	assert.False(t, rep.Budget.OverBudget, "no token budget")
	require.NotNil(t, rep.Budget.UnpricedCalls)
	assert.Zero(t, *rep.Budget.UnpricedCalls)

	r = agenttrace(t, "", "tokens", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^Budget +\$0\.0300, spent \$0\.0323 \(10[0-9.]+%\), remaining \$0: OVER COST BUDGET$`, r.stdout)
}
