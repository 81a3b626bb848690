package main

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/store"
)

// exportOptions are export's flags.
type exportOptions struct {
	format     string
	out        string
	per        string
	status     string
	overBudget bool
	service    string
}

// exporter writes the runs that passed the filters in one format, to
// o.out. Each format is one entry of exporters: adding one adds a case
// there.
type exporter func(e *env, runs []*exportRun, o exportOptions, st *exportStats) error

// exporters are export's formats, by --format name.
var exporters = map[string]exporter{
	"chat-jsonl": writeChatJSONL,
	"atif":       writeATIF,
}

func newExportCmd(e *env) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export --format FORMAT RUN...",
		Short: "Write runs as a dataset for fine-tuning or evaluation tools",
		Long: `Export writes runs in a shape other tools read.

--format chat-jsonl writes one JSON line per model call (--per call, the
default) or per run (--per run) in the OpenAI chat fine-tuning and
evaluation shape:

  {"messages":[{"role":"system"|"user"|"assistant"|"tool","content":…,
    "tool_calls":[{"id","type":"function","function":{"name","arguments"}}],
    "tool_call_id":…}],
   "tools":[{"type":"function","function":{"name","description","parameters"}}],
   "evaluations":[{"name","score","label","explanation",…}]}

The messages are the normalized conversation "messages --json" prints
(whatever dialect the run was written in, a call without input of its own
taking its nearest ancestor's): the system instructions, the input, then
the call's answer, so the assistant's answer is the last message. A line
per run is the run's last answered call, whose input carries the
conversation so far. "tools" are the tool definitions the call (or its
nearest ancestor) carries; "evaluations" the gen_ai.evaluation.result
verdicts on the call's span (every verdict of the run with --per run),
left out when there are none. A call with no answer is left out, and so
are parts the chat shape has no place for (reasoning, media): both are
counted on standard error.

--format atif writes each run as one ATIF-v1.7 trajectory (the Agent
Trajectory Interchange Format, as "convert --to atif" writes it): one
compact document per line, or, when -o names a directory (an existing one,
or a path ending in /), one <run>.atif.json per run there, whose paths are
printed. A judged model call's step carries its verdicts in its extra
(agenttrace.evaluations).

RUN is an artifact, an OTLP file or any input convert reads, or a
directory, whose *.jsonl artifacts are read (hidden ones skipped). Each
file is one run. --status, --over-budget and --service keep the runs the
list of "serve" keeps with the same filters: --status error a run with a
failed span or an unreadable line, ok one with neither; --over-budget a run
over its token or cost budget; --service the header's service name.

Content is scanned for secrets as everywhere else (--no-redact keeps them,
--redact-key replaces named fields too).`,
		Example: `  agenttrace export --format chat-jsonl runs/ -o calls.jsonl
  agenttrace export --format chat-jsonl --per run --status ok run.jsonl
  agenttrace export --format atif runs/ -o trajectories/`,
		Args: argsAtLeast(1, "run (an artifact, an input file, or a directory of artifacts)"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.export(args, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "the format to write: "+strings.Join(slices.Sorted(maps.Keys(exporters)), ", ")+" (required)")
	f.StringVarP(&o.out, "output", "o", "-", "write to this file instead of standard output (atif: or into this directory, one file per run)")
	f.StringVar(&o.per, "per", "call", "chat-jsonl: one line per model call (call) or per run (run)")
	f.StringVar(&o.status, "status", "", "keep only runs with no failure (ok) or with one (error)")
	f.BoolVar(&o.overBudget, "over-budget", false, "keep only runs over their token or cost budget")
	f.StringVar(&o.service, "service", "", "keep only runs of this service")
	e.redactFlags(cmd) // it writes content: the same secret scan as convert
	return cmd
}

// check rejects flag values export does not know.
func (o exportOptions) check() error {
	if _, ok := exporters[o.format]; !ok {
		if o.format == "" {
			return usageErrorf("--format is required: one of %s", strings.Join(slices.Sorted(maps.Keys(exporters)), ", "))
		}
		return usageErrorf("--format %q: want one of %s", o.format, strings.Join(slices.Sorted(maps.Keys(exporters)), ", "))
	}
	if o.per != "call" && o.per != "run" {
		return usageErrorf("--per %q: want call or run", o.per)
	}
	if o.status != "" && o.status != "ok" && o.status != "error" {
		return usageErrorf("--status %q: want ok or error", o.status)
	}
	return nil
}

// exportRun is one run read for export.
type exportRun struct {
	src  *source
	meta *artifact.Meta // the artifact's header, or one made from the records
	sum  artifact.Summary
}

// exportStats counts what export left out, for standard error.
type exportStats struct {
	runs, filtered, lines int
	unanswered            int
	parts                 map[string]int // parts left out, by type
}

func (e *env) export(args []string, o exportOptions) error {
	paths, err := exportPaths(args)
	if err != nil {
		return err
	}
	var (
		runs []*exportRun
		st   = exportStats{parts: map[string]int{}}
		bad  error
	)
	for _, p := range paths {
		src, err := e.loadRedacted(p)
		if err != nil {
			return err
		}
		if e.noteSource(src) != nil {
			bad = errFindings
		}
		st.runs++
		r := newExportRun(src)
		if !o.keep(r) {
			st.filtered++
			continue
		}
		runs = append(runs, r)
	}
	if err := exporters[o.format](e, runs, o, &st); err != nil {
		return err
	}
	st.note(e.stderr)
	return bad
}

// newExportRun sorts src's records by end time, as every command reads
// them, and tallies them for the filters.
func newExportRun(src *source) *exportRun {
	artifact.SortRecords(src.records)
	r := &exportRun{src: src, meta: src.meta}
	if r.meta == nil {
		r.meta = store.Header(store.Key{Kind: store.KindRun}, src.records, store.HeaderOptions{Whole: true})
	}
	var t artifact.Tally
	for i := range src.records {
		t.Add(&src.records[i])
	}
	r.sum = t.Summary(artifact.JudgedBudget(r.meta.Budget, src.summary))
	return r
}

// keep applies the filters as serve's list applies its own (listquery.go).
func (o exportOptions) keep(r *exportRun) bool {
	if o.service != "" && r.meta.Service != o.service {
		return false
	}
	failed := r.sum.Errors > 0 || r.src.skipped > 0
	switch o.status {
	case "ok":
		if failed {
			return false
		}
	case "error":
		if !failed {
			return false
		}
	}
	if o.overBudget {
		b := r.sum.Budget
		if b == nil || !(b.OverBudget || b.CostBudget != nil && b.CostBudget.OverBudgetUSD) {
			return false
		}
	}
	return true
}

// exportPaths expands directories to the *.jsonl artifacts under them,
// in name order, skipping hidden files and directories; files are kept as
// given.
func exportPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" {
			out = append(out, a)
			continue
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, ioError(err)
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != a && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && filepath.Ext(p) == ".jsonl" {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, ioError(fmt.Errorf("list %s: %w", a, err))
		}
		out = append(out, found...)
	}
	return out, nil
}

// note prints what was written and what was left out.
func (st *exportStats) note(w io.Writer) {
	fmt.Fprintf(w, "export: %d line(s) from %d run(s)", st.lines, st.runs-st.filtered)
	if st.filtered > 0 {
		fmt.Fprintf(w, ", %d run(s) filtered out", st.filtered)
	}
	fmt.Fprintln(w)
	if st.unanswered > 0 {
		fmt.Fprintf(w, "export: note: %d model call(s) without an answer left out\n", st.unanswered)
	}
	for _, typ := range slices.Sorted(maps.Keys(st.parts)) {
		fmt.Fprintf(w, "export: note: %d %s part(s) left out: the chat shape has no place for them\n", st.parts[typ], typ)
	}
}
