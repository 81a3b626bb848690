package e2eload

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Sender is the SDK's OTLP/gRPC exporter, remembering the spans of every
// batch the collector acknowledged, and of every batch the exporter gave
// up on (its retries ran out; the batch span processor then drops it):
// what a durability test holds the artifacts to.
type Sender struct {
	sdktrace.SpanExporter
	mu      sync.Mutex
	acked   map[string]string // span id -> trace id
	refused map[string]string // span id -> trace id
	n       atomic.Int64
	fails   atomic.Int64
}

// ExportSpans exports spans and remembers them as acknowledged or given up.
func (s *Sender) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := s.SpanExporter.ExportSpans(ctx, spans)
	into := s.acked
	if err != nil {
		into = s.refused
		s.fails.Add(1)
	}
	s.mu.Lock()
	for _, sp := range spans {
		into[sp.SpanContext().SpanID().String()] = sp.SpanContext().TraceID().String()
	}
	s.mu.Unlock()
	if err == nil {
		s.n.Add(int64(len(spans)))
	}
	return err
}

// Acked returns how many spans the collector has acknowledged so far,
// cheaply enough to poll.
func (s *Sender) Acked() int64 { return s.n.Load() }

// Fails returns how many exports failed after the SDK's retries.
func (s *Sender) Fails() int64 { return s.fails.Load() }

// AckedSpans returns a copy of the acknowledged spans, span id -> trace
// id.
func (s *Sender) AckedSpans() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.acked)
}

// RefusedSpans returns a copy of the spans the SDK gave up on, span id ->
// trace id: a trace with one of them may be partial.
func (s *Sender) RefusedSpans() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.refused)
}

// Options shape the load: agent runs, each an invoke_agent root over
// Calls chat calls.
type Options struct {
	// Service is the resource's service.name.
	Service string
	// Scope is the tracer's instrumentation scope name.
	Scope string
	// Agent is the gen_ai.agent.name of every run; the root span is
	// "invoke_agent <Agent>".
	Agent string
	// Calls is the number of chat calls per run; zero means 3.
	Calls int
	// InputTokens and OutputTokens are each chat call's usage; zero means
	// 100 and 20.
	InputTokens, OutputTokens int64
	// Rate is the spans a second over all workers, sent on a schedule so
	// that it holds whatever the collector's speed (a late run is sent at
	// once, not skipped); zero sends as fast as the collector takes them.
	Rate int
}

// workers is the number of goroutines sending runs.
const workers = 4

// Load is agent runs sent from four goroutines until Stop.
type Load struct {
	*Sender
	generated atomic.Int64
	stop      func()
}

// Start sends agent runs from four goroutines through the Go SDK (batch
// span processor, blocking; OTLP/gRPC with quick retries for two minutes)
// to addr until Stop.
func Start(t testing.TB, addr string, o Options) *Load {
	t.Helper()
	if o.Calls == 0 {
		o.Calls = 3
	}
	if o.InputTokens == 0 && o.OutputTokens == 0 {
		o.InputTokens, o.OutputTokens = 100, 20
	}
	ctx := context.Background()
	inner, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(addr), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 2 * time.Minute,
		}))
	require.NoError(t, err)
	l := &Load{Sender: &Sender{SpanExporter: inner, acked: map[string]string{}, refused: map[string]string{}}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", o.Service))),
		sdktrace.WithBatcher(l.Sender, sdktrace.WithBlocking(), sdktrace.WithMaxExportBatchSize(256), sdktrace.WithBatchTimeout(10*time.Millisecond)))
	tr := tp.Tracer(o.Scope)
	spansPerRun := o.Calls + 1
	var every time.Duration
	if o.Rate > 0 {
		every = time.Duration(workers * spansPerRun * int(time.Second) / o.Rate)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			next := time.Now()
			for {
				if every > 0 {
					select {
					case <-done:
						return
					case <-time.After(time.Until(next)):
					}
					next = next.Add(every)
				} else {
					select {
					case <-done:
						return
					default:
					}
				}
				rctx, root := tr.Start(ctx, "invoke_agent "+o.Agent, trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", o.Agent)))
				for range o.Calls {
					_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
						attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
						attribute.Int64("gen_ai.usage.input_tokens", o.InputTokens),
						attribute.Int64("gen_ai.usage.output_tokens", o.OutputTokens)))
					chat.End()
				}
				root.End()
				l.generated.Add(int64(spansPerRun))
			}
		})
	}
	l.stop = func() {
		close(done)
		wg.Wait()
		require.NoError(t, tp.Shutdown(ctx), "every span exported")
	}
	return l
}

// Generated returns how many spans the runs have ended so far.
func (l *Load) Generated() int64 { return l.generated.Load() }

// Stop ends the runs, flushes and shuts the provider down, failing the
// test if the flush fails.
func (l *Load) Stop() { l.stop() }
