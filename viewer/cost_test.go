package viewer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/report"
)

// TestCostText: no known cost reads "unknown", never $0; a sum that
// misses unpriced calls reads as a lower bound.
func TestCostText(t *testing.T) {
	usd := 0.0242
	zero := 0.0
	tests := []struct {
		name string
		c    report.Cost
		want string
	}{
		{"no priced call", report.Cost{CostUnknown: 3}, "unknown"},
		{"every call priced", report.Cost{CostUSD: &usd}, report.Dollars(&usd)},
		{"some calls unpriced", report.Cost{CostUSD: &usd, CostUnknown: 1}, report.Dollars(&usd) + " or more"},
		{"priced at zero", report.Cost{CostUSD: &zero}, "$0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, CostText(tt.c)) })
	}
}
