package store

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestTornLineLeavesAValidArtifact: an artifact a crash left with a torn
// last line, continued by the next run (a late span, a redelivery, or
// Recover at start), reads without a problem afterwards (issue 13: "a torn
// line closed off on resume does not make the artifact invalid"): the
// torn bytes, never counted (write, then count), are cut back on adoption
// and Hooks.Repaired names the file and how much was cut. A last line that
// lacks only its newline still reads (format §11 rule 7): it is kept,
// closed off, and its span is not written twice.
func TestTornLineLeavesAValidArtifact(t *testing.T) {
	const tornRecord = `{"kind":"inference","name":"torn`
	tests := []struct {
		name    string
		root    bool   // the first run wrote the root, and with it a trailer
		tail    string // appended to the first run's file
		recover bool   // the second run takes the file back at start
		cut     int64  // bytes Repaired reports
		recs    int    // records after the second run
	}{
		{name: "torn record after a trailer", root: true, tail: tornRecord, cut: int64(len(tornRecord)), recs: 3},
		{name: "torn record after a record", tail: tornRecord, cut: int64(len(tornRecord)), recs: 3},
		{name: "torn trailer", tail: `{"kind":"summary","records":`, cut: int64(len(`{"kind":"summary","records":`)), recs: 3},
		{name: "torn record, recovered at start", tail: tornRecord, recover: true, cut: int64(len(tornRecord)), recs: 3},
		{name: "whole record without its newline", tail: "", cut: 0, recs: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
			first := []span{{trace: 1, id: 2, parent: 1}}
			if tt.root {
				first = append(first, span{trace: 1, id: 1})
			}
			s, err := New(Options{Dir: dir, FinalizeAfter: time.Hour})
			require.NoError(t, err)
			require.NoError(t, s.Write(records(first...)))
			require.NoError(t, s.Close())
			tail := tt.tail
			if tail == "" {
				// What a crash leaves when the write stopped one byte
				// short: the span of id 3, whole but for its newline.
				raw := encodeRecords(t, records(span{trace: 1, id: 3, parent: 1}))
				tail = string(raw[:len(raw)-1])
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.WriteString(tail)
			require.NoError(t, err)
			require.NoError(t, f.Close())

			var mu sync.Mutex
			var repaired []string
			var cut int64
			opts := Options{Dir: dir, Recover: tt.recover, FinalizeAfter: time.Hour, Hooks: Hooks{Repaired: func(p string, n int64) {
				mu.Lock()
				defer mu.Unlock()
				repaired = append(repaired, p)
				cut += n
			}}}
			s = newStore(t, opts)
			if tt.recover {
				require.Eventually(t, func() bool { return s.IsActive(TraceKey(tid(1))) }, 10*time.Second, time.Millisecond, "recovered")
			}
			// The sender redelivers what it was never acknowledged for,
			// and goes on.
			require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1}, span{trace: 1, id: 1})))
			require.NoError(t, s.Close())

			a := readPath(t, path)
			assert.Empty(t, a.problems, "valid after the next run")
			assert.Equal(t, 1, a.headers)
			assert.Len(t, a.recs, tt.recs, "every span once")
			if assert.NotNil(t, a.summary) {
				assert.Equal(t, int64(tt.recs), a.summary.Records)
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.cut == 0 {
				assert.Empty(t, repaired)
				return
			}
			assert.Equal(t, []string{path}, repaired)
			assert.Equal(t, tt.cut, cut)
		})
	}
}

// encodeRecords is the lines an artifact holds for recs.
func encodeRecords(t *testing.T, recs []artifact.Record) []byte {
	t.Helper()
	var enc artifact.Encoder
	enc.SetDefaults(artifact.NewMeta(time.Time{}))
	var buf []byte
	for i := range recs {
		buf = enc.AppendRecord(buf, &recs[i])
	}
	return buf
}
