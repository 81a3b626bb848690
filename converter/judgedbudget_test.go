package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/artifact"
)

// The budget a run was judged against is its trailer's when the trailer
// has one (a root's budget that came after the header is there alone),
// else its header's.
func TestJudgedBudget(t *testing.T) {
	header := &artifact.Budget{Tokens: 1000, WarnThreshold: 0.5}
	costOnly := &artifact.Summary{Budget: &artifact.BudgetStatus{WarnThreshold: 0.8, CostBudget: &artifact.CostBudget{BudgetUSD: 0.004}}}
	tokens := &artifact.Summary{Budget: &artifact.BudgetStatus{BudgetTokens: 500, WarnThreshold: 0.9}}
	for _, tc := range []struct {
		name   string
		header *artifact.Budget
		sum    *artifact.Summary
		want   *artifact.Budget
	}{
		{"no trailer", header, nil, header},
		{"trailer without a budget", header, &artifact.Summary{}, header},
		{"neither", nil, &artifact.Summary{}, nil},
		{"root's cost budget after a header without one", nil, costOnly, &artifact.Budget{USD: 0.004, WarnThreshold: 0.8}},
		{"root's token budget over the writer's", header, tokens, &artifact.Budget{Tokens: 500, WarnThreshold: 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, artifact.JudgedBudget(tc.header, tc.sum))
		})
	}
}
