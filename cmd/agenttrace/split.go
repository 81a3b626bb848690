package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttrace/agenttrace/store"
)

// splitInto writes one artifact per group into p.split and prints each
// path. Artifacts are the store's: the same names, headers and merging
// as the SDK processor's and the collector's (an artifact already in DIR
// is continued, each span once). Other formats are named by the same
// rule.
func (e *env) splitInto(p *convertPlan, all *inputs) error {
	route := p.by
	if p.format != outJSONL {
		return e.splitOTLP(p, all, route)
	}
	st, err := store.New(store.Options{Dir: p.split, Route: route, Header: e.redact.options(all.headerOptions())})
	if err != nil {
		return ioError(fmt.Errorf("--split: %w", err))
	}
	werr := st.Write(all.records)
	if err := st.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return ioError(fmt.Errorf("--split %s: %w", p.split, werr))
	}
	for _, g := range store.Split(all.records, route, "") {
		fmt.Fprintln(e.stdout, filepath.Join(p.split, store.FileName(g.Key, "")))
	}
	return nil
}

// splitOTLP writes one OTLP file per group, named as the store names
// artifacts.
func (e *env) splitOTLP(p *convertPlan, all *inputs, route store.Route) error {
	if err := os.MkdirAll(p.split, 0o755); err != nil {
		return ioError(fmt.Errorf("--split: %w", err))
	}
	for _, g := range store.Split(all.records, route, "") {
		name := strings.TrimSuffix(store.FileName(g.Key, ""), store.Ext) + p.format.ext()
		if !filepath.IsLocal(name) {
			// The naming rule makes this impossible; refuse rather than escape DIR.
			return invalidError(fmt.Errorf("--split: %s gives an unsafe file name %q", g.Key, name))
		}
		path := filepath.Join(p.split, name)
		err := writeFile(path, func(w io.Writer) error {
			return encode(w, p.format, g.Records, nil)
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, path)
	}
	return nil
}
