package converter_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestBudgetAttrs: the one reading of agenttrace.budget.tokens and
// agenttrace.budget.usd that writers and validate share: positive values
// only, dollars as a double or a whole number, nothing from a wrong type
// or a value that is not a finite number.
func TestBudgetAttrs(t *testing.T) {
	tests := []struct {
		name       string
		set        func(m pcommon.Map)
		wantTokens int64
		wantUSD    float64
	}{
		{"none", func(pcommon.Map) {}, 0, 0},
		{"both", func(m pcommon.Map) { m.PutInt(semconv.BudgetTokens, 5000); m.PutDouble(semconv.BudgetUSD, 0.25) }, 5000, 0.25},
		{"whole dollars", func(m pcommon.Map) { m.PutInt(semconv.BudgetUSD, 2) }, 0, 2},
		{"zero and negative", func(m pcommon.Map) { m.PutInt(semconv.BudgetTokens, 0); m.PutDouble(semconv.BudgetUSD, -1) }, 0, 0},
		{"tokens as a string", func(m pcommon.Map) { m.PutStr(semconv.BudgetTokens, "5000") }, 0, 0},
		{"infinite dollars", func(m pcommon.Map) { m.PutDouble(semconv.BudgetUSD, math.Inf(1)) }, 0, 0},
		{"NaN dollars", func(m pcommon.Map) { m.PutDouble(semconv.BudgetUSD, math.NaN()) }, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pcommon.NewMap()
			tt.set(m)
			tokens, usd := artifact.BudgetAttrs(m)
			assert.Equal(t, tt.wantTokens, tokens)
			assert.Equal(t, tt.wantUSD, usd)
		})
	}
}
