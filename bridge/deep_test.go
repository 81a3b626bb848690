package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/converter"
)

// deepMap is a map attribute value nested n levels: {"k":{"k":...}}.
func deepMap(n int) attribute.Value {
	v := attribute.StringValue("bottom")
	for range n {
		v = attribute.MapValue(attribute.KeyValue{Key: "k", Value: v})
	}
	return v
}

// TestTooDeepDropped: the SDK takes map attributes nested without limit
// when the application lifts its depth limit (64 by default, which stays
// within an artifact line), and log bodies nested without limit, deeper
// than an artifact line holds (its reader refuses
// such a line, and the artifact would fail validate for good). Such a span
// or log record is dropped, counted in the trailer and reported through
// otel.Handle; the rest of the run is written and reads back whole.
func TestTooDeepDropped(t *testing.T) {
	var (
		mu      sync.Mutex
		tooDeep int
	)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if errors.Is(err, converter.ErrTooDeep) {
			mu.Lock()
			tooDeep++
			mu.Unlock()
		}
	}))
	defer otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))

	path := filepath.Join(t.TempDir(), "run.jsonl")
	p, err := bridge.New(bridge.WithFile(path))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), sdktrace.WithAttributeValueDepthLimit(-1))
	logs := p.LogProcessor()
	lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(logs))
	logger := lp.Logger("github.com/example/genai")

	ctx, root := tp.Tracer("t").Start(context.Background(), "invoke_agent planner")
	_, deep := tp.Tracer("t").Start(ctx, "execute_tool nest")
	deep.SetAttributes(attribute.KeyValue{Key: "tool.result", Value: deepMap(200)})
	deep.End()
	_, fine := tp.Tracer("t").Start(ctx, "execute_tool flat")
	fine.SetAttributes(attribute.KeyValue{Key: "tool.result", Value: deepMap(3)})
	fine.End()
	emit(ctx, logger, "gen_ai.user.message", deepMap(200))
	emit(ctx, logger, "gen_ai.choice", deepMap(3))
	root.End()
	require.NoError(t, lp.Shutdown(ctx))
	require.NoError(t, tp.Shutdown(ctx))

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"span execute_tool flat", "log gen_ai.choice", "span invoke_agent planner"}, lines(t, raw))
	assert.Equal(t, int64(1), logs.Dropped())
	r := artifact.NewReader(bytes.NewReader(raw))
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	require.NotNil(t, r.Summary())
	assert.Equal(t, int64(1), r.Summary().Dropped, "the dropped span is counted in the trailer")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, tooDeep, "one span and one log record reported")
}
