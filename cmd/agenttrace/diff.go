package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/judge"
)

// errDiverged says the runs diverged (exit 1); the report already says
// how.
var errDiverged error = &exitError{code: exitInvalid}

func newDiffCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Tell whether run B diverged from run A",
		Long: `Diff compares two runs of the same task by their tool calls. Each run's
call records, taken in order of start time, are aligned the way a person
would line them up: by least-cost sequence alignment on the tool and its
arguments, so an inserted retry, a removed call, a reordered pair and a
changed argument each come out as one finding ("inserted in B", "removed",
"reordered", "arguments changed"). Pairs are judged on their stable
outcome: the tool's name, whether it succeeded, and its error code.
Arguments and results vary from run to run and never make a divergence by
themselves; the report shows how they differ, field by field (unless
either run was redacted, when they cannot be compared).

The report leads with a summary: calls matched, diverged, inserted,
removed and reordered, and each run's tokens, cost (when the records carry
one) and time. When a run's summary trailer counts records the file does
not hold (dropped by the producer), its tokens are the trailer's and the
report says how many records are missing: their calls cannot be aligned.

Inputs are artifacts or OTLP files, told apart by their content; "-"
reads standard input. Problems with artifact lines are printed to standard
error; the lines that could be read are compared.

Exit status: 0 when the runs did not diverge, 1 when they did, 2 on a
usage error or when an input cannot be read or used.`,
		Example: `  agenttrace diff base.jsonl rerun.jsonl
  agenttrace diff base.jsonl rerun.json --json`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) < 2:
				return usageErrorf("missing input: diff takes two runs, A and B")
			case len(args) > 2:
				return usageErrorf("diff takes two runs, A and B; got %d inputs", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.diff(args[0], args[1], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	e.redactFlags(cmd) // it prints arguments and results: the same secret scan as convert
	return cmd
}

func (e *env) diff(pathA, pathB string, asJSON bool) error {
	a, err := e.loadRun(pathA)
	if err != nil {
		return err
	}
	b, err := e.loadRun(pathB)
	if err != nil {
		return err
	}
	rep := judge.Diff(converter.LogsAsEvents(a.records, a.logs), converter.LogsAsEvents(b.records, b.logs), judge.WithRedaction(a.redacted(), b.redacted()), judge.WithTrailers(a.summary, b.summary))
	if err := e.printReport(asJSON, rep); err != nil {
		return err
	}
	// Skipped lines are noted; the verdict is on what could be read, and
	// exit 1 keeps meaning "diverged".
	_, _ = e.noteSource(a), e.noteSource(b)
	if rep.Diverged {
		return errDiverged
	}
	return nil
}

// loadRun reads one run. Exit 1 means the runs diverged, so an input that
// cannot be used at all (not a trace, empty, a newer schema) is trouble,
// exit 2, like one that cannot be read.
func (e *env) loadRun(path string) (*source, error) {
	src, err := e.loadRedacted(path)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.code == exitInvalid {
			return nil, &exitError{code: exitUsage, err: ee.err}
		}
		return nil, err
	}
	return src, nil
}

// redacted tells whether the input's header says it was redacted; for
// OTLP, judge reads the flag off the records' resource.
func (s *source) redacted() bool { return s.meta != nil && s.meta.Redacted }
