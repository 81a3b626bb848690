package bridge_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // the first may leave finalizers' objects for the next
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHeapBoundedOver15000Traces: 15,000 agent runs, each with 8 KiB of
// attributes, through the SDK processor into a folder of one artifact per
// trace. Before the store freed a finalized trace's state this held
// +2.1 KB per trace (156 MB after 15,000, issue 13). Now the heap after
// 15,000 runs is under a fixed bound, and what it grew by from 5,000 to
// 15,000 is no more than the one thing the processor keeps per artifact
// by contract: its path, for Artifacts (the path string and its entry in
// the store's path set; store's TestFinalizedTracesLeaveNothing shows the
// store keeps nothing else), and that only for the store.MaxTrackedPaths
// most recent. AGENTTRACE_LONG=1 runs 45,000.
func TestHeapBoundedOver15000Traces(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 15,000 artifacts")
	}
	const (
		// entry is what a path costs beyond its bytes: the string's
		// rounding up to a size class and its entry in the path set
		// (hashicorp's LRU: a list element and a map slot, whose table
		// doubles twice between 5,000 and 15,000; measured: 241 B a
		// trace with 88 B paths). Past store.MaxTrackedPaths it costs
		// nothing more.
		entry = 200
		// bound is the most live heap after 15,000 (the test binary's
		// own, the SDK's and the processor's buffers included).
		bound = 24 << 20
	)
	total := 15_000
	if os.Getenv("AGENTTRACE_LONG") == "1" {
		total = 45_000
	}
	p := newProcessor(t, bridge.WithDirectory(t.TempDir(), store.ByTrace), bridge.WithBlocking(), bridge.WithFsync(bridge.FsyncNever))
	tr := provider(t, p)
	big := strings.Repeat("x", 4<<10)
	run := func(n int) {
		for range n {
			ctx, root := tr.Start(context.Background(), "invoke_agent researcher", trace.WithAttributes(
				attribute.String(semconv.OperationName, "invoke_agent"), attribute.String(semconv.AgentName, "researcher")))
			chat(ctx, tr, 1200, 300, attribute.String("gen_ai.output.messages", big))
			tool(ctx, tr, "fetch", `{"url":"https://example.com"}`, big, "")
			root.End()
		}
		require.NoError(t, p.ForceFlush(context.Background()))
	}

	run(500) // warm up: pools, buffers, the SDK's id generator
	heaps := map[int]uint64{0: liveHeap()}
	done := 0
	for _, at := range []int{5_000, total} {
		run(at - done)
		done = at
		heaps[at] = liveHeap()
	}
	growth := int64(heaps[total]) - int64(heaps[5_000])
	paths := p.Artifacts()
	pathLen := len(paths[len(paths)-1])
	allowed := int64(pathLen+entry) * int64(total-5_000)
	t.Logf("live heap after warm-up %.1f MB, after 5,000 traces %.1f MB, after %d %.1f MB: %+d B over the last %d traces (%+.1f B a trace, paths of %d B kept for Artifacts); %d artifacts",
		mb(heaps[0]), mb(heaps[5_000]), total, mb(heaps[total]), growth, total-5_000, float64(growth)/float64(total-5_000), pathLen, len(paths))
	assert.Less(t, growth, allowed, "a finished trace leaves only its path behind")
	assert.Less(t, heaps[total], uint64(bound), "the heap stays under its bound")
	assert.Len(t, paths, min(total+500, store.MaxTrackedPaths), "Artifacts keeps the most recent paths")
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
