package e2eload_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"

	"github.com/agenttrace/agenttrace/internal/e2eload"
)

// receiver is an OTLP/gRPC trace receiver that acknowledges every span
// and remembers its id: the collector's side of the count.
type receiver struct {
	ptraceotlp.UnimplementedGRPCServer
	mu  sync.Mutex
	ids map[string]int
}

func (r *receiver) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rss := req.Traces().ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				r.ids[spans.At(k).SpanID().String()]++
			}
		}
	}
	return ptraceotlp.NewExportResponse(), nil
}

func startReceiver(t *testing.T) (*receiver, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &receiver{ids: map[string]int{}}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, r)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return r, lis.Addr().String()
}

// TestLoadCountsWhatWasAcknowledged: every span the load generated is
// acknowledged once Stop has flushed, and the acknowledged spans are
// exactly those the receiver took, in runs of a root and three calls;
// at a rate, too.
func TestLoadCountsWhatWasAcknowledged(t *testing.T) {
	for _, rate := range []int{0, 2000} {
		r, addr := startReceiver(t)
		l := e2eload.Start(t, addr, e2eload.Options{Service: "test", Scope: "agenttrace/test", Agent: "test", Rate: rate})
		e2eload.Await(t, 30*time.Second, "acknowledged spans", func() bool { return l.Acked() >= 200 })
		l.Stop()
		acked := l.AckedSpans()
		assert.Equal(t, l.Generated(), l.Acked(), "rate %d: every generated span acknowledged", rate)
		assert.Len(t, acked, int(l.Acked()), "rate %d", rate)
		assert.Zero(t, l.Generated()%4, "rate %d: whole runs of four spans", rate)
		assert.Empty(t, l.RefusedSpans(), "rate %d", rate)
		assert.Zero(t, l.Fails(), "rate %d", rate)
		r.mu.Lock()
		assert.Len(t, r.ids, len(acked), "rate %d: the receiver took what was acknowledged", rate)
		for id := range acked {
			assert.Equal(t, 1, r.ids[id], "rate %d: span %s", rate, id)
		}
		r.mu.Unlock()
	}
}

// TestCheckArtifact: a golden artifact passes every check, its spans are
// found by SpanIDs and AllWritten; a torn copy (no trailer, a last line
// cut short) has no complete line counted beyond what was whole.
func TestCheckArtifact(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "agent-run.jsonl"))
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(path, raw, 0o644))

	a := e2eload.CheckArtifact(t, path)
	require.NotNil(t, a)
	assert.Equal(t, "meta", a.Kinds[0])
	assert.Len(t, a.Records, int(a.Summary.Records))
	ids := e2eload.SpanIDs(dir)
	acked := map[string]string{}
	for _, id := range a.SpanIDs() {
		assert.Positive(t, ids[id], id)
		acked[id] = "trace"
	}
	assert.True(t, e2eload.AllWritten(acked, dir))
	acked["0000000000000001"] = "trace"
	assert.False(t, e2eload.AllWritten(acked, dir), "a span not written")

	torn := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(torn, "run.jsonl"), raw[:len(raw)-40], 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(torn, "notes.txt"), raw, 0o644))
	assert.Equal(t, ids, e2eload.SpanIDs(torn), "the cut trailer held no span; other files are not artifacts")
}

// TestPoll: Poll reports whether the condition came to hold in time.
func TestPoll(t *testing.T) {
	n := 0
	assert.True(t, e2eload.Poll(time.Second, func() bool { n++; return n == 3 }))
	assert.False(t, e2eload.Poll(50*time.Millisecond, func() bool { return false }))
}
