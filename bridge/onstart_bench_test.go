package bridge_test

import (
	"context"
	"io"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
)

// startCatcher keeps the spans a provider starts, live, to feed OnStart.
type startCatcher struct {
	sdktrace.SpanProcessor
	spans []sdktrace.ReadWriteSpan
}

func (c *startCatcher) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	c.spans = append(c.spans, s)
}

// startedSpans returns started, not ended, GenAI spans (chats and tools
// under a root) with the attributes instrumentations set at the start.
func startedSpans(tb testing.TB) []sdktrace.ReadWriteSpan {
	c := &startCatcher{SpanProcessor: sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(c))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tr := tp.Tracer("bench")
	ctx, _ := tr.Start(context.Background(), "invoke_agent planner", trace.WithAttributes(
		attribute.String(semconv.OperationName, "invoke_agent"), attribute.String(semconv.AgentName, "planner")))
	for i := range 6 {
		if i%3 == 2 {
			tr.Start(ctx, "execute_tool search", trace.WithAttributes(attribute.String(semconv.OperationName, "execute_tool"),
				attribute.String(semconv.ToolName, "search"), attribute.String(semconv.ToolCallArguments, `{"q":"lisbon"}`)))
			continue
		}
		tr.Start(ctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String(semconv.OperationName, "chat"), attribute.String(semconv.ProviderName, "openai"),
			attribute.String(semconv.RequestModel, "gpt-4o"), attribute.String("server.address", "api.openai.com")))
	}
	return c.spans[1:] // not the root: it starts once per trace
}

// BenchmarkOnStart is what an agent pays per span on its own goroutine
// when the span starts: the SDK's BatchSpanProcessor (which does nothing
// then) beside this processor, with and without a budget. This processor
// hands the span to its writer, which writes its start record (in flight)
// unless it has ended by then.
func BenchmarkOnStart(b *testing.B) {
	spans := startedSpans(b)
	ctx := context.Background()
	run := func(b *testing.B, p sdktrace.SpanProcessor) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p.OnStart(ctx, spans[i%len(spans)])
			i++
		}
		b.StopTimer()
		_ = p.Shutdown(context.Background())
	}
	b.Run("impl=sdk-batch", func(b *testing.B) {
		run(b, sdktrace.NewBatchSpanProcessor(tracetest.NewNoopExporter()))
	})
	b.Run("impl=agenttrace", func(b *testing.B) {
		p, err := bridge.New(bridge.WithWriter(io.Discard), bridge.WithStartRecords(true))
		if err != nil {
			b.Fatal(err)
		}
		run(b, p)
	})
	b.Run("impl=agenttrace-budget", func(b *testing.B) {
		p, err := bridge.New(bridge.WithWriter(io.Discard), bridge.WithBudget(1<<60), bridge.WithStartRecords(true))
		if err != nil {
			b.Fatal(err)
		}
		run(b, p)
	})
}
