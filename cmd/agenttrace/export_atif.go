package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttrace/agenttrace/atif"
)

// writeATIF writes each run as one ATIF trajectory document (atif.FromRecords
// and atif.Combine, as convert --to atif): into a directory, when -o
// names one (an existing directory, or a path ending in a separator), as
// <run>.atif.json per run; else one compact document per line (one run
// gives one JSON document).
func writeATIF(e *env, runs []*exportRun, o exportOptions, st *exportStats) error {
	if isDirTarget(o.out) {
		return writeATIFFiles(e, runs, o.out, st)
	}
	return e.writeOutput(o.out, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, r := range runs {
			t := atif.Combine(atif.FromRecords(r.src.records, r.src.logs))
			if t.SchemaVersion == "" {
				t.SchemaVersion = atif.SchemaVersion
			}
			b, err := marshalLine(t)
			if err != nil {
				return fmt.Errorf("%s: %w", r.src.name, err)
			}
			bw.Write(b)
			st.lines++
		}
		return bw.Flush()
	})
}

// writeATIFFiles writes dir/<run>.atif.json for each run, named after the
// run's file (its .jsonl cut), and prints the paths.
func writeATIFFiles(e *env, runs []*exportRun, dir string, st *exportStats) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ioError(fmt.Errorf("write %s: %w", dir, bare(err)))
	}
	used := map[string]int{}
	for _, r := range runs {
		base := strings.TrimSuffix(filepath.Base(r.src.name), filepath.Ext(r.src.name))
		if base == "" || r.src.name == stdinName {
			base = "stdin"
		}
		used[base]++
		if n := used[base]; n > 1 {
			base = fmt.Sprintf("%s-%d", base, n) // runs/a/run.jsonl and runs/b/run.jsonl
		}
		p := filepath.Join(dir, base+".atif.json")
		t := atif.Combine(atif.FromRecords(r.src.records, r.src.logs))
		if err := writeFile(p, func(w io.Writer) error { return atif.Write(w, t) }); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, p)
		st.lines++
	}
	return nil
}

// isDirTarget reports whether -o names a directory: one that exists, or
// a path ending in a separator.
func isDirTarget(p string) bool {
	if p == "-" {
		return false
	}
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
		return true
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
