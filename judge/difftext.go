package judge

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
)

// WriteText renders the report for a terminal: the summary (verdict,
// counts, each run's tokens, cost and time), then each finding with its
// calls and changes.
func (r *DiffReport) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	c := r.Counts
	if r.Diverged {
		p("Verdict  diverged at index %d\n", r.FirstDivergence)
	} else {
		p("Verdict  no divergence\n")
	}
	p("Calls    A %d, B %d: %d matched, %d diverged, %d inserted, %d removed, %d reordered",
		c.CallsA, c.CallsB, c.Matched, c.Diverged, c.Inserted, c.Removed, c.Reordered)
	if c.ArgsChanged > 0 {
		p("; %d matched with other arguments", c.ArgsChanged)
	}
	p("\n")
	ra, rb := &r.Runs.A, &r.Runs.B
	p("Tokens   A %s; B %s\n", ra.tokensText(), rb.tokensText())
	if ra.Cost != nil || rb.Cost != nil {
		p("Cost     A %s; B %s\n", costText(ra.Cost), costText(rb.Cost))
	}
	p("Time     A %s; B %s\n", msText(ra.DurationMS), msText(rb.DurationMS))
	if ra.Budget != nil || rb.Budget != nil {
		p("Budget   A %s; B %s\n", budgetText(ra.Budget), budgetText(rb.Budget))
	}
	for _, s := range []struct {
		name string
		run  *RunSummary
	}{{"A", ra}, {"B", rb}} {
		if s.run.Dropped > 0 {
			p("Dropped  %s: %d record(s) the summary trailer counts are not in the file (dropped by the producer); "+
				"tokens are the trailer's, and the details of those records, calls included, are not in the file, so they are not aligned\n",
				s.name, s.run.Dropped)
		}
	}
	if red := r.redactedRuns(); red != "" && !r.PayloadsCompared {
		p("Redacted %s: arguments and results are not compared\n", red)
	} else if red != "" {
		p("Redacted %s: arguments and results of the calls holding a redaction placeholder are not compared\n", red)
	}
	for _, d := range r.Divergences {
		p("\n[%d] %s", d.Index, d.text())
		if len(d.Fields) > 0 {
			p(" (%s)", strings.Join(d.Fields, ", "))
		}
		p("\n")
		if d.A != nil {
			p("  A[%d]  %s\n", *d.AIndex, d.A.text())
		}
		if d.B != nil {
			p("  B[%d]  %s\n", *d.BIndex, d.B.text())
		}
		writeChanges(&b, d.Changes, d.ChangesTruncated, d.ChangesTotal)
	}
	if r.Truncated {
		p("\n(report truncated: %d of %d findings listed)\n", len(r.Divergences), r.findings())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// findings counts every finding the report's counts hold.
func (r *DiffReport) findings() int {
	c := r.Counts
	return c.Diverged + c.Inserted + c.Removed + c.Reordered + c.ArgsChanged
}

// text is how the text report names a finding.
func (d *Divergence) text() string {
	switch d.Kind {
	case Outcome:
		return "diverged"
	case InsertedCall:
		if d.RetryOf != nil {
			return fmt.Sprintf("inserted in B: a retry (another attempt at B[%d]'s call: same tool and arguments)", *d.RetryOf)
		}
		return "inserted in B"
	case RemovedCall:
		if d.RetryOf != nil {
			return fmt.Sprintf("removed: only in A, a retry (another attempt at A[%d]'s call: same tool and arguments)", *d.RetryOf)
		}
		return "removed: only in A"
	case ReorderedCall:
		return fmt.Sprintf("reordered: A[%d] is B[%d]", *d.AIndex, *d.BIndex)
	case ArgsChangedCall:
		return "arguments changed"
	}
	return string(d.Kind)
}

func (s *RunSummary) tokensText() string {
	t := s.Tokens
	out := fmt.Sprintf("%s (input %s, output %s)", thousands(t.Total), thousands(t.Input), thousands(t.Output))
	if s.TokensFromTrailer {
		out += " from the summary trailer"
	}
	return out
}

func budgetText(b *artifact.BudgetStatus) string {
	if b == nil {
		return "none"
	}
	s := fmt.Sprintf("%s tokens, spent %s", thousands(b.BudgetTokens), thousands(b.Spent))
	switch {
	case b.OverBudget:
		s += ": over budget"
	case b.NearBudget:
		s += ": near budget"
	}
	return s
}

func costText(c *float64) string {
	if c == nil {
		return "not recorded"
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
}

func msText(ms int64) string {
	return report.Duration(time.Duration(ms) * time.Millisecond)
}

// thousands writes n with thin commas, the way every report counts.
func thousands(n int64) string { return report.Thousands(n) }

func (r *DiffReport) redactedRuns() string {
	switch {
	case r.Redacted.A && r.Redacted.B:
		return "A and B"
	case r.Redacted.A:
		return "A"
	case r.Redacted.B:
		return "B"
	}
	return ""
}

// text is one line about a call: tool, outcome, where to find it.
func (c *CallOutcome) text() string {
	tool := c.Tool
	if tool == "" {
		tool = "(unknown tool)"
	}
	s := tool + "  ok"
	if !c.OK {
		s = tool + "  failed " + c.Code
	}
	s += "  (span " + c.SpanID
	if c.ToolCallID != "" {
		s += ", tool call " + c.ToolCallID
	}
	return s + ")"
}
