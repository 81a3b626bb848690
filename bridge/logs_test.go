package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/store"
)

// emit logs one event of the span in ctx, as the official GenAI
// instrumentations do.
func emit(ctx context.Context, l log.Logger, event string, body attribute.Value) {
	var r log.Record
	r.SetEventName(event)
	r.SetTimestamp(time.Now())
	r.SetSeverity(log.SeverityInfo)
	r.SetBody(body)
	r.AddAttributes(attribute.String("gen_ai.provider.name", "openai"))
	l.Emit(ctx, r)
}

// lines reads an artifact: "span <name>" and "log <event>" in file order.
func lines(t testing.TB, raw []byte) []string {
	var out []string
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithLogs(func(l *artifact.LogRecord) {
		out = append(out, "log "+l.Log.EventName())
	}))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		out = append(out, "span "+rec.Span.Name())
	}
	return out
}

// TestLogProcessor: GenAI events emitted during a model call land in its
// trace's artifact after the call's span, once; other log records and
// records after Shutdown are not written; the secret scan covers bodies.
func TestLogProcessor(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(dir string) []bridge.Option
		file func(p *bridge.Processor, dir string) string
	}{
		{
			name: "directory",
			opts: func(dir string) []bridge.Option {
				return []bridge.Option{bridge.WithDirectory(dir, store.ByTrace)}
			},
			file: func(p *bridge.Processor, _ string) string {
				require.Len(t, p.Artifacts(), 1)
				return p.Artifacts()[0]
			},
		},
		{
			name: "one file",
			opts: func(dir string) []bridge.Option {
				return []bridge.Option{bridge.WithFile(filepath.Join(dir, "run.jsonl"))}
			},
			file: func(_ *bridge.Processor, dir string) string { return filepath.Join(dir, "run.jsonl") },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := bridge.New(tc.opts(dir)...)
			require.NoError(t, err)
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
			lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(p.LogProcessor()))
			logger := lp.Logger("github.com/example/genai")
			ctx := context.Background()

			ctx, chat := tp.Tracer("t").Start(ctx, "chat gpt-4o")
			emit(ctx, logger, "gen_ai.user.message", attribute.MapValue(attribute.String("content", "hi, my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD")))
			emit(ctx, logger, "app.debug", attribute.StringValue("not GenAI"))
			emit(ctx, logger, "gen_ai.choice", attribute.MapValue(attribute.Int("index", 0),
				attribute.Map("message", attribute.String("content", "hello"))))
			chat.End()
			require.NoError(t, lp.Shutdown(ctx))
			require.NoError(t, tp.Shutdown(ctx))
			emit(ctx, logger, "gen_ai.choice", attribute.StringValue("after shutdown"))

			raw, err := os.ReadFile(tc.file(p, dir))
			require.NoError(t, err)
			assert.ElementsMatch(t, []string{"span chat gpt-4o", "log gen_ai.user.message", "log gen_ai.choice"}, lines(t, raw))
			assert.NotContains(t, string(raw), "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "the secret scan reaches log bodies")
			assert.NotContains(t, string(raw), "not GenAI")
		})
	}
}

// TestLogProcessorFlushHonoursContext: ForceFlush and Shutdown return a
// done context's error rather than wait.
func TestLogProcessorFlushHonoursContext(t *testing.T) {
	p, err := bridge.New(bridge.WithDirectory(t.TempDir(), store.ByTrace))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Shutdown(context.Background())) })
	lp := p.LogProcessor()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = lp.ForceFlush(ctx)
	if err != nil {
		assert.ErrorIs(t, err, context.Canceled)
	}
	require.NoError(t, lp.ForceFlush(context.Background()))
	assert.True(t, lp.Enabled(context.Background(), sdklog.EnabledParameters{EventName: "gen_ai.choice"}))
	assert.False(t, lp.Enabled(context.Background(), sdklog.EnabledParameters{EventName: "http.request"}))
	require.NoError(t, lp.Shutdown(context.Background()))
	assert.False(t, lp.Enabled(context.Background(), sdklog.EnabledParameters{EventName: "gen_ai.choice"}), "shut down")
}

// The GenAI instrumentations put the prompt and the answer in log
// records: one more processor, on the LoggerProvider, writes them into the
// artifacts of the span processor, after the span of their model call.
func ExampleProcessor_LogProcessor() {
	dir, _ := os.MkdirTemp("", "agenttrace-example")
	defer os.RemoveAll(dir)

	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace))
	if err != nil {
		panic(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(p.LogProcessor()))
	logger := lp.Logger("example.com/genai-instrumentation")

	ctx, chat := tp.Tracer("example.com/agent").Start(context.Background(), "chat gpt-4o")
	emit(ctx, logger, "gen_ai.user.message", attribute.MapValue(attribute.String("content", "What is 2+2?")))
	emit(ctx, logger, "gen_ai.choice", attribute.MapValue(attribute.Int("index", 0),
		attribute.Map("message", attribute.String("content", "4"))))
	chat.End()
	_ = lp.Shutdown(context.Background()) // the logger provider first
	_ = tp.Shutdown(context.Background()) // writes the artifact's trailer

	raw, _ := os.ReadFile(p.Artifacts()[0])
	for _, l := range lines(nil, raw) {
		fmt.Println(l)
	}
	// Output:
	// span chat gpt-4o
	// log gen_ai.user.message
	// log gen_ai.choice
}
