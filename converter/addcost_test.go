package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
)

// TestTallyAddCost: the cost of calls seen outside any record (dropped
// before they were written) joins the trailer's spent_usd and
// unpriced_calls as a record's does, and can alone cross the budget.
func TestTallyAddCost(t *testing.T) {
	b := &artifact.Budget{USD: 0.001}
	for _, tc := range []struct {
		name      string
		add       []pricing.Cost
		spent     float64
		over      bool
		unpricedN int64
	}{
		{"none", nil, 0, false, 0},
		{"one under", []pricing.Cost{{USD: 0.0005, Source: pricing.FromPrices}}, 0.0005, false, 0},
		{"two cross", []pricing.Cost{{USD: 0.0005, Source: pricing.FromPrices}, {USD: 0.0007, Source: pricing.FromSpan}}, 0.0012, true, 0},
		{"unpriced", []pricing.Cost{{}}, 0, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tot pricing.Total
			for _, c := range tc.add {
				tot.Add(c)
			}
			var tl artifact.Tally
			tl.AddCost(tot)
			assert.Equal(t, tot, tl.Cost())
			s := tl.Summary(b)
			require.NotNil(t, s.Budget)
			c := s.Budget.CostBudget
			require.NotNil(t, c)
			assert.InDelta(t, tc.spent, c.SpentUSD, 1e-12)
			assert.Equal(t, tc.over, c.OverBudgetUSD)
			assert.Equal(t, tc.unpricedN, c.UnpricedCalls)
		})
	}
}
