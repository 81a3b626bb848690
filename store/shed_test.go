package store

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateOf is the lifecycle state of k's live artifact (stGone: none).
func stateOf(s *Store, k Key) state {
	a := s.lookup(k)
	if a == nil {
		return stGone
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st
}

// TestEndedTraceShedsItsState: with a finalize delay (the exporter's
// finalize_after), a trace whose root ended lets go of its header, tally
// and span set but stays live until it is finalized; a late span adopts
// the file and is counted with what came before, a redelivered span is
// still skipped, and the trailer Close writes counts the whole trace
// (each chat span of records reports 10 input and 5 output tokens).
func TestEndedTraceShedsItsState(t *testing.T) {
	dir := t.TempDir()
	k := TraceKey(tid(1))
	path := filepath.Join(dir, FileName(k, ""))
	var finalized, dups atomic.Int64
	s := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour, Fsync: FsyncNever, Hooks: Hooks{
		Finalized:  func(string) { finalized.Add(1) },
		Duplicates: func(n int64) { dups.Add(n) },
	}})
	first := records(span{trace: 1, id: 3, parent: 1}, span{trace: 1, id: 1})
	require.NoError(t, s.Write(first))
	assert.Equal(t, stShed, stateOf(s, k), "its root ended: nothing kept in memory")
	assert.True(t, s.IsActive(k), "not finalized before its delay")
	assert.Zero(t, finalized.Load())

	require.NoError(t, s.Write(children(1, 1)))
	assert.Equal(t, stOpen, stateOf(s, k), "the late span after the trailer")
	require.NoError(t, s.Write(first[:1]))
	assert.Equal(t, int64(1), dups.Load(), "the adopted span set skips a redelivered span")

	require.NoError(t, s.Close())
	assert.Equal(t, int64(1), finalized.Load())
	a := readPath(t, path) // checks that the last trailer counts the file
	assert.Empty(t, a.problems)
	require.Len(t, a.recs, 3)
	require.NotNil(t, a.summary)
	assert.Equal(t, int64(3), a.summary.Records)
	assert.Equal(t, int64(20), a.summary.Tokens.Input, "two chat spans")
	assert.Equal(t, int64(10), a.summary.Tokens.Output)
	assert.Equal(t, int64(2), a.summaries, "the root's trailer and Close's")
}
