package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
)

func newValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check artifacts against the format",
		Long: `Validate reads each artifact to the end and prints one "file:line: problem"
line per problem: a line that is not valid JSON or not a valid record, a
torn last line, a missing header, a line over the size limit, a header of
a newer schema version, a span_id used twice, a record that finishes
before it starts, and a summary trailer that disagrees with the records.
Lines of an unknown kind are valid (noted on standard error).

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
	if _, err := in.r.Peek(1); err == io.EOF {
		v.problem(0, "empty file: no meta header")
		return errFindings
	}
	r := converter.NewReader(in.r, converter.WithSource(in.name), converter.WithProblemHandler(v.lineProblem))
	if err := v.records(r); err != nil {
		return in.fail(err)
	}
	v.summary(r)
	if n := r.Stats().Unknown; n > 0 {
		fmt.Fprintf(e.stderr, "%s: note: %d line(s) of an unknown kind skipped\n", in.name, n)
	}
	if v.problems > 0 {
		return errFindings
	}
	fmt.Fprintf(e.stdout, "%s: ok (%d records)\n", in.name, v.tally.Records())
	return nil
}

// validation is the state of checking one file.
type validation struct {
	*env
	name     string
	problems int
	tally    converter.Tally // the records read from lines
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
	}
}

// summary compares the last trailer with what the records add up to,
// reporting each disagreement at the trailer's line.
func (v *validation) summary(r *converter.Reader) {
	got := r.Summary()
	if got == nil {
		return
	}
	line := r.SummaryLine()
	if got.Dropped > 0 {
		// The trailer counts spans the producer saw but did not write.
		fmt.Fprintf(v.stderr, "%s:%d: note: the summary reports %d dropped span(s); its counts are not checked\n", v.name, line, got.Dropped)
		return
	}
	want := v.tally.Summary(nil)
	check := func(field string, said, is int64) {
		if said != is {
			v.problem(line, "summary says %s %d, the records add up to %d", field, said, is)
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
	check("tokens.input", got.Tokens.Input, want.Tokens.Input)
	check("tokens.output", got.Tokens.Output, want.Tokens.Output)
	check("tokens.cache_read", got.Tokens.CacheRead, want.Tokens.CacheRead)
	check("tokens.cache_creation", got.Tokens.CacheCreation, want.Tokens.CacheCreation)
	check("tokens.reasoning", got.Tokens.Reasoning, want.Tokens.Reasoning)
	check("tokens.total", got.Tokens.Total, want.Tokens.Total)
}

func stamp(ts pcommon.Timestamp) string {
	return ts.AsTime().UTC().Format(time.RFC3339Nano)
}
