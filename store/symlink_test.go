package store

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSymlinkNotFollowed (issue 22 item 9): a symbolic link planted in the
// store's folder under an artifact's name, to a file outside it or to
// none yet, is never followed: the write is refused with ErrSymlink (an
// ErrNotAppendable, so the exporter does not retry it), its spans counted
// as dropped, and nothing outside the folder is written, created, cut or
// read; recovery at start passes the link by; other traces are written.
func TestSymlinkNotFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	outside := t.TempDir()
	const planted = "someone else's file\n" // not an artifact: a crash repair would cut or set it aside
	tests := []struct {
		name   string
		target string // in outside
		exists bool
	}{
		{name: "to an existing file", target: "victim", exists: true},
		{name: "to a file not there yet", target: "new", exists: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(outside, tt.target)
			if tt.exists {
				require.NoError(t, os.WriteFile(target, []byte(planted), 0o644))
			}
			link := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
			require.NoError(t, os.Symlink(target, link))

			var dropped atomic.Int64
			s := newStore(t, Options{Dir: dir, Recover: true, Hooks: Hooks{Dropped: func(n int64) { dropped.Add(n) }}})
			err := s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1}, span{trace: 2, id: 1}))
			var we *WriteError
			require.ErrorAs(t, err, &we)
			assert.ErrorIs(t, err, ErrSymlink)
			assert.ErrorIs(t, err, ErrNotAppendable)
			assert.Len(t, we.Failed, 2, "trace 1's spans only")
			assert.Equal(t, int64(2), dropped.Load())
			require.NoError(t, s.Close())

			if tt.exists {
				b, err := os.ReadFile(target)
				require.NoError(t, err)
				assert.Equal(t, planted, string(b), "the file outside is untouched")
			} else {
				assert.NoFileExists(t, target, "nothing created outside")
			}
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is left as it is")
			assert.Empty(t, readPath(t, filepath.Join(dir, FileName(TraceKey(tid(2)), ""))).problems, "trace 2 written")
		})
	}
}

// TestSymlinkSwappedInAfterFinalize: an artifact finalized and then
// replaced by a link (to a copy of itself outside the folder, so that it
// would adopt cleanly) is refused when a late span would reopen it.
func TestSymlinkSwappedInAfterFinalize(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, outside := t.TempDir(), t.TempDir()
	s := newStore(t, Options{Dir: dir})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})))
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	copied := filepath.Join(outside, "copy.jsonl")
	require.NoError(t, os.Rename(path, copied))
	before, err := os.ReadFile(copied)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(copied, path))

	err = s.Write(records(span{trace: 1, id: 3, parent: 1}))
	assert.ErrorIs(t, err, ErrSymlink)
	require.NoError(t, s.Close())
	after, err := os.ReadFile(copied)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "nothing appended through the link")
}
