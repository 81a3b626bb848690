package report

import (
	"fmt"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
)

// usageLevels lists the spans whose own usage disagrees with their
// children's (artifact.UsageLevels).
func (b *builder) usageLevels(recs []artifact.Record) {
	for _, l := range artifact.UsageLevels(recs) {
		sp := recs[l.Index].Span
		b.rep.UsageLevels = append(b.rep.UsageLevels, UsageLevel{
			TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), Name: sp.Name(),
			Reported: artifact.TokensOf(l.Reported), Children: artifact.TokensOf(l.Children),
			Counted: artifact.TokensOf(l.Counted),
		})
	}
}

// FinalTotalTokens is the attribute under which an imported trajectory's
// root keeps its final record's total_tokens (importer: agenttrace.final.
// plus the member's name): the source's own total for the run.
const FinalTotalTokens = "agenttrace.final.total_tokens"

// reportedTotal sets ReportedTotal and Unattributed when a root span
// states a run total above what the records add up to: the source
// counted tokens no span itemizes, and the report says how many.
func (b *builder) reportedTotal() {
	r := b.rep
	if b.stated <= r.Tokens.Total {
		return
	}
	total := b.stated
	r.ReportedTotal, r.Unattributed = &total, total-r.Tokens.Total
	r.Notes = append(r.Notes, fmt.Sprintf("the source states %d tokens for the run, %d more than its spans itemize: "+
		"reported_total is the run's total, unattributed the remainder no span accounts for", total, r.Unattributed))
}

// statedTotal adds what a root span states as its run's total tokens.
func (b *builder) statedTotal(sp ptrace.Span) {
	if !sp.ParentSpanID().IsEmpty() {
		return
	}
	v, ok := sp.Attributes().Get(FinalTotalTokens)
	if !ok {
		return
	}
	switch v.Type() {
	case pcommon.ValueTypeInt:
		b.stated += max(v.Int(), 0)
	case pcommon.ValueTypeDouble:
		b.stated += max(int64(v.Double()), 0)
	case pcommon.ValueTypeStr:
		if n, err := strconv.ParseInt(v.Str(), 10, 64); err == nil {
			b.stated += max(n, 0)
		}
	}
}

// trailers makes the totals and the budget the trailers' where they
// account for records the file does not hold, and counts what they say was
// dropped or truncated (see WithTrailer).
func (b *builder) trailers(ts []trailer, budget *artifact.Budget) {
	r := b.rep
	tokens, spent, cost := r.Tokens, b.tally.Spent(), b.tally.Cost()
	var said int64                        // the values the trailers count as truncated
	var budgetSaid *artifact.BudgetStatus // a trailer's budget, for a header without one
	for _, t := range ts {
		said += t.sum.Truncated
		var own artifact.Tally
		for i := range t.recs {
			own.Add(&t.recs[i])
		}
		missing := t.sum.Dropped + max(t.sum.Records-own.Records(), 0)
		if missing == 0 {
			continue
		}
		r.Dropped += missing
		r.FromTrailer = true
		tokens = shift(tokens, t.sum.Tokens, own.Summary(nil).Tokens)
		spent += trailerSpent(t.sum, &own) - own.Spent()
		if c := t.sum.Budget; c != nil && c.CostBudget != nil {
			// The trailer's dollars replace its records' share, as its
			// tokens do.
			cost.Nanos += pricing.Nanos(c.SpentUSD) - own.Cost().Nanos
			cost.Unknown += c.UnpricedCalls - own.Cost().Unknown
		}
		if budgetSaid == nil {
			budgetSaid = t.sum.Budget
		}
	}
	// The records' markers count what a file without a trailer (or OTLP
	// converted from an artifact) holds; a trailer also counts what it
	// no longer holds.
	r.Truncated = max(said, b.truncated)
	r.Notes = []string{}
	if r.FromTrailer {
		inFile := r.Tokens
		r.InFile, r.Tokens = &inFile, tokens
		if budget == nil && budgetSaid != nil {
			budget = &artifact.Budget{Tokens: budgetSaid.BudgetTokens, WarnThreshold: budgetSaid.WarnThreshold}
			if c := budgetSaid.CostBudget; c != nil {
				budget.USD = c.BudgetUSD
			}
		}
		if budget != nil {
			st := budget.Status(spent)
			st.CostBudget = budget.CostStatus(cost)
			r.Budget = &st
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s not in the file (dropped by the producer: a full queue or a record cap; "+
			"or lines that could not be read): tokens and budget are the summary trailer's, which count them, "+
			"but their details are not in the file, so the breakdowns and the cost cover only the records that are",
			plural(r.Dropped, "record is", "records are")))
	}
	if r.Truncated > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s cut short to keep lines within the reader's limit: "+
			"each is marked by an attribute %s<key> holding its original length in bytes",
			plural(r.Truncated, "attribute value was", "attribute values were"), artifact.TruncatedPrefix))
	}
}

// shift returns t with the difference between a trailer's tokens and its
// records' added: the trailer replaces its records' share of the total.
func shift(t, trailer, records artifact.Tokens) artifact.Tokens {
	return artifact.Tokens{
		Input:         t.Input + trailer.Input - records.Input,
		Output:        t.Output + trailer.Output - records.Output,
		CacheRead:     t.CacheRead + trailer.CacheRead - records.CacheRead,
		CacheCreation: t.CacheCreation + trailer.CacheCreation - records.CacheCreation,
		Reasoning:     t.Reasoning + trailer.Reasoning - records.Reasoning,
		Total:         t.Total + trailer.Total - records.Total,
	}
}

// trailerSpent is what a trailer says the budget spent: its budget's
// spent, else its model calls' tokens; when it says neither (a
// tool-dispatch trace without a budget), what its records spent.
func trailerSpent(sum *artifact.Summary, own *artifact.Tally) int64 {
	switch {
	case sum.Budget != nil:
		return sum.Budget.Spent
	case sum.Tokens.Input+sum.Tokens.Output > 0:
		return sum.Tokens.Input + sum.Tokens.Output
	}
	return own.Spent()
}

// plural writes n with the singular or plural phrase that follows it.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}
