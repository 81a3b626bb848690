package artifact

import (
	"github.com/agenttrace/agenttrace/pricing"
)

// summary compares the last trailer with what the records add up to,
// reporting each disagreement at the trailer's line. A trailer that
// counts dropped records still counts the records written exactly; its
// tokens, which include what a cap dropped, may only be more.
func (v *validation) summary(r *Reader, meta *Meta) {
	got := r.Summary()
	if got == nil {
		return
	}
	line := r.SummaryLine()
	dropped := got.Dropped > 0
	if dropped {
		// The trailer counts spans the producer saw but did not write.
		v.note(line, "the summary reports %d dropped span(s), not in the file; their usage is in its totals", got.Dropped)
	}
	want := v.tally.Summary(nil)
	check := func(field string, said, is int64) {
		if said != is {
			v.problem(line, "summary says %s %d, the records add up to %d", field, said, is)
		}
	}
	checkTokens := check
	if dropped {
		checkTokens = func(field string, said, is int64) {
			if said < is {
				v.problem(line, "summary says %s %d, less than the records add up to (%d)", field, said, is)
			}
		}
	}
	check("records", got.Records, want.Records)
	check("calls", got.Calls, want.Calls)
	check("inferences", got.Inferences, want.Inferences)
	check("agents", got.Agents, want.Agents)
	if got.Spans != 0 {
		// "spans" is optional in the trailer: 0 may mean absent. When the
		// other counts match, records still pins it down.
		check("spans", got.Spans, want.Spans)
	}
	check("errors", got.Errors, want.Errors)
	checkTokens("tokens.input", got.Tokens.Input, want.Tokens.Input)
	checkTokens("tokens.output", got.Tokens.Output, want.Tokens.Output)
	checkTokens("tokens.cache_read", got.Tokens.CacheRead, want.Tokens.CacheRead)
	checkTokens("tokens.cache_creation", got.Tokens.CacheCreation, want.Tokens.CacheCreation)
	checkTokens("tokens.reasoning", got.Tokens.Reasoning, want.Tokens.Reasoning)
	checkTokens("tokens.total", got.Tokens.Total, want.Tokens.Total)
	if t := got.Tokens; dropped && t.Total != t.Input+t.Output {
		v.problem(line, "summary says tokens.total %d, not tokens.input + tokens.output (%d)", t.Total, t.Input+t.Output)
	}
	check("truncated", got.Truncated, v.truncated)
	v.budget(line, got, meta, checkTokens)
}

// budget checks a trailer's budget: the header's budget, spent as the
// records (and drops) say, and the rest following from those two.
func (v *validation) budget(line int, got *Summary, meta *Meta, checkSpent func(string, int64, int64)) {
	b := got.Budget
	if b == nil {
		return
	}
	switch {
	case v.rootBudget > 0 && b.BudgetTokens == v.rootBudget:
		// A root span's budget, which wins over the header's.
	case meta != nil && meta.Budget != nil && b.BudgetTokens != meta.Budget.Tokens:
		v.problem(line, "summary says budget.budget_tokens %d, the header's budget is %d", b.BudgetTokens, meta.Budget.Tokens)
	}
	checkSpent("budget.spent", b.Spent, v.tally.Spent())
	want := Budget{Tokens: b.BudgetTokens, WarnThreshold: b.WarnThreshold}.Status(b.Spent)
	if want.Remaining != b.Remaining || want.OverBudget != b.OverBudget || want.NearBudget != b.NearBudget {
		v.problem(line, "summary's budget does not follow from its spent %d of %d: want remaining %d, over_budget %v, near_budget %v",
			b.Spent, b.BudgetTokens, want.Remaining, want.OverBudget, want.NearBudget)
	}
	v.costBudget(line, b, got.Dropped > 0)
}

// costBudget checks a trailer's cost budget: spent_usd and unpriced_calls
// as the records say, priced with the data this agenttrace vendors (to the
// nano-dollar; more, never less, when the trailer counts dropped spans),
// and the rest following from spent_usd. A header's budget_usd is not
// compared: a late root span's agenttrace.budget.usd rightly changes the
// trailer's.
func (v *validation) costBudget(line int, b *BudgetStatus, dropped bool) {
	c := b.CostBudget
	if c == nil {
		return
	}
	own := v.tally.Cost()
	said := pricing.Nanos(c.SpentUSD)
	switch {
	case dropped && said < own.Nanos:
		v.problem(line, "summary says budget.spent_usd %g, less than the records cost (%g)", c.SpentUSD, own.USD())
	case !dropped && said != own.Nanos:
		v.problem(line, "summary says budget.spent_usd %g, the records cost %g (priced with genai-prices %s)", c.SpentUSD, own.USD(), priceVersion())
	}
	if c.UnpricedCalls < own.Unknown || !dropped && c.UnpricedCalls != own.Unknown {
		v.problem(line, "summary says budget.unpriced_calls %d, the records have %d model call(s) of unknown cost", c.UnpricedCalls, own.Unknown)
	}
	want := Budget{USD: c.BudgetUSD, WarnThreshold: b.WarnThreshold}.CostStatusUSD(c.SpentUSD, c.UnpricedCalls)
	if want.RemainingUSD != c.RemainingUSD || want.OverBudgetUSD != c.OverBudgetUSD || want.NearBudgetUSD != c.NearBudgetUSD {
		v.problem(line, "summary's cost budget does not follow from its spent_usd %g of %g: want remaining_usd %g, over_budget_usd %v, near_budget_usd %v",
			c.SpentUSD, c.BudgetUSD, want.RemainingUSD, want.OverBudgetUSD, want.NearBudgetUSD)
	}
}
