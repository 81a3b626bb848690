package hostiletest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// Accepted fails t unless respBody, a 200's body, is an
// ExportTraceServiceResponse that rejects no span: a partial success is
// no acknowledgement of the whole trace.
func Accepted(t testing.TB, respBody []byte) {
	t.Helper()
	resp := ptraceotlp.NewExportResponse()
	require.NoError(t, resp.UnmarshalProto(respBody))
	require.Zero(t, resp.PartialSuccess().RejectedSpans(), resp.PartialSuccess().ErrorMessage())
}

// Acked is what a server acknowledged: for each trace, one span that
// must be in its artifact. Steps of a suite record into it concurrently.
type Acked struct {
	mu    sync.Mutex
	spans map[string]string // trace id -> span id, acknowledged with 200
}

// Add records that the trace tid's span sid was acknowledged.
func (a *Acked) Add(tid pcommon.TraceID, sid pcommon.SpanID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.spans == nil {
		a.spans = map[string]string{}
	}
	a.spans[tid.String()] = sid.String()
}

// Written waits up to wait (polling every tick) until every acknowledged
// span is in its trace's artifact DIR/<trace id>.jsonl, checks that no
// hidden artifact DIR/.jsonl (a span without a trace id) was written, and
// returns the acknowledged traces' artifacts.
func (a *Acked) Written(t testing.TB, dir string, wait, tick time.Duration) []string {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	files := make([]string, 0, len(a.spans))
	for tid, sid := range a.spans {
		f := filepath.Join(dir, tid+".jsonl")
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			b, err := os.ReadFile(f)
			require.NoError(c, err)
			assert.Contains(c, string(b), `"span_id":"`+sid+`"`)
		}, wait, tick, "trace %s", tid)
		files = append(files, f)
	}
	_, err := os.Stat(filepath.Join(dir, ".jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist, "a span without a trace id made a hidden artifact")
	return files
}
