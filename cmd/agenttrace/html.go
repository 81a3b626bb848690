package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/viewer"
	"github.com/agenttrace/agenttrace/viewer/server"
)

func newHTMLCmd(e *env) *cobra.Command {
	var out, title string
	cmd := &cobra.Command{
		Use:   "html FILE...",
		Short: "Write a self-contained HTML viewer for runs",
		Long: `Html writes one HTML file that shows the runs: summary and token tables,
a waterfall timeline of the agent, model and tool spans, and each record's
arguments, results and messages. The file works offline and from a bug
report: its style, code and data are inline, and a Content-Security-Policy
forbids loading anything. Without JavaScript it shows a static outline.

Inputs are anything agenttrace reads (artifacts, OTLP, and the shapes of
"convert --from"); each input is one run, converted here: the page only
renders what Go computed. When an artifact's trailer accounts for records
the file does not hold (dropped by a queue or a record cap), the page shows
the trailer's totals and budget and says how many records were dropped.
An artifact dropped onto the page opens as written (its own kinds, fields
and trailer totals); other formats open with this command or on a page of
"agenttrace serve", which converts dropped files.

The output goes next to the first input, with the extension .html, unless
-o names it; "-o -" writes to standard output.`,
		Example: `  agenttrace html run.jsonl
  agenttrace html runs/*.jsonl -o runs.html`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkStdin(args); err != nil {
				return err
			}
			if out == "" {
				if args[0] == "-" {
					return usageErrorf("-o is required when reading standard input")
				}
				out = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".html"
			}
			if err := notAnInput(out, args); err != nil {
				return err
			}
			return e.html(args, out, title)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", `output file ("-" for standard output; default: next to the first input)`)
	cmd.Flags().StringVar(&title, "title", "", "page title (default: the first input's name)")
	e.redactFlags(cmd)
	return cmd
}

func (e *env) html(paths []string, out, title string) error {
	all, err := e.loadInputs(paths)
	if err != nil {
		return err
	}
	var runs []viewer.Run
	sources, loose := pageSources(all.sources)
	for _, src := range sources {
		logs := append(slices.Clip(src.logs), loose...)
		runs = append(runs, viewer.Run{Name: filepath.Base(src.name), Meta: src.meta, Records: converter.LogsAsEvents(src.records, logs), Logs: logs, Summary: src.summary,
			InFlight: src.inFlight, Live: liveness(src.name)})
	}
	var opts []viewer.Option
	if title != "" {
		opts = append(opts, viewer.WithTitle(title))
	}
	write := func(w io.Writer) error { return viewer.Write(w, runs, opts...) }
	if out == "-" {
		if err := write(e.stdout); err != nil {
			return ioError(fmt.Errorf("write standard output: %w", err))
		}
	} else {
		if err := writeFile(out, write); err != nil {
			return err
		}
		n := 0
		for _, r := range runs {
			n += len(r.Records)
		}
		fmt.Fprintf(e.stderr, "wrote %s (%s in %s)\n", out, plural(n, "record"), plural(len(runs), "run"))
	}
	// A page made from inputs that lost lines must not look clean.
	return e.noteSkipped(all)
}

// pageSources are the inputs that are runs of the page, and the log
// records of the others: an OTLP logs payload given beside its traces
// (agenttrace html traces.pb logs.pb, as convert takes them) holds no span,
// so it is no run of its own; its records go with the spans they name, in
// whichever run holds them (the content the official GenAI
// instrumentations put in log records, an application's own logs). Inputs
// that are all logs stay runs.
func pageSources(all []*source) (runs []*source, loose []artifact.LogRecord) {
	for _, src := range all {
		if len(src.records) == 0 && len(src.logs) > 0 {
			loose = append(loose, src.logs...)
			continue
		}
		runs = append(runs, src)
	}
	if len(runs) == 0 {
		return all, nil
	}
	return runs, loose
}

// liveness is what tells, on a page made of the file at path, a run still
// being written from one whose writer went away (viewer.Liveness): the
// file's modification time and serve's idle time, so a page of a killed
// run says "stopped without an end" as serve does. Zero for an input that
// is not a local file (standard input, a bucket): never taken as stopped.
func liveness(path string) viewer.Liveness {
	fi, err := os.Stat(path)
	if err != nil {
		return viewer.Liveness{}
	}
	return viewer.LivenessOf(fi, server.DefaultIdle)
}
