package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
)

// provider returns a tracer provider with p, shut down when the test ends.
func provider(t *testing.T, p *bridge.Processor) trace.Tracer {
	t.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp.Tracer("agenttrace/bridge_test")
}

func newProcessor(t *testing.T, opts ...bridge.Option) *bridge.Processor {
	t.Helper()
	p, err := bridge.New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

// chat ends a chat span with usage under ctx.
func chat(ctx context.Context, tr trace.Tracer, in, out int64, extra ...attribute.KeyValue) {
	_, sp := tr.Start(ctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient))
	sp.SetAttributes(append([]attribute.KeyValue{
		attribute.String(semconv.OperationName, "chat"),
		attribute.String(semconv.ProviderName, "openai"),
		attribute.String(semconv.RequestModel, "gpt-4o"),
		attribute.Int64(semconv.UsageInputTokens, in),
		attribute.Int64(semconv.UsageOutputTokens, out),
	}, extra...)...)
	sp.End()
}

// tool ends a tool span under ctx, failing when errType is set.
func tool(ctx context.Context, tr trace.Tracer, name, args, result, errType string) {
	_, sp := tr.Start(ctx, "execute_tool "+name)
	sp.SetAttributes(
		attribute.String(semconv.OperationName, "execute_tool"),
		attribute.String(semconv.ToolName, name),
		attribute.String(semconv.ToolCallArguments, args),
		attribute.String(semconv.ToolCallResult, result),
	)
	if errType != "" {
		sp.SetAttributes(attribute.String(semconv.ErrorType, errType))
		sp.SetStatus(codes.Error, errType)
	}
	sp.End()
}

// readArtifact reads an artifact, failing the test on any problem.
func readArtifact(t *testing.T, data []byte) ([]artifact.Record, *artifact.Reader) {
	t.Helper()
	recs, r := readRecords(t, data)
	require.Empty(t, r.Problems())
	return recs, r
}

// readRecords reads an artifact, failing the test on an error; the lines
// it skipped are in the reader's Problems.
func readRecords(t *testing.T, data []byte) ([]artifact.Record, *artifact.Reader) {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(data))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		recs = append(recs, *rec)
	}
	return recs, r
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// syncBuffer is an io.Writer safe to read while the processor writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// gate is a writer that blocks every Write until opened: it holds the
// processor's writer goroutine still, so tests can fill its queue.
type gate struct {
	syncBuffer
	open    chan struct{}
	entered chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{open: make(chan struct{}), entered: make(chan struct{})} }

func (g *gate) Write(p []byte) (int, error) {
	g.once.Do(func() { close(g.entered) })
	<-g.open
	return g.syncBuffer.Write(p)
}

func (g *gate) release() {
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
