package agenttraceexporter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
)

// errShutdown is returned for batches that arrive after Shutdown.
var errShutdown = errors.New("agenttrace exporter: shut down")

// orphanFactor: an artifact whose root span never arrived is finalized
// after this many finalize_after of idleness, so state for traces that
// lost their root stays bounded.
const orphanFactor = 10

// agenttraceExporter routes spans to artifacts.
//
// pushTraces is safe for the sending queue's concurrent consumers: the
// per-batch work that needs no shared state (redaction, reading the spans
// into records, grouping them) runs unlocked; routing and writing run under
// one mutex, so an artifact's lines never interleave, its header is written
// once and its span-id set is exact.
type agenttraceExporter struct {
	cfg    *Config
	logger *zap.Logger
	tel    *telemetry
	red    *redact.Redactor
	attr   string // resource attribute of group_by resource:<attr>

	mu     sync.Mutex
	arts   map[string]*artifact // by file name
	lru    lru                  // artifacts whose file is open
	convOf map[pcommon.TraceID]string
	rd     semconv.Reading // scratch, under mu
	closed bool

	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
}

func newExporter(c *Config, logger *zap.Logger, tel *telemetry) *agenttraceExporter {
	if tel == nil {
		tel, _ = newTelemetry(nil)
	}
	e := &agenttraceExporter{
		cfg:    c,
		logger: logger,
		tel:    tel,
		arts:   make(map[string]*artifact),
		convOf: make(map[pcommon.TraceID]string),
		stop:   make(chan struct{}),
	}
	if strings.HasPrefix(c.GroupBy, GroupByResourcePrefix) {
		e.attr = c.groupAttr()
	}
	if r := redact.New(c.Redact.Keys, c.Redact.Secrets); r.Enabled() {
		e.red = r
	}
	return e
}

func (e *agenttraceExporter) start(_ context.Context, _ component.Host) error {
	if err := os.MkdirAll(e.cfg.Directory, 0o755); err != nil {
		return fmt.Errorf("directory: %w", err)
	}
	e.stopped.Add(1)
	go e.finalizeLoop()
	return nil
}

// shutdown stops the finalizer, writes every open artifact's trailer and
// closes every file. It is safe without start and called once by the
// helper; later batches are refused.
func (e *agenttraceExporter) shutdown(context.Context) error {
	e.once.Do(func() { close(e.stop) })
	e.stopped.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	var errs []error
	for _, a := range e.arts {
		if err := e.finalize(a); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// finalizeLoop finalizes idle artifacts until shutdown.
func (e *agenttraceExporter) finalizeLoop() {
	defer e.stopped.Done()
	every := min(max(e.cfg.FinalizeAfter/4, 5*time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case now := <-t.C:
			e.finalizeIdle(now)
		}
	}
}

func (e *agenttraceExporter) finalizeIdle(now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, a := range e.arts {
		idle := now.Sub(a.lastWrite)
		if (a.rootEnded && idle >= e.cfg.FinalizeAfter) || idle >= orphanFactor*e.cfg.FinalizeAfter {
			if err := e.finalize(a); err != nil {
				e.logger.Error("finalizing artifact", zap.String("path", a.path), zap.Error(err))
			}
		}
	}
}

// pushTraces writes a batch. A batch that fails part-way may be retried
// whole: spans already written are recognized by their ids and skipped.
func (e *agenttraceExporter) pushTraces(_ context.Context, td ptrace.Traces) error {
	if e.red != nil {
		e.red.Traces(td)
	}
	recs := converter.Records(td)
	var groups []converter.Group
	if e.cfg.GroupBy == GroupByConversation {
		groups = converter.Split(recs, converter.ByConversation)
	} else {
		groups = []converter.Group{{Records: recs}}
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return consumererror.NewPermanent(errShutdown)
	}
	byName, order := e.route(groups)
	var errs []error
	touched := make([]*artifact, 0, len(order))
	for _, name := range order {
		a, err := e.artifactFor(name, byName[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		touched = append(touched, a)
		if err := e.write(a, byName[name]); err != nil {
			errs = append(errs, err)
		}
	}
	if e.cfg.Fsync == FsyncAlways {
		for _, a := range touched {
			if err := a.sync(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// route gives each record its artifact's file name; it returns the records
// by name and the names in order of first appearance. Called under mu.
func (e *agenttraceExporter) route(groups []converter.Group) (map[string][]converter.Record, []string) {
	byName := make(map[string][]converter.Record)
	var order []string
	for _, g := range groups {
		for i := range g.Records {
			rec := g.Records[i]
			name := e.nameFor(&rec, g)
			if _, ok := byName[name]; !ok {
				order = append(order, name)
			}
			byName[name] = append(byName[name], rec)
		}
	}
	return byName, order
}

// nameFor returns the file name of rec's artifact. Called under mu.
func (e *agenttraceExporter) nameFor(rec *converter.Record, g converter.Group) string {
	tid := rec.Span.TraceID()
	switch {
	case e.cfg.GroupBy == GroupByConversation:
		// A trace stays with the conversation it first named, across
		// batches; one that never names one is its own artifact.
		conv, known := e.convOf[tid]
		if !known && g.Conversation {
			conv, known = g.Key, true
			e.convOf[tid] = conv
		}
		if known {
			return conversationName(conv)
		}
	case e.attr != "":
		if v, ok := rec.Resource.Attributes().Get(e.attr); ok {
			return attributeName(e.attr, v.AsString())
		}
	}
	return traceName(tid)
}

// write appends the records an artifact does not hold yet. Called under mu.
func (e *agenttraceExporter) write(a *artifact, recs []converter.Record) error {
	a.lastWrite = time.Now()
	var errs []error
	var written, dropped, dups int64 // counted once per call, not per span
	for i := range recs {
		rec := &recs[i]
		k := converter.SpanKey{Trace: rec.Span.TraceID(), Span: rec.Span.SpanID()}
		if _, dup := a.seen[k]; dup {
			dups++
			continue
		}
		if converter.IsLocalRoot(rec.Span) {
			a.rootEnded = true
			if b := budgetAttr(rec.Span.Attributes()); b > 0 {
				a.setBudget(b, e.cfg.Budget.WarnThreshold)
			}
		}
		if limit := e.cfg.MaxRecordsPerArtifact; limit > 0 && a.w.Tally().Records() >= limit {
			rec.Read(&e.rd)
			a.w.Tally().AddDropped(rec.Span, &e.rd)
			a.seen[k] = struct{}{}
			dropped++
			continue
		}
		if err := a.w.Write(rec); err != nil {
			// Not marked seen: a retry of the batch writes it.
			errs = append(errs, fmt.Errorf("%s: %w", a.path, err))
			dropped++
			continue
		}
		written++
		a.seen[k] = struct{}{}
		a.traces[k.Trace] = struct{}{}
	}
	e.tel.add(e.tel.written, written)
	e.tel.add(e.tel.dropped, dropped)
	e.tel.add(e.tel.duplicates, dups)
	return errors.Join(errs...)
}

// budgetAttr returns the budget an attribute map sets, or 0.
func budgetAttr(attrs pcommon.Map) int64 {
	if v, ok := attrs.Get(semconv.BudgetTokens); ok && v.Type() == pcommon.ValueTypeInt && v.Int() > 0 {
		return v.Int()
	}
	return 0
}
