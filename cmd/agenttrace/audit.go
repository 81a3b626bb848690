package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/report"
)

func newAuditCmd(e *env) *cobra.Command {
	var (
		asJSON  bool
		failOn  string
		against string
	)
	cmd := &cobra.Command{
		Use:   "audit FILE... | audit A --against B",
		Short: "Check that a trace tells the whole story",
		Long: `Audit checks the fidelity of each input's trace and prints one line per
finding, "file: severity category: message (trace, spans, tool call)":

  missing_call           error    a tool call the model requested has no call record
  phantom_call           warning  a call carries a tool call id no model requested
  argument_drift         error    a call ran with other arguments than requested
  hidden_retry           warning  a model call repeats a failed or unused call's whole input
  token_underreport      error    an agent reports fewer tokens than its model calls
  missing_finish_reason  warning  a generation does not say why it stopped
  orphan_span            warning  a span's parent is not in the input
  double_instrumentation warning  a model call recorded twice (two instrumentations)

Inputs are artifacts or OTLP files, told apart by their content; each is
audited on its own. A file without findings prints "file: no findings".
A run its token budget ended (a span failed with budget_exceeded, or the
summary trailer says the budget was used up) is ended: the calls its last
model call asked for are not missing. When a file's summary trailer counts
records the file does not hold (dropped by the producer), audit says how
many, and that their details are not in the file.

With --against B, audit reconciles two recordings of the same run instead,
the Trace Fidelity check of two-layer recording: A is what the agent
framework reported (the agent boundary), B what happened (every model round
trip and tool execution, the chat-client boundary). Runs are matched by
trace id, conversation id or overlapping time. Each finding names both
files and the lines of the records involved:

  missing_call              error    B has a tool call A does not report
  phantom_call              warning  A reports a tool call B never saw
  hidden_retry              warning  B repeats a tool or model call A shows once
  argument_drift            error    A reports a call with other arguments than B ran
  token_underreport         error    A reports fewer tokens than B's model calls spent
  suppressed_finish_reason  warning  a model call in B stopped for a reason
                                     (length, content_filter) A never reports

Exit status: 0 when no finding is at least as severe as --fail-on, 1 when
one is (or an input is invalid, or lines were skipped), 2 on a usage
error or when an input cannot be read.`,
		Example: `  agenttrace audit run.jsonl
  agenttrace audit runs/*.jsonl --fail-on warning
  agenttrace audit traces.json --json
  agenttrace audit agent-report.jsonl --against chat-recording.jsonl`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			sev, err := judge.ParseSeverity(failOn)
			if err != nil {
				return usageErrorf("--fail-on: %w", err)
			}
			if c.Flags().Changed("against") {
				if len(args) != 1 {
					return usageErrorf("--against reconciles one recording with another; got %d inputs besides it", len(args))
				}
				if against == "" {
					return usageErrorf("--against: missing the recording to reconcile with")
				}
				args = append(args, against)
			}
			if err := checkStdin(args); err != nil {
				return err
			}
			if c.Flags().Changed("against") {
				return e.reconcile(args[0], args[1], asJSON, sev)
			}
			return e.audit(args, asJSON, sev)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of lines")
	cmd.Flags().StringVar(&failOn, "fail-on", string(judge.Error), "exit 1 when a finding is at least this severe: info, warning or error")
	cmd.Flags().StringVar(&against, "against", "", "reconcile the input with this `recording` of the same run (two-layer Trace Fidelity)")
	e.redactFlags(cmd) // its findings quote arguments: the same secret scan as convert
	return cmd
}

// auditReport is the JSON form of `agenttrace audit --json`.
type auditReport struct {
	Files  []auditFile `json:"files"`
	Counts auditCounts `json:"counts"`
}

// auditFile is one input's findings.
type auditFile struct {
	File     string          `json:"file"`
	Findings []judge.Finding `json:"findings"`
	// Trailer is set when the file's summary trailer counts records the
	// file does not hold: the trailer's totals, and how many are missing.
	Trailer *trailerNote `json:"trailer,omitempty"`
}

// trailerNote is what a summary trailer says of records a file does not
// hold. Findings are about the records that are there.
type trailerNote struct {
	Dropped int64                  `json:"dropped"`
	Tokens  artifact.Tokens        `json:"tokens"`
	Budget  *artifact.BudgetStatus `json:"budget,omitempty"`
	Note    string                 `json:"note"`
}

// trailerOf tells what src's trailer counts that its records do not
// (through report, which owns that reckoning); nil when nothing.
func trailerOf(src *source) *trailerNote {
	if src.summary == nil {
		return nil
	}
	rep := report.Tokens(src.records, src.meta, report.WithTrailer(src.summary, src.records))
	if rep.Dropped == 0 {
		return nil
	}
	note := fmt.Sprintf("the summary trailer counts %d record(s) the file does not hold (dropped by the producer): "+
		"their details are not in the file, so they are not audited, and findings of what is missing (a call, a parent) "+
		"may be theirs; the trailer's totals: %s tokens", rep.Dropped, report.Thousands(rep.Tokens.Total))
	if b := rep.Budget; b != nil {
		note += fmt.Sprintf(", budget %s", report.Thousands(b.BudgetTokens))
		if b.OverBudget {
			note += " (over budget)"
		}
	}
	return &trailerNote{Dropped: rep.Dropped, Tokens: rep.Tokens, Budget: rep.Budget, Note: note}
}

// auditCounts counts the findings of every input, by severity and by
// category.
type auditCounts struct {
	Total      int            `json:"total"`
	Error      int            `json:"error"`
	Warning    int            `json:"warning"`
	Info       int            `json:"info"`
	ByCategory map[string]int `json:"by_category"`
}

func (c *auditCounts) add(f judge.Finding) {
	c.Total++
	switch f.Severity {
	case judge.Error:
		c.Error++
	case judge.Warning:
		c.Warning++
	case judge.Info:
		c.Info++
	}
	c.ByCategory[string(f.Category)]++
}

func (e *env) audit(paths []string, asJSON bool, failOn judge.Severity) error {
	code := exitOK
	rep := auditReport{Files: []auditFile{}, Counts: auditCounts{ByCategory: map[string]int{}}}
	for _, p := range paths {
		src, err := e.loadRedacted(p)
		if err != nil {
			// Report and go on: one unusable file must not hide the
			// findings of the others.
			c, _ := printError(e.stderr, err)
			code = worst(code, c)
			continue
		}
		findings := judge.Audit(converter.LogsAsEvents(src.records, src.logs), judge.WithRedacted(src.redacted()), judge.WithTrailer(src.summary))
		tn := trailerOf(src)
		rep.Files = append(rep.Files, auditFile{File: src.name, Findings: findings, Trailer: tn})
		if tn != nil && !asJSON {
			fmt.Fprintf(e.stdout, "%s: note: %s\n", src.name, tn.Note)
		}
		for _, f := range findings {
			rep.Counts.add(f)
			if f.Severity.AtLeast(failOn) {
				code = worst(code, exitInvalid)
			}
			if !asJSON {
				fmt.Fprintf(e.stdout, "%s: %s\n", src.name, f)
			}
		}
		if !asJSON && len(findings) == 0 {
			fmt.Fprintf(e.stdout, "%s: no findings\n", src.name)
		}
		// A trace that lost lines cannot be vouched for.
		if e.noteSource(src) != nil {
			code = worst(code, exitInvalid)
		}
	}
	if asJSON {
		if err := e.printJSON(rep); err != nil {
			return err
		}
	}
	return exitWith(code)
}

// reconcileReport is the JSON form of `agenttrace audit A --against B`.
type reconcileReport struct {
	*judge.Reconciliation
	// TrailerA and TrailerB are set when a file's trailer counts records
	// it does not hold.
	TrailerA *trailerNote `json:"trailer_a,omitempty"`
	TrailerB *trailerNote `json:"trailer_b,omitempty"`
	Counts   auditCounts  `json:"counts"`
}

// reconcile audits recording pathA against pathB of the same run.
func (e *env) reconcile(pathA, pathB string, asJSON bool, failOn judge.Severity) error {
	a, err := e.loadRun(pathA)
	if err != nil {
		return err
	}
	b, err := e.loadRun(pathB)
	if err != nil {
		return err
	}
	rec := judge.Reconcile(recordingOf(a), recordingOf(b))
	rep := reconcileReport{Reconciliation: rec, TrailerA: trailerOf(a), TrailerB: trailerOf(b), Counts: auditCounts{ByCategory: map[string]int{}}}
	code := exitOK
	for _, f := range rec.Findings {
		rep.Counts.add(f)
		if f.Severity.AtLeast(failOn) {
			code = exitInvalid
		}
	}
	if len(rec.Runs) == 0 {
		// Nothing in common: not two recordings of one run.
		fmt.Fprintf(e.stderr, "agenttrace: %s and %s share no run: no trace id, no conversation id, no overlap in time\n", a.name, b.name)
		code = exitInvalid
	}
	if asJSON {
		if err := e.printJSON(rep); err != nil {
			return err
		}
	} else {
		for _, tn := range []struct {
			name string
			note *trailerNote
		}{{a.name, rep.TrailerA}, {b.name, rep.TrailerB}} {
			if tn.note != nil {
				fmt.Fprintf(e.stdout, "%s: note: %s\n", tn.name, tn.note.Note)
			}
		}
		for _, f := range rec.Findings {
			fmt.Fprintf(e.stdout, "%s vs %s: %s\n", a.name, b.name, f)
		}
		if len(rec.Findings) == 0 && len(rec.Runs) > 0 {
			fmt.Fprintf(e.stdout, "%s vs %s: no findings\n", a.name, b.name)
		}
	}
	for _, src := range []*source{a, b} {
		if e.noteSource(src) != nil {
			code = worst(code, exitInvalid)
		}
	}
	return exitWith(code)
}

// recordingOf is src as judge.Reconcile reads it.
func recordingOf(src *source) judge.Recording {
	return judge.Recording{Name: src.name, Records: src.records, Lines: src.lines, Meta: src.meta, Summary: src.summary}
}
