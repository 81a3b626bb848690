package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/internal/explain"
)

func newExplainCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain FILE...",
		Short: "Say what was understood in a trace, and what was not",
		Long: `Explain says, per span and in total, what agenttrace understood of a
trace and what it did not: each span's kind (inference, call, agent,
span) and the rule that decided it (gen_ai.operation.name, a dialect's
kind key and value, the span name's "{operation} {target}" form, or
evidence: a model key beside usage or message keys, or a provider's own
request/response body); the attributes that look like usage, a model,
content or a tool name (their key holds token, usage, model, prompt,
completion, input, output, message or tool) that no rule of the dialect
table reads; model calls without usage or without messages; tools
without a name; spans whose usage disagrees with their children's.

A trace from a library nobody tuned agenttrace for shows at once what is
missing, instead of a silently wrong total: add the keys it names to a
dialect file (docs/dialects.md) and pass it with --dialect.

Text lists only the spans with something to say (a GenAI kind, a problem
or an unread key); --json lists every span. Values are redacted as
convert redacts them.

Exit status: 0 when everything was understood, 1 when some span has a
problem or a plain span carries an unread key (or an input is invalid),
2 on a usage error.`,
		Example: `  agenttrace explain traces.json
  agenttrace explain --dialect mylib.yaml traces.json --json`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.explain(args, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of lines")
	e.redactFlags(cmd)
	return cmd
}

func (e *env) explain(paths []string, asJSON bool) error {
	all, err := e.loadInputs(paths)
	if err != nil {
		return err
	}
	ex := explain.New()
	for _, src := range all.sources {
		ex.AddRecords(src.name, src.records)
	}
	if asJSON {
		err = e.printJSON(ex)
	} else {
		err = writeExplanation(ex, e.stdout)
		if err != nil {
			err = writeError("standard output", err)
		}
	}
	if err != nil {
		return err
	}
	if err := e.noteSkipped(all); err != nil {
		return err
	}
	if !ex.Total.Understood {
		return errFindings
	}
	return nil
}

// writeText prints the spans with something to say, then the totals.
func writeExplanation(ex *explain.Explanation, w io.Writer) error {
	p := &errWriter{w: w}
	for _, s := range ex.Spans {
		if !s.Noteworthy() {
			continue
		}
		p.printf("%s: %s %s %q: %s\n", s.File, s.Kind, s.SpanID, s.Name, s.Rule)
		if s.Model != "" || s.Tool != "" {
			p.printf("    model %s tool %s", cmp.Or(s.Model, "-"), cmp.Or(s.Tool, "-"))
			if s.NamedBy != "" {
				p.printf(" (named by span %s)", s.NamedBy)
			}
			p.printf("\n")
		}
		for _, pr := range s.Problems {
			p.printf("    problem: %s\n", pr)
		}
		if len(s.Unread) > 0 {
			p.printf("    unread keys: %s\n", strings.Join(s.Unread, ", "))
		}
	}
	t := ex.Total
	p.printf("\n%d spans: %s\n", t.Spans, countsText(t.ByKind))
	p.printf("decided by: %s\n", countsText(t.ByRule))
	p.printf("model calls: %d, without usage %d, without messages %d\n", t.ModelCalls, t.WithoutUsage, t.WithoutMessages)
	p.printf("tools: %d, without a name %d\n", t.Tools, t.ToolsUnnamed)
	p.printf("usage levels that disagree with their children: %d\n", t.Disagreements)
	if len(t.Unread) > 0 {
		p.printf("unread keys that look like usage, a model, content or a tool: %s\n", countsText(t.Unread))
		p.printf("plain spans with unread keys (model calls or tools no rule recognised?): %d\n", t.PlainWithUnread)
		p.printf("(add them to a dialect file and pass --dialect: docs/dialects.md)\n")
	}
	if t.Understood {
		p.printf("everything was understood\n")
	}
	return p.err
}

// countsText is "a 3, b 1", by count then name.
func countsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// errWriter keeps the first write error, so a report is a list of
// printf calls and one check.
type errWriter struct {
	w   io.Writer
	err error
}

func (p *errWriter) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}
