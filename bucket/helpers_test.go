package bucket

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/store"
)

// realRun reads a captured run of testdata/real: lib's payload name,
// its spans and, when captured, its log records (the official OpenAI
// instrumentation's prompts and answers).
func realRun(t testing.TB, lib, name string) ([]artifact.Record, plog.Logs) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "real", lib, "payloads", name)
	raw, err := os.ReadFile(dir + ".traces.pb")
	require.NoError(t, err)
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	ld := plog.NewLogs()
	if raw, err = os.ReadFile(dir + ".logs.pb"); err == nil {
		ld, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(raw)
		require.NoError(t, err)
	}
	return artifact.Records(td), ld
}

// blobPrefixed is b under prefix.
func blobPrefixed(b *Bucket, prefix string) *blob.Bucket {
	return blob.PrefixedBucket(b.b, prefix)
}

// backends are the gocloud drivers the unit tests run on.
func backends(t testing.TB) map[string]*Bucket {
	fb, err := fileblob.OpenBucket(t.TempDir(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = fb.Close() })
	mb := memblob.OpenBucket(nil)
	t.Cleanup(func() { _ = mb.Close() })
	return map[string]*Bucket{"fileblob": New(fb, "file"), "memblob": New(mb, "mem")}
}

// writeArtifact writes recs (and logs) with a store into a folder of its
// own, closes it, and returns the path of the one artifact.
func writeArtifact(t testing.TB, recs []artifact.Record, logs plog.Logs) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.New(store.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, st.Write(recs))
	if logs.LogRecordCount() > 0 {
		require.NoError(t, st.WriteLogs(artifact.LogRecords(logs)))
	}
	require.NoError(t, st.Close())
	ents, err := filepath.Glob(filepath.Join(dir, "*"+store.Ext))
	require.NoError(t, err)
	require.Len(t, ents, 1)
	return ents[0]
}

// readAll reads a stream whole.
func readAll(t *testing.T, rc io.ReadCloser) []byte {
	t.Helper()
	raw, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	return raw
}

// spansOf reads an artifact's span ids, in order, and its log lines.
func spansOf(t *testing.T, raw []byte) (ids []string, logs int) {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithLogs(func(*artifact.LogRecord) { logs++ }))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		ids = append(ids, rec.Span.SpanID().String())
	}
	require.Empty(t, r.Problems())
	return ids, logs
}

// keys lists every key of b.
func keys(t *testing.T, b *Bucket) []string {
	t.Helper()
	var out []string
	it := b.b.List(nil)
	for {
		o, err := it.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, o.Key)
	}
}
