package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ArtifactExt is the extension of the artifacts a folder's catalog lists
// (store.Ext; a folder's compressed or foreign files are not runs).
const ArtifactExt = ".jsonl"

// FileRow returns the row of the artifact name in the folder dir.
func FileRow(dir, name string) (Row, error) {
	p := filepath.Join(dir, name)
	f, err := os.Open(p)
	if err != nil {
		return Row{}, fmt.Errorf("catalog: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Row{}, fmt.Errorf("catalog: %w", err)
	}
	return RowOf(f, Source{Name: p, Keys: []string{filepath.ToSlash(name)}, Bytes: fi.Size()})
}

// BuildStats says what [Build] did.
type BuildStats struct {
	// Runs counts the rows written.
	Runs int
	// Failed holds an error, naming the file, for each artifact that
	// could not be read: it has no row.
	Failed []error
	// Removed counts the catalog files the build replaced.
	Removed int
}

// artifacts lists the artifact files of dir (its top level, as a store
// writes them), sorted.
func artifacts(dir string) ([]os.DirEntry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	out := des[:0]
	for _, de := range des {
		if de.Type().IsRegular() && strings.HasSuffix(de.Name(), ArtifactExt) && !strings.HasPrefix(de.Name(), ".") {
			out = append(out, de)
		}
	}
	return out, nil
}

// Build rebuilds the catalog of the folder dir from its artifacts: it
// writes a row for each, then deletes the catalog files that were there
// before, so that a Query meanwhile sees every run (twice at most, which
// it dedupes) and afterwards no run whose artifact is gone.
func Build(ctx context.Context, dir string, opts WriterOptions) (BuildStats, error) {
	var st BuildStats
	dest := Dir(dir)
	old, err := dest.List(ctx, "catalog/")
	if err != nil {
		return st, err
	}
	des, err := artifacts(dir)
	if err != nil {
		return st, err
	}
	w := NewWriter(dest, opts)
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		row, err := FileRow(dir, de.Name())
		if err != nil {
			st.Failed = append(st.Failed, err)
			continue
		}
		if err := w.Add(ctx, row); err != nil {
			return st, err
		}
		st.Runs++
	}
	if err := w.Flush(ctx); err != nil {
		return st, err
	}
	var errs []error
	for _, o := range old {
		if strings.HasSuffix(o.Key, ".parquet") {
			errs = append(errs, dest.Delete(ctx, o.Key))
			st.Removed++
		}
	}
	return st, errors.Join(errs...)
}
