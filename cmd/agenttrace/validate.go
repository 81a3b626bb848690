package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
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

// validateOne validates one file (artifact.Validate), printing its
// problems to stdout and its notes to stderr.
func (e *env) validateOne(path string) error {
	in, err := e.open(path)
	if err != nil {
		return err
	}
	defer in.close()
	if in.shape != importer.Artifact && in.shape != importer.Unknown {
		fmt.Fprintf(e.stdout, "%s: not an agenttrace artifact but %s; convert it first\n", in.name, in.shape)
		return errFindings
	}
	rep, err := artifact.Validate(in.r, artifact.WithSource(in.name), artifact.WithMaxLineSize(e.maxLine))
	for _, n := range rep.Notes {
		fmt.Fprintln(e.stderr, rep.NoteString(n))
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stdout, p.Error())
	}
	if err != nil {
		return in.fail(err)
	}
	switch {
	case !rep.Valid():
		return errFindings
	case rep.Truncated > 0:
		fmt.Fprintf(e.stdout, "%s: ok (%d records; %d value(s) truncated when written)\n", in.name, rep.Records, rep.Truncated)
	case rep.Logs > 0:
		fmt.Fprintf(e.stdout, "%s: ok (%d records, %d log records)\n", in.name, rep.Records, rep.Logs)
	default:
		fmt.Fprintf(e.stdout, "%s: ok (%d records)\n", in.name, rep.Records)
	}
	return nil
}
