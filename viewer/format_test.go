package viewer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer"
)

func TestDurationMS(t *testing.T) {
	assert.Equal(t, "1.23 s", viewer.DurationMS(1234.5))
	assert.Equal(t, "—", viewer.DurationMS(-1))
}

func TestBudgetText(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    *artifact.BudgetStatus
		want  string
		state string
	}{
		{"none", nil, "", viewer.BudgetOK},
		{"ok", &artifact.BudgetStatus{BudgetTokens: 10000, Spent: 2500}, "2,500 of 10,000 tokens (25.0%)", viewer.BudgetOK},
		{"near", &artifact.BudgetStatus{BudgetTokens: 10000, Spent: 9100, NearBudget: true}, "9,100 of 10,000 tokens (91.0%), near the budget", viewer.BudgetNear},
		{"over", &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 1234, OverBudget: true}, "1,234 of 1,000 tokens (123.4%), over budget", viewer.BudgetOver},
		{"dollars", &artifact.BudgetStatus{CostBudget: &artifact.CostBudget{BudgetUSD: 0.1, SpentUSD: 0.09, NearBudgetUSD: true, UnpricedCalls: 1}},
			"$0.0900 or more of $0.1000 (90.0%), near the budget", viewer.BudgetNear},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, viewer.BudgetText(c.in))
			assert.Equal(t, c.state, viewer.BudgetState(c.in))
		})
	}
}
