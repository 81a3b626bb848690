package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
)

// WriteText renders the report as aligned plain text for a terminal:
// totals first, then one table per breakdown. Empty breakdowns are left
// out rather than printed as empty tables.
func (r *TokenReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }

	c := r.Records
	p("Records\t%s (%s call, %s inference, %s agent, %s span)\n",
		Thousands(c.Total()), Thousands(c.Call), Thousands(c.Inference), Thousands(c.Agent), Thousands(c.Span))
	p("Errors\t%s\n", r.errorsLine())
	t := r.Tokens
	p("Tokens\t%s (input %s, output %s; cache read %s, cache creation %s, reasoning %s)",
		Thousands(t.Total), Thousands(t.Input), Thousands(t.Output), Thousands(t.CacheRead), Thousands(t.CacheCreation), Thousands(t.Reasoning))
	if r.FromTrailer && r.InFile != nil {
		p(", from the summary trailer; the records in the file add up to %s", Thousands(r.InFile.Total))
	}
	p("\n")
	p("Cost\t%s\n", r.costLine())
	p("Budget\t%s\n", r.budgetLine())
	if r.Dropped > 0 {
		p("Dropped\t%s, not in the file\n", plural(r.Dropped, "record", "records"))
	}
	if r.Truncated > 0 {
		p("Truncated\t%s\n", plural(r.Truncated, "value", "values"))
	}
	for _, n := range r.Notes {
		p("Note\t%s\n", n)
	}

	if len(r.ByModel) > 0 {
		p("\nBy model\n")
		p("  MODEL\tPROVIDER\tCALLS\tINPUT\tOUTPUT\tCACHE READ\tCACHE CREATION\tREASONING\tTOTAL\tCOST\n")
		for _, m := range r.ByModel {
			p("  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Model, orDash(m.Provider), Thousands(m.Count),
				Thousands(m.Input), Thousands(m.Output), Thousands(m.CacheRead), Thousands(m.CacheCreation), Thousands(m.Reasoning), Thousands(m.Total),
				m.Cost.cell())
		}
	}
	if len(r.ByAgent) > 0 {
		p("\nBy agent\n")
		p("  AGENT\tRUNS\tINFERENCES\tINPUT\tOUTPUT\tTOTAL\tCOST\n")
		for _, a := range r.ByAgent {
			p("  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Agent, Thousands(a.Runs), Thousands(a.Inferences), Thousands(a.Input), Thousands(a.Output), Thousands(a.Total),
				a.Cost.cell())
		}
	}
	if len(r.ByTool) > 0 {
		p("\nBy tool\n")
		p("  TOOL\tCALLS\tERRORS\tEST. TOKENS\tDURATION\n")
		for _, u := range r.ByTool {
			p("  %s\t%s\t%s\t%s\t%s\n", u.Tool, Thousands(u.Calls), Thousands(u.Errors), Thousands(u.EstimatedTokens), ms(u.DurationMS))
		}
	}
	if len(r.FinishReasons) > 0 {
		p("\nFinish reasons\n")
		for _, fr := range r.sortedReasons() {
			p("  %s\t%s\n", fr.reason, Thousands(fr.n))
		}
	}
	if len(r.Largest) > 0 {
		p("\nLargest responses\n")
		p("  BYTES\tTOKENS\tKIND\tSPAN\tNAME\n")
		for _, l := range r.Largest {
			p("  %s\t%s\t%s\t%s\t%s\n", Thousands(l.Bytes), Thousands(l.Tokens), l.Kind, l.SpanID, l.Name)
		}
	}
	if len(r.Failures) > 0 {
		p("\nFailures\n")
		p("  KIND\tSPAN\tNAME\tCODE\tMESSAGE\n")
		for _, f := range r.Failures {
			p("  %s\t%s\t%s\t%s\t%s\n", f.Kind, f.SpanID, f.Name, orDash(f.Code), orDash(oneLine(f.Message)))
		}
	}
	r.writeEvaluations(tw)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write token report: %w", err)
	}
	return nil
}

func (r *TokenReport) budgetLine() string {
	b := r.Budget
	if b == nil {
		return "none"
	}
	var parts []string
	if b.BudgetTokens > 0 || b.CostBudget == nil {
		s := fmt.Sprintf("%s tokens, spent %s", Thousands(b.BudgetTokens), Thousands(b.Spent))
		if b.BudgetTokens > 0 {
			s += fmt.Sprintf(" (%.1f%%)", 100*float64(b.Spent)/float64(b.BudgetTokens))
		}
		s += ", remaining " + Thousands(b.Remaining)
		switch {
		case b.OverBudget:
			s += ": OVER BUDGET"
		case b.NearBudget:
			s += fmt.Sprintf(": near budget (warns at %.0f%%)", 100*b.WarnThreshold)
		}
		parts = append(parts, s)
	}
	if c := b.CostBudget; c != nil {
		parts = append(parts, costBudgetLine(c, b.WarnThreshold))
	}
	return strings.Join(parts, "; ")
}

// costBudgetLine says where a cost budget stands: the dollars spent are
// the known costs, "or more" when some calls have none, and "unknown"
// when no call's cost is known.
func costBudgetLine(c *artifact.CostBudget, warn float64) string {
	budget, spent := c.BudgetUSD, c.SpentUSD
	s := Dollars(&budget) + ", spent "
	switch {
	case c.UnpricedCalls > 0 && spent == 0:
		s += "unknown"
	default:
		s += Dollars(&spent)
		if budget > 0 {
			s += fmt.Sprintf(" (%.1f%%)", 100*spent/budget)
		}
		if c.UnpricedCalls > 0 {
			s += " or more"
		}
	}
	rem := c.RemainingUSD
	s += ", remaining " + Dollars(&rem)
	if c.UnpricedCalls > 0 {
		s += " (" + plural(c.UnpricedCalls, "model call", "model calls") + " of unknown cost not counted)"
	}
	switch {
	case c.OverBudgetUSD:
		s += ": OVER COST BUDGET"
	case c.NearBudgetUSD:
		s += fmt.Sprintf(": near cost budget (warns at %.0f%%)", 100*warn)
	}
	return s
}

// costLine says what the run cost, how it was priced, and what is
// missing from the sum.
func (r *TokenReport) costLine() string {
	c := r.Cost
	s := Dollars(c.CostUSD)
	var how []string
	if r.PriceData != "" && c.CostUSD != nil {
		how = append(how, "priced with "+r.PriceData)
	}
	if c.CostFromSpans > 0 {
		how = append(how, plural(c.CostFromSpans, "model call reports its own cost", "model calls report their own cost"))
	}
	if c.CostUnknown > 0 {
		what := plural(c.CostUnknown, "model call has", "model calls have")
		if c.CostUSD != nil {
			s += " or more"
		}
		how = append(how, fmt.Sprintf("%s no known cost: no price or no usage (%s)", what, strings.Join(r.CostUnknownModels, ", ")))
	}
	if r.FromTrailer {
		how = append(how, "for the records in the file")
	}
	if len(how) > 0 {
		s += " (" + strings.Join(how, "; ") + ")"
	}
	return s
}

// cell is a row's cost for a table: the dollars, with a "+" when some
// calls have no known price.
func (c Cost) cell() string {
	s := Dollars(c.CostUSD)
	if c.CostUSD != nil && c.CostUnknown > 0 {
		s += "+"
	}
	return s
}

// Dollars writes a cost as every agenttrace report writes it: "unknown"
// for nil, never $0 for a cost no one knows; four decimals under a
// dollar (a model call costs fractions of a cent), more when a cost
// would otherwise read as zero, and cents from a dollar on.
func Dollars(usd *float64) string {
	if usd == nil {
		return "unknown"
	}
	v := *usd
	switch {
	case v == 0:
		return "$0"
	case v < 0.0001:
		return fmt.Sprintf("$%.6f", v)
	case v < 1:
		return fmt.Sprintf("$%.4f", v)
	}
	whole := int64(v)
	cents := int64(math.Round((v - float64(whole)) * 100))
	if cents == 100 {
		whole, cents = whole+1, 0
	}
	return fmt.Sprintf("$%s.%02d", Thousands(whole), cents)
}

type reasonCount struct {
	reason string
	n      int64
}

// sortedReasons lists finish reasons most frequent first, for reading.
func (r *TokenReport) sortedReasons() []reasonCount {
	out := make([]reasonCount, 0, len(r.FinishReasons))
	for k, n := range r.FinishReasons {
		out = append(out, reasonCount{k, n})
	}
	slices.SortFunc(out, func(x, y reasonCount) int {
		return cmp.Or(cmp.Compare(y.n, x.n), strings.Compare(x.reason, y.reason))
	})
	return out
}

// num formats n with thousands separators: token counts run to millions.
// Thousands writes n with commas between groups of three digits
// (12,345), as every agenttrace report and page writes counts.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// ms formats milliseconds as a duration a person reads at a glance.
// ms is Duration of a length in milliseconds.
func ms(v float64) string { return Duration(time.Duration(v * float64(time.Millisecond))) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a multi-line status message from breaking the table.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

// errorsLine tells the failures apart from the spans the token budget
// stopped, which the trailer's errors count too: "1, and 3 stopped by the
// budget (4 in all)" for a run that had one tool fail before the budget
// ended it.
func (r *TokenReport) errorsLine() string {
	stopped := min(r.BudgetStopped, r.Errors)
	if stopped == 0 {
		return Thousands(r.Errors)
	}
	return fmt.Sprintf("%s, and %s stopped by the budget (%s in all)",
		Thousands(r.Errors-stopped), Thousands(stopped), Thousands(r.Errors))
}
