package main

import (
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/pricing"
)

func newValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check artifacts against the format",
		Long: `Validate reads each artifact to the end and prints one "file:line: problem"
line per problem: a line that is not valid JSON or not a valid record, a
torn last line, a missing header, a line over the size limit, a header of
a newer schema version, a span_id used twice, a record that finishes
before it starts, and a summary trailer that disagrees with the records
(its counts, tokens, truncation count and budget, the dollars of a cost
budget too, recounted with the price data this agenttrace vendors; a
trailer that reports dropped records may count more tokens and dollars
than the records hold, never less).
Lines of an unknown kind are valid (noted on standard error), and so are
values a writer truncated to keep a line within the limit: each is noted
on standard error with its original size, and counted in the "ok" line.

A valid file prints "file: ok (N records)". The exit status is 0 when
every file is valid, 1 when any has problems, 2 when one cannot be read.`,
		Example: `  agenttrace validate run.jsonl
  agenttrace validate runs/*.jsonl`,
		Args: argsAtLeast(1, "file to validate"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.validate(args)
		},
	}
}

func (e *env) validate(paths []string) error {
	code := exitOK
	for _, p := range paths {
		// Report and go on: one unreadable file must not hide the
		// problems of the others.
		c, _ := printError(e.stderr, e.validateOne(p))
		code = worst(code, c)
	}
	return exitWith(code)
}

// validateOne validates one file, printing its problems to stdout.
func (e *env) validateOne(path string) error {
	in, err := e.open(path)
	if err != nil {
		return err
	}
	defer in.close()
	v := &validation{env: e, name: in.name}
	if in.shape != importer.Artifact && in.shape != importer.Unknown {
		v.problem(0, "not an agenttrace artifact but %s; convert it first", in.shape)
		return errFindings
	}
	head, err := in.r.Peek(converter.DetectSize)
	if len(head) == 0 && err == io.EOF {
		v.problem(0, "empty file: no meta header")
		return errFindings
	}
	if at := binaryAt(head); at >= 0 {
		// One line, not one per line of a PNG or a protobuf.
		v.problem(0, "not text (binary data at byte %d): not an agenttrace artifact", at)
		return errFindings
	}
	r := converter.NewReader(in.r, converter.WithSource(in.name), converter.WithProblemHandler(v.lineProblem), converter.WithMaxLineSize(e.maxLine),
		converter.WithLogs(func(*converter.LogRecord) {})) // decoded, so a bad log line is reported
	if err := v.records(r); err != nil {
		return in.fail(err)
	}
	v.summary(r, r.Meta())
	if n := r.Stats().Unknown; n > 0 {
		fmt.Fprintf(e.stderr, "%s: note: %d line(s) of an unknown kind skipped\n", in.name, n)
	}
	if v.problems > 0 {
		return errFindings
	}
	if v.truncated > 0 {
		fmt.Fprintf(e.stdout, "%s: ok (%d records; %d value(s) truncated when written)\n", in.name, v.tally.Records(), v.truncated)
		return nil
	}
	if n := r.Stats().Logs; n > 0 {
		fmt.Fprintf(e.stdout, "%s: ok (%d records, %d log records)\n", in.name, v.tally.Records(), n)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: ok (%d records)\n", in.name, v.tally.Records())
	return nil
}

// binaryAt returns the offset of the first byte in head that no JSONL
// artifact holds (a NUL, or a byte that is not UTF-8), or -1. A multi-byte
// character cut by the end of head is not counted.
func binaryAt(head []byte) int {
	for i := 0; i < len(head); {
		if head[i] == 0 {
			return i
		}
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(head[i:]) {
				return -1 // a character cut by the end of head
			}
			return i
		}
		i += n
	}
	return -1
}

// validation is the state of checking one file.
type validation struct {
	*env
	name     string
	problems int
	tally    converter.Tally // the records read from lines
	// truncated counts the values records mark as cut short when written.
	truncated int64
	// rootBudget is the token budget a local root span carries
	// (agenttrace.budget.tokens), when one does: a writer judges the
	// trailer against it, not the header's, when it arrived after the
	// header was written (docs/format.md §3).
	rootBudget int64 // 0: none
}

// lineProblem prints a problem the reader found at a line.
func (v *validation) lineProblem(le *converter.LineError) {
	v.problems++
	fmt.Fprintln(v.stdout, le.Error())
}

// problem prints a finding, at a line when line > 0.
func (v *validation) problem(line int, format string, a ...any) {
	v.problems++
	if line > 0 {
		fmt.Fprintf(v.stdout, "%s:%d: %s\n", v.name, line, fmt.Sprintf(format, a...))
	} else {
		fmt.Fprintf(v.stdout, "%s: %s\n", v.name, fmt.Sprintf(format, a...))
	}
}

// records checks each record and tallies it. A fatal reader error (a
// newer schema version, an I/O error) is returned; a version error is
// also printed as a finding.
func (v *validation) records(r *converter.Reader) error {
	first := map[converter.SpanKey]int{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var le *converter.LineError
			if errors.As(err, &le) {
				v.lineProblem(le)
				return nil
			}
			return err
		}
		line := r.Line()
		if line == 0 {
			// The root the reader synthesizes for records without ids:
			// not in the file, so neither checked nor in its trailer.
			continue
		}
		sp := rec.Span
		k := converter.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}
		if at, dup := first[k]; dup {
			v.problem(line, "duplicate span_id %s in trace %s (first on line %d)", k.Span, k.Trace, at)
		} else {
			first[k] = line
		}
		if start, end := sp.StartTimestamp(), sp.EndTimestamp(); end != 0 && end < start {
			v.problem(line, "finished_at %s is before started_at %s", stamp(end), stamp(start))
		}
		v.tally.Add(rec)
		if converter.IsLocalRoot(sp) {
			if b, _ := converter.BudgetAttrs(sp.Attributes()); b > 0 {
				v.rootBudget = b
			}
		}
		converter.Truncated(sp, func(where, key string, size int64) {
			v.truncated++
			if where != "" {
				key = where + ": " + key
			}
			fmt.Fprintf(v.stderr, "%s:%d: note: span %s: %s truncated when written (%d bytes originally)\n", v.name, line, sp.SpanID(), key, size)
		})
	}
}

// summary compares the last trailer with what the records add up to,
// reporting each disagreement at the trailer's line. A trailer that
// counts dropped records still counts the records written exactly; its
// tokens, which include what a cap dropped, may only be more.
func (v *validation) summary(r *converter.Reader, meta *converter.Meta) {
	got := r.Summary()
	if got == nil {
		return
	}
	line := r.SummaryLine()
	dropped := got.Dropped > 0
	if dropped {
		// The trailer counts spans the producer saw but did not write.
		fmt.Fprintf(v.stderr, "%s:%d: note: the summary reports %d dropped span(s), not in the file; their usage is in its totals\n", v.name, line, got.Dropped)
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
func (v *validation) budget(line int, got *converter.Summary, meta *converter.Meta, checkSpent func(string, int64, int64)) {
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
	want := converter.Budget{Tokens: b.BudgetTokens, WarnThreshold: b.WarnThreshold}.Status(b.Spent)
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
func (v *validation) costBudget(line int, b *converter.BudgetStatus, dropped bool) {
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
	want := converter.Budget{USD: c.BudgetUSD, WarnThreshold: b.WarnThreshold}.CostStatusUSD(c.SpentUSD, c.UnpricedCalls)
	if want.RemainingUSD != c.RemainingUSD || want.OverBudgetUSD != c.OverBudgetUSD || want.NearBudgetUSD != c.NearBudgetUSD {
		v.problem(line, "summary's cost budget does not follow from its spent_usd %g of %g: want remaining_usd %g, over_budget_usd %v, near_budget_usd %v",
			c.SpentUSD, c.BudgetUSD, want.RemainingUSD, want.OverBudgetUSD, want.NearBudgetUSD)
	}
}

// priceVersion names the vendored price data, for messages.
func priceVersion() string {
	if t, err := pricing.Default(); err == nil {
		return t.Version
	}
	return "(not loaded)"
}

func stamp(ts pcommon.Timestamp) string {
	return ts.AsTime().UTC().Format(time.RFC3339Nano)
}
