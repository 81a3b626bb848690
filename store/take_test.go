package store

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestTake (issue 23 point 1): a finalized artifact is moved to TakenDir
// whole; a late span of its run then starts a fresh file (the run's next
// generation) holding only what came after; a live or unfinished one, a
// missing one and a path outside the folder are not taken.
func TestTake(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	s := newStore(t, Options{Dir: dir})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})))

	taken, ok, err := s.Take(path)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, filepath.Join(dir, TakenDir), filepath.Dir(taken))
	name, named := TakenName(taken)
	assert.True(t, named)
	assert.Equal(t, filepath.Base(path), name)
	assert.NoFileExists(t, path)
	first := readPath(t, taken)
	assert.Len(t, first.recs, 2)

	_, ok, err = s.Take(path)
	require.NoError(t, err)
	assert.False(t, ok, "nothing left to take")

	require.NoError(t, s.Write(children(1, 1)))
	_, ok, err = s.Take(path)
	require.NoError(t, err)
	assert.False(t, ok, "no root in the fresh file: live until it is an orphan or Close")
	require.NoError(t, s.Close())
	late := readPath(t, path)
	require.Len(t, late.recs, 1, "a fresh file: the late span only")
	assert.Equal(t, int64(1), late.summaries)
	assert.Equal(t, tid(1).String(), late.meta.TraceID)

	_, _, err = s.Take(filepath.Join(t.TempDir(), filepath.Base(path)))
	require.ErrorIs(t, err, ErrNotOwned)
	_, _, err = s.Take(taken)
	require.ErrorIs(t, err, ErrNotOwned)
}

// TestTakeFile: TakeFile hands over the taken file open at its start, the
// bytes the taken path holds, also when the taken folder was removed
// since the last take; a second take has no file to hand.
func TestTakeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	s := newStore(t, Options{Dir: dir})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1},
		span{trace: 2, id: 1})))
	_, ok, err := s.Take(filepath.Join(dir, FileName(TraceKey(tid(2)), "")))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, TakenDir)))

	f, taken, ok, err := s.TakeFile(path)
	require.NoError(t, err)
	require.True(t, ok)
	defer f.Close()
	got, err := io.ReadAll(f)
	require.NoError(t, err)
	want, err := os.ReadFile(taken)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Len(t, readPath(t, taken).recs, 2)

	f, _, ok, err = s.TakeFile(path)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Nil(t, f)
}

// TestTakeLeavesLiveAndUnfinished: an artifact still being written (its
// root not ended, so no trailer, and live in the store) is left alone.
func TestTakeLeavesLiveAndUnfinished(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	s := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	_, ok, err := s.Take(path)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.FileExists(t, path)
	assert.True(t, s.IsActive(TraceKey(tid(1))), "still live")
	require.NoError(t, s.Close())
	taken, ok, err := s.Take(path)
	require.NoError(t, err)
	require.True(t, ok, "after Close every artifact has its trailer")
	assert.Len(t, readPath(t, taken).recs, 1)
}

// TestTakeRotated: a rotated file is taken as it is.
func TestTakeRotated(t *testing.T) {
	dir := t.TempDir()
	var rotated []string
	var mu sync.Mutex
	s := newStore(t, Options{Dir: dir, Route: ByAttribute, Attribute: "service.name", RotateBytes: 1,
		Hooks: Hooks{Finalized: func(p string) { mu.Lock(); rotated = append(rotated, p); mu.Unlock() }}})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	mu.Lock()
	require.Len(t, rotated, 1)
	p := rotated[0]
	mu.Unlock()
	_, isRotated := rotatedBase(filepath.Base(p))
	require.True(t, isRotated, p)
	taken, ok, err := s.Take(p)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Len(t, readPath(t, taken).recs, 1)
}

// TestTakeRacesLateSpans (run with -race): late spans of a run written one
// by one, each with a redelivery of the root (so that a fresh file is
// finalized at once too), while a publisher takes the run's file as often
// as it can; every late span ends up in exactly one file, each file whole,
// with one header first and its trailer last.
func TestTakeRacesLateSpans(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	s := newStore(t, Options{Dir: dir})
	require.NoError(t, s.Write(records(span{trace: 1, id: 1})))
	const n = 200
	late := children(1, n)
	done := make(chan struct{})
	var taken []string
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			p, ok, err := s.Take(path)
			assert.NoError(t, err)
			if ok {
				taken = append(taken, p)
			}
		}
	})
	root := records(span{trace: 1, id: 1})
	for i := range late {
		require.NoError(t, s.Write(append([]artifact.Record{late[i]}, root...)))
	}
	close(done)
	wg.Wait()
	require.NoError(t, s.Close())
	if p, ok, err := s.Take(path); assert.NoError(t, err) && ok {
		taken = append(taken, p)
	}
	require.NoFileExists(t, path)
	seen := map[pcommon.SpanID]int{}
	for _, p := range taken {
		r := readPath(t, p)
		assert.Equal(t, 1, r.headers, p)
		assert.Empty(t, r.problems, p)
		for _, rec := range r.recs {
			seen[rec.Span.SpanID()]++
		}
	}
	assert.Len(t, seen, n+1)
	assert.GreaterOrEqual(t, seen[sid(1)], 1)
	delete(seen, sid(1)) // the root, redelivered: once per file at most
	for id, c := range seen {
		assert.Equal(t, 1, c, "span %s", id)
	}
	assert.Greater(t, len(taken), 1, "the race took more than one generation")
	ents, err := os.ReadDir(filepath.Join(dir, TakenDir))
	require.NoError(t, err)
	assert.Len(t, ents, len(taken))
}

func TestTakenName(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"123.abc.jsonl", "abc.jsonl", true},
		{"/x/.taken/123.conv-a.b.jsonl", "conv-a.b.jsonl", true},
		{"abc.jsonl", "", false},
		{"12x.abc.jsonl", "", false},
		{"123..hidden.jsonl", "", false},
		{"123.abc.txt", "", false},
	}
	for _, tt := range tests {
		got, ok := TakenName(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
