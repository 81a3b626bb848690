package report

import "strings"

// budgetStopCodes are the error codes that mean a token budget stopped a
// span: agenttrace's own (bridge.ErrBudgetExceeded, recorded as
// error.type "budget_exceeded") and the trace server's veto
// ("trace.BUDGET_EXCEEDED", HTTP 429, which its guard returns for every
// call after the one that crossed the budget).
var budgetStopCodes = []string{"budget_exceeded", "trace.budget_exceeded"}

// IsBudgetStop reports whether code, a span's error code (error.type), says
// the token budget stopped it rather than the tool or model failing. Case
// is ignored: the trace server spells its code in capitals.
func IsBudgetStop(code string) bool {
	for _, c := range budgetStopCodes {
		if strings.EqualFold(code, c) {
			return true
		}
	}
	return false
}
