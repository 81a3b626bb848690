package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText renders the report as aligned plain text for a terminal:
// totals first, then one table per breakdown. Empty breakdowns are left
// out rather than printed as empty tables.
func (r *TokenReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }

	c := r.Records
	p("Records\t%s (%s call, %s inference, %s agent, %s span)\n",
		num(c.Total()), num(c.Call), num(c.Inference), num(c.Agent), num(c.Span))
	p("Errors\t%s\n", num(r.Errors))
	t := r.Tokens
	p("Tokens\t%s (input %s, output %s; cache read %s, cache creation %s, reasoning %s)\n",
		num(t.Total), num(t.Input), num(t.Output), num(t.CacheRead), num(t.CacheCreation), num(t.Reasoning))
	p("Budget\t%s\n", r.budgetLine())

	if len(r.ByModel) > 0 {
		p("\nBy model\n")
		p("  MODEL\tPROVIDER\tCALLS\tINPUT\tOUTPUT\tCACHE READ\tCACHE CREATION\tREASONING\tTOTAL\n")
		for _, m := range r.ByModel {
			p("  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Model, orDash(m.Provider), num(m.Count),
				num(m.Input), num(m.Output), num(m.CacheRead), num(m.CacheCreation), num(m.Reasoning), num(m.Total))
		}
	}
	if len(r.ByAgent) > 0 {
		p("\nBy agent\n")
		p("  AGENT\tRUNS\tINFERENCES\tINPUT\tOUTPUT\tTOTAL\n")
		for _, a := range r.ByAgent {
			p("  %s\t%s\t%s\t%s\t%s\t%s\n", a.Agent, num(a.Runs), num(a.Inferences), num(a.Input), num(a.Output), num(a.Total))
		}
	}
	if len(r.ByTool) > 0 {
		p("\nBy tool\n")
		p("  TOOL\tCALLS\tERRORS\tEST. TOKENS\tDURATION\n")
		for _, u := range r.ByTool {
			p("  %s\t%s\t%s\t%s\t%s\n", u.Tool, num(u.Calls), num(u.Errors), num(u.EstimatedTokens), ms(u.DurationMS))
		}
	}
	if len(r.FinishReasons) > 0 {
		p("\nFinish reasons\n")
		for _, fr := range r.sortedReasons() {
			p("  %s\t%s\n", fr.reason, num(fr.n))
		}
	}
	if len(r.Largest) > 0 {
		p("\nLargest responses\n")
		p("  BYTES\tTOKENS\tKIND\tSPAN\tNAME\n")
		for _, l := range r.Largest {
			p("  %s\t%s\t%s\t%s\t%s\n", num(l.Bytes), num(l.Tokens), l.Kind, l.SpanID, l.Name)
		}
	}
	if len(r.Failures) > 0 {
		p("\nFailures\n")
		p("  KIND\tSPAN\tNAME\tCODE\tMESSAGE\n")
		for _, f := range r.Failures {
			p("  %s\t%s\t%s\t%s\t%s\n", f.Kind, f.SpanID, f.Name, orDash(f.Code), orDash(oneLine(f.Message)))
		}
	}
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
	s := fmt.Sprintf("%s tokens, spent %s", num(b.BudgetTokens), num(b.Spent))
	if b.BudgetTokens > 0 {
		s += fmt.Sprintf(" (%.1f%%)", 100*float64(b.Spent)/float64(b.BudgetTokens))
	}
	s += ", remaining " + num(b.Remaining)
	switch {
	case b.OverBudget:
		s += ": OVER BUDGET"
	case b.NearBudget:
		s += fmt.Sprintf(": near budget (warns at %.0f%%)", 100*b.WarnThreshold)
	}
	return s
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
func num(n int64) string {
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
func ms(v float64) string {
	d := time.Duration(v * float64(time.Millisecond))
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.String()
}

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
