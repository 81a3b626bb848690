package viewer

import (
	"math"
	"strconv"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
)

// The quantities every rendering of a run shows (the page, its
// no-JavaScript outline, the runs list and the comparison of `agenttrace
// serve`) are written here and only here, so they read the same wherever
// they appear (issue 24): durations, dollars, budget percentages and
// their near/over text. Durations are report.Duration, token counts
// report.Thousands, dollars report.Dollars (what `agenttrace tokens`
// prints, so the CLI reads the same), behind CostText for sums. The page's script lays out these strings; it formats nothing
// but the clock of a span still running.

// NoValue is what a quantity that is not known reads as.
const NoValue = "—"

// DurationMS is report.Duration of a length in milliseconds (a record's t1 − t0,
// a report's duration_ms), with its sub-millisecond fraction.
func DurationMS(ms float64) string {
	if math.IsNaN(ms) || ms < 0 {
		return NoValue
	}
	return report.Duration(time.Duration(math.Round(ms * float64(time.Millisecond))))
}

// RunDuration is a run's length: from its start (the header's
// started_at) to its latest span end, -1 when either is unknown or the
// end is before the start. It is the one definition the page, the
// outline and the runs list show.
func RunDuration(started, ended time.Time) time.Duration {
	if started.IsZero() || started.UnixNano() <= 0 || ended.IsZero() || ended.Before(started) {
		return -1
	}
	return ended.Sub(started)
}

// CostText is a cost as every page of the viewer writes it (a card, a
// table cell, a row of `agenttrace serve`'s runs list, its side-by-side
// comparison): report.Dollars, "unknown" (never $0) when no model call has
// a known cost, and "$X or more" when some calls have none, so that a sum
// missing unpriced calls never reads as the whole cost.
func CostText(c report.Cost) string {
	s := report.Dollars(c.CostUSD)
	if c.CostUSD != nil && c.CostUnknown > 0 {
		s += " or more"
	}
	return s
}

// Budget states, as BudgetState says them.
const (
	BudgetOK   = "ok"
	BudgetNear = "near"
	BudgetOver = "over"
)

// BudgetState is a run's budget verdict: over when it is over its token
// budget or its cost budget, near when it is near either and over
// neither, else ok. The flags are converter's (the trailer's rule).
func BudgetState(b *artifact.BudgetStatus) string {
	switch {
	case b == nil:
		return BudgetOK
	case b.OverBudget || b.CostBudget != nil && b.CostBudget.OverBudgetUSD:
		return BudgetOver
	case b.NearBudget || b.CostBudget != nil && b.CostBudget.NearBudgetUSD:
		return BudgetNear
	}
	return BudgetOK
}

// Percent is part of whole as a percentage with one decimal ("91.0%"),
// NoValue when whole is not positive.
func Percent(part, whole float64) string {
	if !(whole > 0) {
		return NoValue
	}
	return strconv.FormatFloat(100*part/whole, 'f', 1, 64) + "%"
}

// BudgetText says what a run spent of its budget: the tokens of a token
// budget ("9,100 of 10,000 tokens (91.0%)"), the dollars of a cost budget
// ("$0.0900 of $0.1000 (90.0%)", "or more" when unpriced calls are left
// out), or both, then the verdict (", near the budget", ", over budget").
// Empty for no budget.
func BudgetText(b *artifact.BudgetStatus) string {
	if b == nil {
		return ""
	}
	s := ""
	if b.BudgetTokens > 0 || b.CostBudget == nil {
		s = report.Thousands(b.Spent) + " of " + report.Thousands(b.BudgetTokens) + " tokens"
		if b.BudgetTokens > 0 {
			s += " (" + Percent(float64(b.Spent), float64(b.BudgetTokens)) + ")"
		}
	}
	if c := b.CostBudget; c != nil {
		spent, limit := c.SpentUSD, c.BudgetUSD
		if s != "" {
			s += " · "
		}
		s += report.Dollars(&spent)
		if c.UnpricedCalls > 0 {
			s += " or more" // unpriced calls are left out of the dollars
		}
		s += " of " + report.Dollars(&limit)
		if limit > 0 {
			s += " (" + Percent(spent, limit) + ")"
		}
	}
	switch BudgetState(b) {
	case BudgetOver:
		s += ", over budget"
	case BudgetNear:
		s += ", near the budget"
	}
	return s
}
