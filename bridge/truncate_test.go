package bridge_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// TestProcessorTruncatesLargeValues: a tool span with a 20 MiB result,
// recorded through the SDK processor, is written to a line the default
// reader reads: the result cut short and marked with its original length,
// the trailer counting it, the call's estimate counting the whole result.
func TestProcessorTruncatesLargeValues(t *testing.T) {
	const size = 20 << 20
	dir := t.TempDir()
	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace), bridge.WithBlocking())
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
		AttributeValueLengthLimit: -1, AttributeCountLimit: 128, EventCountLimit: 128, LinkCountLimit: 128,
		AttributePerEventCountLimit: 128, AttributePerLinkCountLimit: 128,
	}))
	tr := tp.Tracer("agenttrace/bridge_test")
	ctx, agent := tr.Start(context.Background(), "invoke_agent planner")
	agent.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"))
	_, call := tr.Start(ctx, "execute_tool fetch")
	call.SetAttributes(
		attribute.String(semconv.OperationName, "execute_tool"),
		attribute.String(semconv.ToolName, "fetch"),
		attribute.String(semconv.ToolCallResult, strings.Repeat("r", size)),
	)
	call.End()
	agent.End()
	require.NoError(t, tp.Shutdown(context.Background()))

	paths := p.Artifacts()
	require.Len(t, paths, 1)
	f, err := os.Open(paths[0])
	require.NoError(t, err)
	defer f.Close()
	r := artifact.NewReader(f) // the default limit, which the writer shares
	var tools []artifact.Record
	records := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		records++
		if rec.Span.Name() == "execute_tool fetch" {
			tools = append(tools, *rec)
		}
	}
	require.Empty(t, r.Problems(), "every line is readable")
	assert.Equal(t, 2, records, "no span lost")
	require.Len(t, tools, 1)
	attrs := tools[0].Span.Attributes()
	marker, ok := attrs.Get(artifact.TruncatedPrefix + semconv.ToolCallResult)
	require.True(t, ok, "the cut value is marked")
	assert.Equal(t, int64(size), marker.Int())
	result, _ := attrs.Get(semconv.ToolCallResult)
	assert.True(t, strings.HasPrefix(strings.Repeat("r", size), result.Str()))
	assert.Less(t, len(result.Str()), artifact.DefaultMaxLineSize)

	sum := r.Summary()
	require.NotNil(t, sum)
	assert.Equal(t, int64(1), sum.Truncated)
	assert.Equal(t, int64(2), sum.Records)
	assert.Zero(t, sum.Dropped)

	var tally artifact.Tally
	tally.Add(&tools[0])
	assert.Equal(t, int64(size/4), tally.Spent(), "the call's estimate counts the whole result")
}
