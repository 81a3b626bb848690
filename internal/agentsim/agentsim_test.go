package agentsim

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// record runs the planner into a span recorder and checks that every span
// it started ended.
func record(t *testing.T, seed uint64, cfg Config) (Result, []sdktrace.ReadOnlySpan) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(append(TracerProviderOptions(seed), sdktrace.WithSpanProcessor(rec))...)
	res := Run(context.Background(), tp, cfg)
	require.NoError(t, tp.Shutdown(context.Background()))
	require.Len(t, rec.Ended(), len(rec.Started()), "every span started ends")
	return res, rec.Ended()
}

func attr(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// spent sums input + output tokens of the chat spans.
func spent(spans []sdktrace.ReadOnlySpan) (total, cacheRead int64) {
	for _, s := range spans {
		if attr(s, "gen_ai.operation.name").AsString() == "chat" {
			total += attr(s, "gen_ai.usage.input_tokens").AsInt64() + attr(s, "gen_ai.usage.output_tokens").AsInt64()
			cacheRead += attr(s, "gen_ai.usage.cache_read.input_tokens").AsInt64()
		}
	}
	return total, cacheRead
}

func TestRunShape(t *testing.T) {
	t.Parallel()
	guards := 0
	res, spans := record(t, 1, Config{Guard: func(context.Context) error { guards++; return nil }})
	require.NoError(t, res.Stopped)
	assert.Equal(t, res.ModelCalls+res.ToolCalls, guards, "a guard before every call")
	assert.Equal(t, 5, res.ModelCalls)
	assert.Equal(t, 4, res.ToolCalls)
	assert.Equal(t, 1, res.ToolErrors)
	assert.Equal(t, planAnswer, res.Answer)

	byName := map[string][]sdktrace.ReadOnlySpan{}
	var traceID trace.TraceID
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
		traceID = s.SpanContext().TraceID()
		assert.False(t, s.EndTime().Before(s.StartTime()), s.Name())
		assert.Equal(t, ServiceName, resourceService(s))
	}
	for _, s := range spans {
		assert.Equal(t, traceID, s.SpanContext().TraceID(), "one trace")
	}
	assert.Len(t, byName["chat gpt-4.1"], 3)
	assert.Len(t, byName["chat o4-mini"], 2)
	require.Len(t, byName["invoke_agent planner"], 1)
	require.Len(t, byName["invoke_agent hotel-scout"], 1)
	root, scout := byName["invoke_agent planner"][0], byName["invoke_agent hotel-scout"][0]
	assert.False(t, root.Parent().IsValid(), "the planner is the root")
	assert.Equal(t, TraceID(1), root.SpanContext().TraceID())
	hotels := byName["execute_tool find_hotels"][0]
	assert.Equal(t, hotels.SpanContext().SpanID(), scout.Parent().SpanID(), "hotel-scout runs inside find_hotels")

	flights := byName["execute_tool search_flights"][0]
	assert.Equal(t, codes.Error, flights.Status().Code)
	assert.Equal(t, "503", attr(flights, "error.type").AsString())

	total, cacheRead := spent(spans)
	assert.Positive(t, cacheRead)
	assert.Equal(t, total, attr(root, "gen_ai.usage.input_tokens").AsInt64()+attr(root, "gen_ai.usage.output_tokens").AsInt64(),
		"the root repeats the usage of every model call")
}

func resourceService(s sdktrace.ReadOnlySpan) string {
	v, _ := s.Resource().Set().Value("service.name")
	return v.AsString()
}

func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	_, a := record(t, 7, Config{})
	_, b := record(t, 7, Config{})
	_, c := record(t, 8, Config{})
	require.Len(t, b, len(a))
	for i := range a {
		assert.Equal(t, tracetest.SpanStubFromReadOnlySpan(a[i]), tracetest.SpanStubFromReadOnlySpan(b[i]))
	}
	assert.NotEqual(t, a[0].SpanContext().TraceID(), c[0].SpanContext().TraceID(), "the seed picks the ids")
}

// TestGuardStops: a refusal ends every open span with the error and stops
// the run before the refused call.
func TestGuardStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	for refuseAt := 1; refuseAt <= 9; refuseAt++ {
		calls := 0
		res, spans := record(t, 1, Config{Guard: func(ctx context.Context) error {
			require.True(t, trace.SpanContextFromContext(ctx).IsValid(), "the guard sees the current span")
			calls++
			if calls >= refuseAt {
				return stop
			}
			return nil
		}})
		require.ErrorIs(t, res.Stopped, stop, "refused at guard call %d", refuseAt)
		assert.Equal(t, refuseAt-1, res.ModelCalls+res.ToolCalls, "calls made before the refusal")
		assert.Empty(t, res.Answer)
		var root sdktrace.ReadOnlySpan
		byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
		for _, s := range spans {
			byID[s.SpanContext().SpanID()] = s
			if s.Name() == "invoke_agent planner" {
				root = s
			}
		}
		require.NotNil(t, root, "the root span ends")
		assert.Equal(t, codes.Error, root.Status().Code)
		assert.Equal(t, "_OTHER", attr(root, "error.type").AsString())
		// The spans open at the refusal are a chain from the root: a span
		// stopped has its parent stopped too.
		for _, s := range spans {
			if s.Status().Description == stop.Error() && s.Parent().IsValid() {
				assert.Equal(t, stop.Error(), byID[s.Parent().SpanID()].Status().Description,
					"refused at guard call %d: %s stopped, its parent not", refuseAt, s.Name())
			}
		}
	}
}
