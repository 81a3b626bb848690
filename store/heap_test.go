package store

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// bigTrace is one agent run of trace n: invoke_agent over a chat call and
// a tool call, with 8 KiB of attributes between them.
func bigTrace(n int, big string) []artifact.Record {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc")
	ss := rs.ScopeSpans().AppendEmpty()
	tid := pcommon.TraceID{byte(n), byte(n >> 8), byte(n >> 16), 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	start := time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC)
	for i, op := range []string{"chat", "execute_tool", "invoke_agent"} {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid)
		sp.SetSpanID(pcommon.SpanID{byte(i + 2), byte(n), byte(n >> 8), byte(n >> 16)})
		if op != "invoke_agent" {
			sp.SetParentSpanID(pcommon.SpanID{2 + 2, byte(n), byte(n >> 8), byte(n >> 16)})
		}
		sp.SetName(op)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Second)))
		a := sp.Attributes()
		a.PutStr(semconv.OperationName, op)
		switch op {
		case "chat":
			a.PutStr(semconv.RequestModel, "gpt-4o")
			a.PutInt(semconv.UsageInputTokens, 1200)
			a.PutInt(semconv.UsageOutputTokens, 300)
			a.PutStr("gen_ai.output.messages", big)
		case "execute_tool":
			a.PutStr(semconv.ToolName, "fetch")
			a.PutStr(semconv.ToolCallResult, big)
		}
	}
	return artifact.Records(td)
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestFinalizedTracesLeaveNothing: a folder store that finalizes each
// trace as its root is written keeps nothing of it (Paths off): the live
// heap after 15,000 traces of 8 KiB each is the heap after 5,000, within
// 8 B a trace. (Options.TrackPaths keeps one path per artifact: that, and
// only that, grows.)
func TestFinalizedTracesLeaveNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 15,000 artifacts")
	}
	s := newStore(t, Options{Dir: t.TempDir(), Fsync: FsyncNever})
	big := strings.Repeat("x", 4<<10)
	next := 0
	run := func(to int) {
		for ; next < to; next++ {
			require.NoError(t, s.Write(bigTrace(next, big)))
		}
	}
	run(500)
	heaps := map[int]uint64{}
	for _, at := range []int{5_000, 15_000} {
		run(at)
		heaps[at] = liveHeap()
	}
	growth := int64(heaps[15_000]) - int64(heaps[5_000])
	t.Logf("live heap after 5,000 traces %d B, after 15,000 %d B: %+.1f B a trace; %d artifacts in memory, %d files open",
		heaps[5_000], heaps[15_000], float64(growth)/10_000, s.Active(), s.OpenFiles())
	assert.Less(t, growth, int64(8*10_000), "a finalized trace leaves nothing behind")
	assert.Zero(t, s.Active(), "every trace finalized at its root")
	assert.Zero(t, s.OpenFiles())
}
