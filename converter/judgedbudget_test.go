package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/converter"
)

// The budget a run was judged against is its trailer's when the trailer
// has one (a root's budget that came after the header is there alone),
// else its header's.
func TestJudgedBudget(t *testing.T) {
	header := &converter.Budget{Tokens: 1000, WarnThreshold: 0.5}
	costOnly := &converter.Summary{Budget: &converter.BudgetStatus{WarnThreshold: 0.8, CostBudget: &converter.CostBudget{BudgetUSD: 0.004}}}
	tokens := &converter.Summary{Budget: &converter.BudgetStatus{BudgetTokens: 500, WarnThreshold: 0.9}}
	for _, tc := range []struct {
		name   string
		header *converter.Budget
		sum    *converter.Summary
		want   *converter.Budget
	}{
		{"no trailer", header, nil, header},
		{"trailer without a budget", header, &converter.Summary{}, header},
		{"neither", nil, &converter.Summary{}, nil},
		{"root's cost budget after a header without one", nil, costOnly, &converter.Budget{USD: 0.004, WarnThreshold: 0.8}},
		{"root's token budget over the writer's", header, tokens, &converter.Budget{Tokens: 500, WarnThreshold: 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, converter.JudgedBudget(tc.header, tc.sum))
		})
	}
}
