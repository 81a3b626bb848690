package report_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/report"
)

func TestIsBudgetStop(t *testing.T) {
	for code, want := range map[string]bool{
		"budget_exceeded":       true, // agenttrace's processor and demo
		"trace.BUDGET_EXCEEDED": true, // the trace server's guard (../shared/seeds)
		"BUDGET_EXCEEDED":       true, // case is ignored
		"budget_exceeded_soon":  false,
		"500":                   false,
		"":                      false,
	} {
		assert.Equal(t, want, report.IsBudgetStop(code), code)
	}
}

// TestErrorsLineBudgetStops: the budget's stops are shown apart from the
// failures, and the two still add up to the trailer's errors.
func TestErrorsLineBudgetStops(t *testing.T) {
	for _, tc := range []struct {
		errors, stopped int64
		want            string
	}{
		{4, 3, "Errors   1, and 3 stopped by the budget (4 in all)\n"},
		{1, 0, "Errors   1\n"},
		{2, 2, "Errors   0, and 2 stopped by the budget (2 in all)\n"},
	} {
		var buf bytes.Buffer
		require.NoError(t, (&report.TokenReport{Errors: tc.errors, BudgetStopped: tc.stopped}).WriteText(&buf))
		assert.Contains(t, buf.String(), tc.want)
	}
}
