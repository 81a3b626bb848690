package store

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
)

// children is n chat spans of trace tr under the root of id 1, with span
// ids of their own (more than a byte's worth).
func children(tr byte, n int) []converter.Record {
	spans := make([]span, n)
	for i := range spans {
		spans[i] = span{trace: tr, id: 2, parent: 1}
	}
	recs := records(spans...)
	for i := range recs {
		recs[i].Span.SetSpanID(pcommon.SpanID{0xaa, byte(i >> 8), byte(i), 1, 2, 3, 4, 5})
	}
	return recs
}

// lastLine is the last line of the file at path.
func lastLine(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	return lines[len(lines)-1]
}

// TestLateChildGetsATrailer (issue 22 item 3): with no finalize delay (the
// bridge, serve --otlp), a span that arrives after its trace's root ended
// is written with a fresh trailer after it, in the same write, by the
// serial path and the pipelined one alike; the file is valid on disk
// before Close (what a kill -9 leaves), and the artifact is finalized
// again rather than kept live until Close.
func TestLateChildGetsATrailer(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		// The pipeline needs two cores' worth of goroutines.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	tests := []struct {
		name string
		late int // spans of the late batch
	}{
		{name: "serial", late: 1},
		{name: "pipelined", late: 4 * minShare},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Greater(t, pipelineWorkers(4*minShare), 1, "the second case takes the pipeline")
			dir := t.TempDir()
			path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
			s := newStore(t, Options{Dir: dir})
			require.NoError(t, s.Write(records(span{trace: 1, id: 3, parent: 1}, span{trace: 1, id: 1})))
			require.False(t, s.IsActive(TraceKey(tid(1))), "finalized with its root")

			require.NoError(t, s.Write(children(1, tt.late)))
			assert.False(t, s.IsActive(TraceKey(tid(1))), "finalized again after the late span")
			assert.Zero(t, s.OpenFiles())
			assert.Contains(t, lastLine(t, path), `"kind":"summary"`, "a trailer follows the late span")
			a := readPath(t, path) // checks that the last trailer counts the file
			assert.Empty(t, a.problems)
			assert.Len(t, a.recs, 2+tt.late)
			assert.Equal(t, int64(2), a.summaries, "the root's and the late span's")

			// A redelivery of the late batch writes nothing, not even a trailer.
			require.NoError(t, s.Write(children(1, tt.late)))
			assert.Equal(t, int64(2), readPath(t, path).summaries)
			require.NoError(t, s.Close())
			assert.Equal(t, int64(2), readPath(t, path).summaries, "Close has nothing to add")
		})
	}
}
