package server

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkFolder makes a folder whose top directory holds more than two
// batches of runs (a store's flat folder), with a subfolder, hidden
// files and folders, files of other kinds and links; it returns the runs
// the walk must list, sorted.
func walkFolder(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var want []string
	write := func(rel string, listed bool) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o644))
		if listed {
			want = append(want, rel)
		}
	}
	for i := range 2*dirBatch + 37 {
		write(fmt.Sprintf("run-%05d.jsonl", i), true)
	}
	write("sub/a.jsonl", true)
	write("sub/deeper/b.jsonl", true)
	write(".hidden.jsonl", false)
	write(".git/c.jsonl", false)
	write("notes.txt", false)
	write("run.jsonl.zst", false)
	require.NoError(t, os.Symlink("sub/a.jsonl", filepath.Join(dir, "link.jsonl")))
	want = append(want, "link.jsonl")
	require.NoError(t, os.Symlink("sub", filepath.Join(dir, "linkdir")))
	outside := filepath.Join(t.TempDir(), "out.jsonl")
	require.NoError(t, os.WriteFile(outside, []byte("{}\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out.jsonl")))
	slices.Sort(want)
	return dir, want
}

// TestEachWalksInBatches: the walk lists every run of a flat folder read
// a batch of entries at a time, and of its subfolders, once each; not the
// hidden ones, other kinds of files, a link leading out or a linked
// folder; it stops when told to.
func TestEachWalksInBatches(t *testing.T) {
	dir, want := walkFolder(t)
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	l := &lister{root: root, log: slog.New(slog.DiscardHandler), limit: len(want)}

	for _, tc := range []struct {
		name string
		stop int // stop after this many; 0: never
	}{{"all", 0}, {"stop after 10", 10}, {"stop after a batch", dirBatch + 1}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			l.each(context.Background(), func(rel string, fi fs.FileInfo) bool {
				assert.True(t, fi.Mode().IsRegular(), rel)
				got = append(got, rel)
				return tc.stop == 0 || len(got) < tc.stop
			})
			if tc.stop > 0 {
				assert.Len(t, got, tc.stop)
				assert.Subset(t, want, got)
				return
			}
			slices.Sort(got)
			assert.Equal(t, want, got)
		})
	}

	t.Run("walk stops one past the limit", func(t *testing.T) {
		small := &lister{root: root, log: l.log, limit: 100}
		assert.Len(t, small.walk(), 101)
		files := l.walk()
		got := make([]string, len(files))
		for i, f := range files {
			got[i] = f.rel
		}
		assert.Equal(t, want, got, "in path order, for the folder's digest")
	})
}
