package bucket

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/goleak"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// publishing is a store writing dir with a publisher to b attached.
func publishing(t *testing.T, b *Bucket, dir string, opts PublisherOptions) (*store.Store, *Publisher) {
	t.Helper()
	p := b.Publisher(opts)
	st, err := store.New(store.Options{Dir: dir, Recover: true, Hooks: store.Hooks{Finalized: p.Hook(nil)}})
	require.NoError(t, err)
	require.NoError(t, p.Start(st, dir))
	return st, p
}

// localArtifacts lists the artifact files left in dir and its taken folder.
func localArtifacts(t *testing.T, dir string) []string {
	t.Helper()
	a, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	b, err := filepath.Glob(filepath.Join(dir, store.TakenDir, "*"))
	require.NoError(t, err)
	return append(a, b...)
}

// TestPublisher (issue 23 point 1): a run finalized at its root is
// uploaded and its local copy removed; a span that comes after the upload
// goes to a fresh file, uploaded at Close as the run's second generation;
// the merged run holds every span once; nothing is left in the folder.
func TestPublisher(t *testing.T) {
	recs, _ := realRun(t, "mastra", "tool-loop")
	for bname, b := range backends(t) {
		t.Run(bname, func(t *testing.T) {
			dir := t.TempDir()
			var (
				mu       sync.Mutex // two workers upload
				uploaded []string
			)
			st, p := publishing(t, b, dir, PublisherOptions{Zstd: bname == "memblob",
				Uploaded: func(key string, existed bool) { mu.Lock(); uploaded = append(uploaded, key); mu.Unlock() }})
			require.NoError(t, st.Write(recs))
			// A late span: a model call of the same trace, sent after the
			// run's root ended.
			late := artifact.Record{Span: ptrace.NewSpan(), Resource: recs[3].Resource, Scope: recs[3].Scope}
			recs[3].Span.CopyTo(late.Span)
			late.Span.SetSpanID(pcommon.SpanID{9, 9, 9, 9, 9, 9, 9, 9})
			require.Eventually(t, func() bool { return p.Stats().Uploaded == 1 }, 10*time.Second, time.Millisecond)
			require.NoError(t, st.Write([]artifact.Record{late}))
			require.NoError(t, st.Close())
			require.NoError(t, p.Shutdown(context.Background()))

			assert.Equal(t, Stats{Uploaded: 2}, p.Stats())
			assert.Empty(t, localArtifacts(t, dir), "local copies removed once uploaded")
			require.Len(t, uploaded, 2)
			k, err := ParseKey(uploaded[1])
			require.NoError(t, err)
			assert.Equal(t, 2, k.Gen)
			rc, err := b.OpenRun(context.Background(), uploaded[0])
			require.NoError(t, err)
			ids, _ := spansOf(t, readAll(t, rc))
			assert.Len(t, ids, len(recs)+1)
		})
	}
}

// TestPublisherRestart (issue 23 point 1, kill -9 between finalization and
// upload): what a process left (a taken file not uploaded; a taken file
// uploaded but not removed; a finalized artifact never taken) is uploaded
// by the next start, each run once: the file already uploaded makes no
// second generation.
func TestPublisherRestart(t *testing.T) {
	mastra, _ := realRun(t, "mastra", "tool-loop")
	stream, _ := realRun(t, "otel-instrumentation-openai", "stream")
	fail, _ := realRun(t, "otel-instrumentation-openai", "fail")
	b := backends(t)["fileblob"]
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, store.TakenDir), 0o755))
	move := func(src, to string) {
		raw, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to, raw, 0o644))
	}
	a1 := writeArtifact(t, mastra, plog.NewLogs())
	move(a1, filepath.Join(dir, store.TakenDir, strconv.Itoa(1)+"."+filepath.Base(a1)))
	a2 := writeArtifact(t, stream, plog.NewLogs())
	_, _, err := b.Put(context.Background(), a2, filepath.Base(a2), false)
	require.NoError(t, err)
	move(a2, filepath.Join(dir, store.TakenDir, strconv.Itoa(2)+"."+filepath.Base(a2)))
	a3 := writeArtifact(t, fail, plog.NewLogs())
	move(a3, filepath.Join(dir, filepath.Base(a3)))

	st, p := publishing(t, b, dir, PublisherOptions{})
	require.NoError(t, st.Close())
	require.NoError(t, p.Shutdown(context.Background()))
	assert.Equal(t, Stats{Uploaded: 2, Existed: 1}, p.Stats())
	assert.Empty(t, localArtifacts(t, dir))
	var runs []Run
	for r, err := range b.Runs(context.Background(), "") {
		require.NoError(t, err)
		runs = append(runs, r)
	}
	require.Len(t, runs, 3)
	for _, r := range runs {
		assert.Len(t, r.Objects, 1, "%s: one generation", r.Key)
	}
}

// TestPublisherShutdownHonoursContext: a bucket that refuses every upload
// is tried again until Shutdown's context ends; the file stays for the
// next start, and the failures are counted.
func TestPublisherShutdownHonoursContext(t *testing.T) {
	recs, _ := realRun(t, "mastra", "tool-loop")
	closed := backends(t)["memblob"]
	mb := New(blobPrefixed(closed, ""), "refusing")
	require.NoError(t, mb.b.Close()) // every call fails now
	dir := t.TempDir()
	var heard atomic.Int64
	st, p := publishing(t, mb, dir, PublisherOptions{MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
		OnError: func(error) { heard.Add(1) }})
	require.NoError(t, st.Write(recs))
	require.NoError(t, st.Close())
	require.Eventually(t, func() bool { return p.Stats().Failed >= 3 }, 10*time.Second, time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, p.Shutdown(ctx), context.DeadlineExceeded)
	assert.Len(t, localArtifacts(t, dir), 1, "left for the next start")
	assert.Equal(t, int64(1), p.Stats().Pending)
	assert.GreaterOrEqual(t, heard.Load(), p.Stats().Failed)
}
