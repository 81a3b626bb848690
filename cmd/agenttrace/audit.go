package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/judge"
)

func newAuditCmd(e *env) *cobra.Command {
	var (
		asJSON bool
		failOn string
	)
	cmd := &cobra.Command{
		Use:   "audit FILE...",
		Short: "Check that a trace tells the whole story",
		Long: `Audit checks the fidelity of each input's trace and prints one line per
finding, "file: severity category: message (trace, spans, tool call)":

  missing_call           error    a tool call the model requested has no call record
  phantom_call           warning  a call carries a tool call id no model requested
  argument_drift         error    a call ran with other arguments than requested
  hidden_retry           warning  a model call repeats a failed attempt's input
  token_underreport      error    an agent reports fewer tokens than its model calls
  missing_finish_reason  warning  a generation does not say why it stopped
  orphan_span            warning  a span's parent is not in the input

Inputs are artifacts or OTLP files, told apart by their content; each is
audited on its own. A file without findings prints "file: no findings".

Exit status: 0 when no finding is at least as severe as --fail-on, 1 when
one is (or an input is invalid, or lines were skipped), 2 on a usage
error or when an input cannot be read.`,
		Example: `  agenttrace audit run.jsonl
  agenttrace audit runs/*.jsonl --fail-on warning
  agenttrace audit traces.json --json`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(_ *cobra.Command, args []string) error {
			sev, err := judge.ParseSeverity(failOn)
			if err != nil {
				return usageErrorf("--fail-on: %v", err)
			}
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.audit(args, asJSON, sev)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of lines")
	cmd.Flags().StringVar(&failOn, "fail-on", string(judge.Error), "exit 1 when a finding is at least this severe: info, warning or error")
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
		src, err := e.loadOne(p)
		if err != nil {
			// Report and go on: one unusable file must not hide the
			// findings of the others.
			c, _ := printError(e.stderr, err)
			code = worst(code, c)
			continue
		}
		findings := judge.Audit(src.records, judge.WithRedacted(src.redacted()))
		rep.Files = append(rep.Files, auditFile{File: src.name, Findings: findings})
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
