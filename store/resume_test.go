package store

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// kept reports whether s keeps the state of k's finalized artifact.
func kept(s *Store, k Key) bool {
	s.resume.mu.Lock()
	defer s.resume.mu.Unlock()
	return s.resume.by[k] != nil
}

// TestReopenResumes (issue 22 item 11): a large artifact finalized after
// a request and reopened by the next resumes from what the store kept
// (no reading back), and still skips every span already written, those
// of earlier requests included; the file stays valid, its last trailer
// counting it all. A file changed since it was finalized (appended to by
// someone else, here a torn line) is read back instead, as before.
func TestReopenResumes(t *testing.T) {
	const per = resumeMinRecords + 7 - resumeMinRecords%7
	key := TraceKey(pcommon.TraceID{0x7e, 1})
	tests := []struct {
		name    string
		tamper  bool // append a torn line between the requests
		resumed bool
	}{
		{name: "resumed from the kept state", resumed: true},
		{name: "file changed since: read back", tamper: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName(key, ""))
			var written, dups atomic.Int64
			s := newStore(t, Options{Dir: dir, Hooks: Hooks{
				Written: func(n int64) { written.Add(n) }, Duplicates: func(n int64) { dups.Add(n) }}})
			first := reopenBatch(0, per)
			require.NoError(t, s.Write(first))
			require.False(t, s.IsActive(key), "finalized after the request")
			require.True(t, kept(s, key), "a large artifact's state is kept")
			if tt.tamper {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				require.NoError(t, err)
				_, err = f.WriteString(`{"kind":"inference","na`)
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}

			second := reopenBatch(1, per)
			require.NoError(t, s.Write(second))
			assert.Equal(t, int64(2*per), written.Load())
			s.resume.mu.Lock()
			hits := s.resume.hits
			s.resume.mu.Unlock()
			if tt.resumed {
				assert.Equal(t, 1, hits, "reopened from the kept state")
			} else {
				assert.Zero(t, hits, "read back")
			}
			// Redelivered, both requests in one: every span skipped.
			require.NoError(t, s.Write(append(reopenBatch(0, per), reopenBatch(1, per)...)))
			assert.Equal(t, int64(2*per), written.Load(), "nothing written twice")
			assert.Equal(t, int64(2*per), dups.Load())

			a := readPath(t, path) // the last trailer counts the file
			assert.Empty(t, a.problems)
			assert.Len(t, a.recs, 2*per)
			assert.Equal(t, 1, a.headers)
			require.NoError(t, s.Close())
		})
	}
}

// TestResumeCacheIsBounded: the kept states hold at most maxResumeIDs
// (here less) span ids together, the oldest let go first, and a small artifact's
// state is not kept (reading it back is cheap).
func TestResumeCacheIsBounded(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir})
	const per = resumeMinRecords + 7 - resumeMinRecords%7
	s.resume.max = 3 * per // a few artifacts' worth, for a short test
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})))
	assert.False(t, kept(s, TraceKey(tid(1))), "small: not kept")
	n := 5
	for i := range n {
		recs := reopenBatch(i, per)
		for j := range recs {
			recs[j].Span.SetTraceID(pcommon.TraceID{0x7f, byte(i >> 8), byte(i)})
		}
		require.NoError(t, s.Write(recs))
	}
	s.resume.mu.Lock()
	ids, entries := s.resume.ids, len(s.resume.by)
	s.resume.mu.Unlock()
	assert.LessOrEqual(t, ids, s.resume.max)
	assert.Less(t, entries, n, "the oldest let go")
	assert.True(t, kept(s, TraceKey(pcommon.TraceID{0x7f, byte((n - 1) >> 8), byte(n - 1)})), "the newest kept")
	assert.False(t, kept(s, TraceKey(pcommon.TraceID{0x7f, 0, 0})), "the oldest let go")
}
