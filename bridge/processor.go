package bridge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter/sdkspan"
	"github.com/agenttrace/agenttrace/semconv"
)

// ErrBudgetExceeded is what Guard returns once a budget is used up: the call
// that tipped it over has run; every call after it is refused.
var ErrBudgetExceeded = errors.New("agenttrace: token budget exceeded")

// Processor is an sdktrace.SpanProcessor that records spans into JSONL
// artifacts. See the package documentation.
//
// Its own queue stands where the SDK's BatchSpanProcessor would: that one
// drops spans from a full queue without telling anyone
// (opentelemetry-go#3264), and an artifact must say what it is missing.
type Processor struct {
	cfg     config
	budgets *budgets
	dropped atomic.Int64
	// dropUsage sums the usage and cost of dropped spans for a single
	// artifact; a folder of artifacts keeps them by trace, in the store.
	dropUsage usageCounter
	sink      *sink

	queue chan sdktrace.ReadOnlySpan
	// starts are spans just started, for their in-flight records
	// (inflight.go); a full channel skips one, counted in startsSkipped.
	starts        chan sdktrace.ReadOnlySpan
	startsSkipped atomic.Int64
	flushes       chan chan struct{}
	stop          chan struct{}
	done          chan struct{}
	closing       atomic.Bool

	shutdownOnce sync.Once
	shutdownErr  error
}

var _ sdktrace.SpanProcessor = (*Processor)(nil)

// New returns a Processor and starts its writer goroutine. Register it with
// sdktrace.WithSpanProcessor, and Shutdown the tracer provider (or the
// Processor) when the agent is done, so the trailers are written.
func New(opts ...Option) (*Processor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	p := &Processor{
		cfg:     cfg,
		queue:   make(chan sdktrace.ReadOnlySpan, cfg.queueSize),
		starts:  make(chan sdktrace.ReadOnlySpan, cfg.queueSize),
		flushes: make(chan chan struct{}),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	p.budgets = newBudgets(&p.cfg)
	if p.sink, err = newSink(&p.cfg, &p.dropped, &p.dropUsage); err != nil {
		return nil, err
	}
	go p.run()
	return p, nil
}

// OnStart marks a span started while its budget is used up, so trace
// viewers show what the agent did past it, and hands it to the writer,
// which writes its start record (in flight) unless it ended meanwhile
// (inflight.go). It never blocks.
func (p *Processor) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	if p.budgets != nil && p.budgets.over(s.SpanContext().TraceID()) {
		s.SetAttributes(attribute.Bool(semconv.BudgetExceeded, true))
	}
	p.tellRootBudget(s)
	p.started(s)
}

// tellRootBudget tells the store the budget a local root names as it
// starts: FsyncTurn writes a trace's first turn before its root ends, and
// the header must still say the root's budget, as the collector exporter's
// and convert's do when they see the root with the trace's first records.
func (p *Processor) tellRootBudget(s sdktrace.ReadWriteSpan) {
	if p.sink == nil || p.sink.st == nil {
		return
	}
	if parent := s.Parent(); parent.IsValid() && !parent.IsRemote() {
		return
	}
	var tokens int64
	var usd float64
	for _, kv := range s.Attributes() {
		switch {
		case kv.Key == semconv.BudgetTokens && kv.Value.Type() == attribute.INT64:
			tokens = kv.Value.AsInt64()
		case kv.Key == semconv.BudgetUSD && kv.Value.Type() == attribute.FLOAT64:
			usd = kv.Value.AsFloat64()
		case kv.Key == semconv.BudgetUSD && kv.Value.Type() == attribute.INT64:
			usd = float64(kv.Value.AsInt64())
		}
	}
	if !artifact.ValidUSD(usd) {
		usd = 0 // as artifact.BudgetAttrs reads the written span
	}
	p.sink.st.RootBudget(pcommon.TraceID(s.SpanContext().TraceID()), tokens, usd)
}

// OnEnd counts the span's usage against its budget and queues it for
// writing. It never blocks unless WithBlocking was given: a span that finds
// the queue full is dropped and counted, and its artifact's trailer says so.
func (p *Processor) OnEnd(s sdktrace.ReadOnlySpan) {
	if p.closing.Load() {
		return
	}
	if p.cfg.filter != nil && !p.cfg.filter(s) {
		p.forgetRootBudget(s)
		return
	}
	var u spent // a model call's usage and cost, when a budget read them
	if p.budgets != nil {
		u = p.budgets.spend(s)
	}
	if !p.enqueue(s) {
		p.drop(s, u)
	}
}

// enqueue hands s to the writer, and reports false when the queue is full
// (or, with WithBlocking, when the processor is stopping).
func (p *Processor) enqueue(s sdktrace.ReadOnlySpan) bool {
	if p.cfg.blocking {
		select {
		case p.queue <- s:
			return true
		case <-p.stop:
			return false
		}
	}
	select {
	case p.queue <- s:
		return true
	default:
		return false
	}
}

// drop counts a span that will not be written, with u, its model usage
// (and, with a cost budget, its cost) when a budget read it, so the
// trailer's totals keep it: spent_usd counts a dropped model call as if
// it had been written. Without a budget the usage is not read here: this
// is the overloaded path, and reading would make it several times slower
// than the SDK's own drop; the trailer's "dropped" then says its totals
// are short.
func (p *Processor) drop(s sdktrace.ReadOnlySpan, u spent) {
	p.dropped.Add(1)
	p.forgetRootBudget(s)
	if p.cfg.sink == sinkDir {
		p.sink.drop(pcommon.TraceID(s.SpanContext().TraceID()), u)
	} else {
		p.dropUsage.add(u)
	}
}

// run is the writer goroutine: it batches spans, converts and writes them.
func (p *Processor) run() {
	defer close(p.done)
	batch := make([]sdktrace.ReadOnlySpan, 0, p.cfg.batchSize)
	timer := time.NewTimer(p.cfg.batchTimeout)
	defer timer.Stop()
	write := func() {
		if len(batch) > 0 {
			p.write(batch)
			clear(batch)
			batch = batch[:0]
		}
	}
	add := func(s sdktrace.ReadOnlySpan) {
		batch = append(batch, s)
		if len(batch) >= p.cfg.batchSize || p.cfg.fsync == FsyncTurn && endsTurn(s) {
			write() // a turn ended: written and synced now (FsyncTurn)
		}
	}
	drain := func() {
		for {
			select {
			case s := <-p.queue:
				add(s)
			default:
				return
			}
		}
	}
	var starts []sdktrace.ReadOnlySpan
	for {
		select {
		case s := <-p.queue:
			add(s)
		case s := <-p.starts:
			// Written at once, before the ended spans batched so far:
			// a start record always comes before its span's end.
			starts = p.writeStarts(append(starts[:0], s))
		case ack := <-p.flushes:
			drain()
			write()
			p.sink.flush()
			close(ack)
		case <-timer.C:
			write()
			timer.Reset(p.cfg.batchTimeout)
		case <-p.stop:
			drain()
			write()
			p.shutdownErr = p.sink.close() // read by Shutdown once done is closed
			return
		}
	}
}

func (p *Processor) write(batch []sdktrace.ReadOnlySpan) {
	p.sink.write(sdkspan.ToTraces(batch))
	for _, s := range batch {
		p.forgetRootBudget(s) // its header is made: the store needs it no more
	}
}

// forgetRootBudget drops what tellRootBudget told the store of s's trace
// once s, a local root, is written, dropped or filtered out, so the store
// keeps nothing for ended traces.
func (p *Processor) forgetRootBudget(s sdktrace.ReadOnlySpan) {
	if p.sink == nil || p.sink.st == nil {
		return
	}
	if parent := s.Parent(); !parent.IsValid() || parent.IsRemote() {
		p.sink.st.RootBudget(pcommon.TraceID(s.SpanContext().TraceID()), 0, 0)
	}
}

// ForceFlush returns once every span ended before the call is written and
// synced, or with ctx's error.
func (p *Processor) ForceFlush(ctx context.Context) error {
	if p.closing.Load() {
		return nil
	}
	ack := make(chan struct{})
	select {
	case p.flushes <- ack:
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown writes what is queued and the summary trailers, closes the
// artifacts, and returns the errors of writing the trailers and closing
// the files. Spans that end after it are ignored. It is idempotent; when
// ctx ends first it returns ctx's error and the writing finishes in the
// background (a later call returns its errors).
func (p *Processor) Shutdown(ctx context.Context) error {
	p.shutdownOnce.Do(func() {
		p.closing.Store(true)
		close(p.stop)
	})
	select {
	case <-p.done:
		return p.shutdownErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Status returns the budget of the trace (or conversation) of the span in
// ctx, and false when there is no budget or no span in ctx.
func (p *Processor) Status(ctx context.Context) (artifact.BudgetStatus, bool) {
	if p.budgets == nil {
		return artifact.BudgetStatus{}, false
	}
	return p.budgets.status(ctx)
}

// Guard returns ErrBudgetExceeded when the budget of the trace (or
// conversation) of the span in ctx is used up. Call it before each model or
// tool call: the call that used the budget up has already run, and Guard
// refuses every one after it.
func (p *Processor) Guard(ctx context.Context) error {
	if st, ok := p.Status(ctx); ok && st.OverBudget {
		return ErrBudgetExceeded
	}
	return nil
}

// Artifacts returns the paths of the artifacts written so far (none for a
// WithWriter sink), sorted: the most recent store.MaxTrackedPaths of
// them, so a long-running agent does not keep a path per trace forever.
func (p *Processor) Artifacts() []string { return p.sink.Paths() }

// Dropped returns the number of spans dropped from a full queue so far.
// Spans past a record cap are counted in their artifact's trailer.
func (p *Processor) Dropped() int64 { return p.dropped.Load() }
