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
	return RowOf(f, Source{Name: p, Keys: []string{filepath.ToSlash(name)}, Bytes: fi.Size(), Size: fi.Size()})
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

// Build rebuilds the catalog of the folder dir from its artifacts (see
// [Rebuild]): a row for each artifact of its top level.
func Build(ctx context.Context, dir string, opts WriterOptions) (BuildStats, error) {
	return Rebuild(ctx, Dir(dir), opts, func(yield func(Row, error) bool) error {
		des, err := artifacts(dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			if !yield(FileRow(dir, de.Name())) {
				break
			}
		}
		return nil
	})
}

// Rows yields the rows of a location's runs for [Rebuild]: a run's row,
// or the error (naming the run) of a run that has none, which is counted
// in BuildStats.Failed. An error it returns ends the rebuild.
type Rows func(yield func(Row, error) bool) error

// Rebuild replaces the catalog at dest by the rows rows yields: it writes
// them all, then deletes the catalog files that were there before, so
// that a Query meanwhile sees every run (twice at most, which it dedupes)
// and afterwards no run that is gone. A folder's build ([Build]) and a
// bucket's ("agenttrace catalog build URL") differ only in their rows.
func Rebuild(ctx context.Context, dest Dest, opts WriterOptions, rows Rows) (BuildStats, error) {
	var st BuildStats
	old, err := dest.List(ctx, "catalog/")
	if err != nil {
		return st, err
	}
	w := NewWriter(dest, opts)
	var werr error
	err = rows(func(row Row, err error) bool {
		if werr = ctx.Err(); werr != nil {
			return false
		}
		if err != nil {
			st.Failed = append(st.Failed, err)
			return true
		}
		if werr = w.Add(ctx, row); werr != nil {
			return false
		}
		st.Runs++
		return true
	})
	if err = errors.Join(err, werr); err != nil {
		return st, err
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
