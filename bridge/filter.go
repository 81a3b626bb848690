package bridge

import (
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/semconv"
)

// GenAIOnly is a filter for WithFilter that keeps the spans agenttrace
// reads as tool calls, model calls or agents, and leaves out the rest of
// the trace (HTTP clients, databases, framework internals).
func GenAIOnly(s sdktrace.ReadOnlySpan) bool {
	return semconv.ReadKV(s.Name(), s.Attributes()).Kind != semconv.Span
}
