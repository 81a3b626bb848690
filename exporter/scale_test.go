package agenttraceexporter

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestTenThousandOpenTraces: 10,000 traces in flight at once (no root span
// has ended, so none is finalized) keep at most max_open_files files open,
// and the memory they hold stays small per trace: what an artifact keeps
// between batches is its header, tally and span-id set, not its records.
func TestTenThousandOpenTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	const traces, perTrace, maxOpen = 10_000, 3, 64
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.MaxOpenFiles = maxOpen })

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for round := range perTrace {
		td := ptrace.NewTraces()
		for i := range traces {
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr("service.name", "svc")
			sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
			var tid pcommon.TraceID
			tid[0], tid[1], tid[2] = byte(i>>8), byte(i), 0xee
			sp.SetTraceID(tid)
			sp.SetSpanID(pcommon.SpanID{byte(round + 2), byte(i >> 8), byte(i)})
			sp.SetParentSpanID(pcommon.SpanID{1, byte(i >> 8), byte(i)}) // the root has not ended
			sp.SetName("chat gpt-test")
			sp.Attributes().PutStr("gen_ai.operation.name", "chat")
			sp.Attributes().PutInt("gen_ai.usage.input_tokens", 10)
		}
		require.NoError(t, e.pushTraces(context.Background(), td))
		open, active := e.st.OpenFiles(), e.st.Active()
		assert.LessOrEqual(t, open, maxOpen, "open files stay under max_open_files")
		assert.Equal(t, traces, active)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perTraceBytes := (int64(after.HeapInuse) - int64(before.HeapInuse)) / traces
	t.Logf("%d open traces x %d spans: %d open files, ~%d B of heap per trace", traces, perTrace, maxOpen, perTraceBytes)
	assert.Less(t, perTraceBytes, int64(8<<10), "an open trace holds little memory")
}
