package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// parallelBatches is what TestParallelWriteIsSerialWrite writes: 60 traces
// of batch 1 (420 records, a pipeline's worth) with a budget on one root;
// then batch 1 again with 40 traces of batch 2 among it (a redelivery:
// every span of batch 1 a duplicate); then, under another resource, late
// spans of 10 traces of batch 2 among 10 new ones.
func parallelBatches() [][]artifact.Record {
	first := benchRecords(60)
	fresh(first, 1)
	for i := range first {
		if artifact.IsLocalRoot(first[i].Span) {
			first[i].Span.Attributes().PutInt(semconv.BudgetTokens, 5000)
			break
		}
	}
	again := benchRecords(60)
	fresh(again, 1)
	more := benchRecords(40)
	fresh(more, 2)
	mixed := append(again[:210:210], more...)
	mixed = append(mixed, again[210:]...)
	late := benchRecords(20)
	fresh(late, 3)
	late[0].Resource.Attributes().PutStr("service.version", "2")
	for i := range late[:70] {
		var id pcommon.TraceID
		binary.BigEndian.PutUint64(id[:8], 2)
		binary.BigEndian.PutUint64(id[8:], uint64(i/7))
		late[i].Span.SetTraceID(id)
		sid := late[i].Span.SpanID()
		sid[7] = 0xee // not a span batch 2 had
		late[i].Span.SetSpanID(sid)
	}
	return [][]artifact.Record{first, mixed, late}
}

// writeTree writes parallelBatches with opts on procs cores (opts.Dir or
// opts.Path under dir), redacting by way of Options.Prepare, and returns
// the files written, by name, and how often Prepare ran. With restart, a
// new store continues the files for each batch.
func writeTree(t *testing.T, opts Options, procs int, restart bool) (map[string][]byte, int64) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var prepared atomic.Int64
	opts.Prepare = func(rec *artifact.Record) {
		prepared.Add(1)
		rec.Span.Attributes().PutStr("prepared", rec.Span.Name())
	}
	dir := t.TempDir()
	if opts.Path != "" {
		opts.Path = filepath.Join(dir, opts.Path)
	} else {
		opts.Dir = dir
	}
	s, err := New(opts)
	require.NoError(t, err)
	for _, recs := range parallelBatches() {
		if restart {
			require.NoError(t, s.Close())
			s, err = New(opts)
			require.NoError(t, err)
		}
		require.NoError(t, s.Write(recs))
	}
	require.NoError(t, s.Close())
	files := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = raw
	}
	return files, prepared.Load()
}

// TestParallelWriteIsSerialWrite: artifacts written on several cores (a
// Write's groups at once, a large group through the pipeline) are byte for
// byte what one core writes: the same records in the same order, each
// prepared before it is read and none twice, duplicates skipped, the same
// headers and trailers (with a root's budget).
func TestParallelWriteIsSerialWrite(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		restart bool // a new store for each batch: artifacts adopted
		files   int
		recs    int
	}{
		{"one run file", Options{Path: "run.jsonl"}, false, 1, 840},
		{"one attribute's artifact", Options{Route: ByAttribute, Attribute: "service.name"}, false, 1, 840},
		{"one artifact per trace", Options{}, false, 110, 840},
		{"per trace, finalized later", Options{FinalizeAfter: 1 << 40}, false, 110, 840},
		{"per trace, adopted", Options{FinalizeAfter: 1 << 40}, true, 110, 840},
		{"per trace, a record cap", Options{FinalizeAfter: 1 << 40, RecordCap: 5}, false, 110, 550},
		// The cap reached part-way through a large group's chunks.
		{"one run file, a record cap", Options{Path: "run.jsonl", RecordCap: 300}, false, 1, 300},
		{"by conversation", Options{Route: ByConversation}, false, 110, 840},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantPrep := writeTree(t, tt.opts, 1, tt.restart)
			got, gotPrep := writeTree(t, tt.opts, 4, tt.restart)
			for _, n := range []int64{wantPrep, gotPrep} {
				assert.GreaterOrEqual(t, n, int64(840), "every record written prepared")
				assert.LessOrEqual(t, n, int64(420+420+280+140), "no record prepared twice")
			}
			require.Len(t, want, tt.files)
			require.Len(t, got, len(want))
			total := 0
			for name, raw := range want {
				require.Equal(t, string(raw), string(got[name]), name)
				if tt.opts.RecordCap > 0 {
					// The trailer counts the capped spans' usage and end
					// too: readBack's check is for what the file holds.
					total += countRecords(t, raw)
					continue
				}
				a := readBack(t, got[name])
				assert.Empty(t, a.problems, name)
				assert.Equal(t, 1, a.headers, name)
				for _, rec := range a.recs {
					v, ok := rec.Span.Attributes().Get("prepared")
					require.True(t, ok, "%s: %s not prepared", name, rec.Span.Name())
					assert.Equal(t, rec.Span.Name(), v.Str())
				}
				total += len(a.recs)
			}
			assert.Equal(t, tt.recs, total, "every span once (up to the cap)")
		})
	}
}

// TestPipelineFailureWritesNothing: a large group whose write fails after
// some of its chunks are on disk is cut back whole: the file is as before,
// nothing is counted or remembered, every record is returned for a retry,
// and the retry writes each span once.
func TestPipelineFailureWritesNothing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	room := 1 << 30
	wrapFiles(t, func(_ string, f file) (file, error) { return failAfter{file: f, n: &room}, nil })
	var dropped atomic.Int64
	path := filepath.Join(t.TempDir(), "run.jsonl")
	s := newStore(t, Options{Path: path, Hooks: Hooks{Dropped: func(n int64) { dropped.Add(n) }}})
	first := benchRecords(60)
	fresh(first, 1)
	require.NoError(t, s.Write(first))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	second := benchRecords(60)
	fresh(second, 2)
	room = 3 * len(before) / 4 // a few chunks, not all
	err = s.Write(second)
	require.ErrorIs(t, err, errFull)
	var we *WriteError
	require.ErrorAs(t, err, &we)
	assert.Len(t, we.Failed, len(second))
	assert.Equal(t, int64(len(second)), dropped.Load(), "what was given counts as dropped")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the chunks written are cut back")

	room = 1 << 30
	require.NoError(t, s.Write(we.Failed))
	require.NoError(t, s.Write(second)) // redelivered: nothing twice
	require.NoError(t, s.Close())
	a := readPath(t, path)
	assert.Empty(t, a.problems)
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 840)
	require.NotNil(t, a.summary)
	assert.Equal(t, int64(840), a.summary.Records)
}

// countRecords reads an artifact and returns its records, failing on any
// line that does not read.
func countRecords(t *testing.T, raw []byte) int {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(raw))
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		n++
	}
	require.Empty(t, r.Problems())
	return n
}
