package bridge_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// endedSpans returns ended GenAI spans (a root, chats, tools) to feed
// OnEnd in a loop.
func endedSpans(_ testing.TB, msgBytes int) []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := tp.Tracer("bench")
	msg := `[{"role":"user","parts":[{"type":"text","content":"` + strings.Repeat("plan a trip to Lisbon. ", msgBytes/23) + `"}]}]`
	ctx, root := tr.Start(context.Background(), "invoke_agent planner", trace.WithAttributes(
		attribute.String(semconv.OperationName, "invoke_agent"), attribute.String(semconv.AgentName, "planner")))
	for i := range 6 {
		if i%3 == 2 {
			_, sp := tr.Start(ctx, "execute_tool search")
			sp.SetAttributes(attribute.String(semconv.OperationName, "execute_tool"), attribute.String(semconv.ToolName, "search"),
				attribute.String(semconv.ToolCallArguments, `{"q":"lisbon"}`), attribute.String(semconv.ToolCallResult, msg))
			sp.End()
			continue
		}
		_, sp := tr.Start(ctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient))
		sp.SetAttributes(
			attribute.String(semconv.OperationName, "chat"), attribute.String(semconv.ProviderName, "openai"),
			attribute.String(semconv.RequestModel, "gpt-4o"), attribute.String(semconv.ResponseModel, "gpt-4o-2024-08-06"),
			attribute.String(semconv.ResponseID, "chatcmpl-1"), attribute.Int64(semconv.UsageInputTokens, 1400),
			attribute.Int64(semconv.UsageOutputTokens, 200), attribute.Int64(semconv.UsageCacheReadInput, 512),
			attribute.String(semconv.InputMessages, msg), attribute.String(semconv.OutputMessages, msg),
			attribute.String("server.address", "api.openai.com"), attribute.Int("server.port", 443))
		sp.End()
	}
	root.End()
	_ = tp.Shutdown(context.Background())
	return rec.Ended()
}

// BenchmarkOnEnd is what an agent pays per span on its own goroutine: the
// SDK's BatchSpanProcessor with a no-op exporter, this processor, and this
// processor keeping a live budget. The spans are the chats and tools of one
// long trace (a trace's first span also makes its budget entry, once).
// Compare with benchstat -col /impl.
func BenchmarkOnEnd(b *testing.B) {
	spans := endedSpans(b, 2048)
	spans = spans[:len(spans)-1] // not the root: it ends once per trace
	run := func(b *testing.B, p sdktrace.SpanProcessor) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p.OnEnd(spans[i%len(spans)])
			i++
		}
		b.StopTimer()
		_ = p.Shutdown(context.Background())
	}
	b.Run("impl=sdk-batch", func(b *testing.B) {
		run(b, sdktrace.NewBatchSpanProcessor(tracetest.NewNoopExporter()))
	})
	b.Run("impl=agenttrace", func(b *testing.B) {
		p, err := bridge.New(bridge.WithWriter(io.Discard))
		if err != nil {
			b.Fatal(err)
		}
		run(b, p)
	})
	b.Run("impl=agenttrace-budget", func(b *testing.B) {
		p, err := bridge.New(bridge.WithWriter(io.Discard), bridge.WithBudget(1<<60))
		if err != nil {
			b.Fatal(err)
		}
		run(b, p)
	})
}

// BenchmarkThroughput is the sustained rate spans with ~2 KB messages
// reach disk: blocking mode (nothing dropped), one artifact per trace,
// flushed before the clock stops.
func BenchmarkThroughput(b *testing.B) {
	spans := endedSpans(b, 2048)
	p, err := bridge.New(bridge.WithDirectory(b.TempDir(), store.ByTrace), bridge.WithBlocking(), bridge.WithFsync(bridge.FsyncNever))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	i := 0
	for b.Loop() {
		p.OnEnd(spans[i%len(spans)])
		i++
	}
	if err := p.ForceFlush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(i)/time.Since(start).Seconds(), "spans/s")
	b.StopTimer()
	_ = p.Shutdown(context.Background())
}

// TestOnEndDoesNotAllocate: on the agent's goroutine, OnEnd allocates
// nothing, budget or not, queued or dropped. The writer is held still so
// that only OnEnd's allocations are counted.
func TestOnEndDoesNotAllocate(t *testing.T) {
	spans := endedSpans(nil, 512)
	spans = spans[:len(spans)-1]
	for _, opts := range [][]bridge.Option{nil, {bridge.WithBudget(1 << 60)}} {
		g := newGate()
		p, err := bridge.New(append(opts, bridge.WithWriter(g), bridge.WithQueueSize(64), bridge.WithBatchSize(1))...)
		if err != nil {
			t.Fatal(err)
		}
		p.OnEnd(spans[0])
		<-g.entered
		i := 0
		if n := testing.AllocsPerRun(1000, func() {
			p.OnEnd(spans[i%len(spans)])
			i++
		}); n != 0 {
			t.Errorf("OnEnd with %d options: %v allocations per call", len(opts), n)
		}
		g.release()
		if err := p.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
