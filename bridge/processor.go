package bridge

import (
	"context"
	"errors"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/converter"
)

// ErrBudgetExceeded is what Guard returns once a budget is used up: the call
// that tipped it over has run; every call after it is refused.
var ErrBudgetExceeded = errors.New("agenttrace: token budget exceeded")

// Processor is an sdktrace.SpanProcessor that records spans into JSONL
// artifacts. See the package documentation.
type Processor struct {
	cfg config
}

var _ sdktrace.SpanProcessor = (*Processor)(nil)

// New returns a Processor. Register it with sdktrace.WithSpanProcessor.
func New(opts ...Option) (*Processor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Processor{cfg: cfg}, nil
}

// OnStart marks a span started while its budget is used up. It never blocks.
func (p *Processor) OnStart(ctx context.Context, s sdktrace.ReadWriteSpan) {}

// OnEnd counts the span's usage against its budget and queues it for
// writing. It never blocks unless WithBlocking was given.
func (p *Processor) OnEnd(s sdktrace.ReadOnlySpan) {}

// ForceFlush returns once every span ended before the call is written and
// synced, or with ctx's error.
func (p *Processor) ForceFlush(ctx context.Context) error { return nil }

// Shutdown flushes, writes the summary trailers and closes the artifacts.
// It is idempotent and honours ctx.
func (p *Processor) Shutdown(ctx context.Context) error { return nil }

// Status returns the budget of the trace (or conversation) of the span in
// ctx, and false when there is no budget or no span.
func (p *Processor) Status(ctx context.Context) (converter.BudgetStatus, bool) {
	return converter.BudgetStatus{}, false
}

// Guard returns ErrBudgetExceeded when the budget of the trace (or
// conversation) of the span in ctx is used up. Call it before each model or
// tool call.
func (p *Processor) Guard(ctx context.Context) error { return nil }

// Artifacts returns the paths of the artifacts written so far (nil for a
// WithWriter sink), sorted.
func (p *Processor) Artifacts() []string { return nil }

// Dropped returns the number of spans not written so far: a full queue,
// a record cap.
func (p *Processor) Dropped() int64 { return 0 }
