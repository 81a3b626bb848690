package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// sink hands batches to the artifact store, which owns the files: their
// names, headers, deduplication, record cap, finalization, syncing and
// trailers. It runs on the processor's one writer goroutine.
type sink struct {
	cfg       *config
	st        *store.Store
	dropped   *atomic.Int64 // all queue drops: a single artifact's count
	dropUsage *usageCounter // their model usage and cost: a single artifact's
	rd        semconv.Reading
	pricer    pricing.Pricer // prices the model calls of failed writes
}

func newSink(c *config, dropped *atomic.Int64, dropUsage *usageCounter) (*sink, error) {
	s := &sink{cfg: c, dropped: dropped, dropUsage: dropUsage}
	opts := store.Options{
		RecordCap:  int64(c.recordCap),
		TrackPaths: true,
		OnError:    otel.Handle,
		// The store redacts spans and log records before it writes them,
		// and its headers say so.
		Redactor: redact.New(c.redactKeys, c.secrets),
	}
	if c.budget > 0 || c.budgetUSD > 0 {
		// The header records both budgets (budget_usd for WithBudgetUSD),
		// as the collector exporter's does, so their artifacts agree.
		opts.Header.Budget = &artifact.Budget{Tokens: c.budget, USD: c.budgetUSD, WarnThreshold: c.warnThreshold}
	}
	opts.Fsync = c.fsync
	switch c.sink {
	case sinkDir:
		opts.Dir = c.path
		// What a crash left in the folder (a trace without its last
		// trailer, a torn line) is finished on start, as the collector's
		// exporter does; the folder may be shared with other agents'
		// processors, whose files in the middle of a write are left be.
		opts.Recover, opts.RecoverIdle = true, store.SharedFolderIdle
		opts.Route = c.groupBy
		if c.publisher != nil {
			opts.Hooks.Finalized = c.publisher.Finalized
		}
	case sinkFile:
		opts.Path = c.path
	case sinkWriter:
		opts.Writer = c.w
	}
	st, err := store.New(opts)
	if err != nil {
		return nil, fmt.Errorf("agenttrace: %w", err)
	}
	s.st = st
	if c.publisher != nil && c.sink == sinkDir {
		if err := c.publisher.Start(st, c.path); err != nil {
			otel.Handle(fmt.Errorf("agenttrace: publishing what an earlier process left: %w", err))
		}
	}
	return s, nil
}

// Paths returns the artifacts written so far.
func (s *sink) Paths() []string {
	if s.cfg.sink == sinkWriter {
		return nil
	}
	return s.st.Paths()
}

// write takes a batch of spans, in the order they ended. Spans the store
// could not write are counted as dropped, with their usage and the cost
// of their model calls (priced as a tally prices a record), so the
// trailer still accounts for them.
func (s *sink) write(td ptrace.Traces) {
	recs := s.withoutTooDeep(artifact.Records(td))
	err := s.st.Write(recs)
	if err == nil {
		return
	}
	otel.Handle(err)
	var we *store.WriteError
	if errors.As(err, &we) {
		for i := range we.Failed {
			s.dropRecord(&we.Failed[i])
		}
	}
}

// dropRecord counts rec as dropped in its trace's trailer, with the
// tokens and dollars it carried, as a tally would have counted them.
func (s *sink) dropRecord(rec *artifact.Record) {
	rec.Read(&s.rd)
	var u semconv.Usage
	var c pricing.Total
	if s.rd.Kind == semconv.Inference {
		u = s.rd.Usage()
		c.Add(s.pricer.SpanCost(rec.Span, &s.rd, s.rd.TokenUsage()))
	}
	s.st.Drop(rec.Span.TraceID(), 1, u, c)
}

// withoutTooDeep drops, counts and reports the spans whose attribute
// values nest deeper than an artifact line can hold: the SDK takes map
// and slice attributes nested without limit, and a line the reader
// refuses would leave the artifact invalid (the OTLP paths refuse such
// requests with converter.GuardOTLP).
func (s *sink) withoutTooDeep(recs []artifact.Record) []artifact.Record {
	kept := recs[:0]
	for i := range recs {
		if !spanTooDeep(recs[i].Span) {
			kept = append(kept, recs[i])
			continue
		}
		s.dropRecord(&recs[i])
		otel.Handle(fmt.Errorf("agenttrace: span %q dropped: %w", recs[i].Span.Name(), converter.ErrTooDeep))
	}
	return kept
}

// spanTooDeep reports whether a value of sp's attributes, its events'
// or its links' is too deep for an artifact (artifact.ValueTooDeep).
func spanTooDeep(sp ptrace.Span) bool {
	if artifact.MapTooDeep(sp.Attributes()) {
		return true
	}
	for _, ev := range sp.Events().All() {
		if artifact.MapTooDeep(ev.Attributes()) {
			return true
		}
	}
	for _, l := range sp.Links().All() {
		if artifact.MapTooDeep(l.Attributes()) {
			return true
		}
	}
	return false
}

// drop counts a span dropped from a full queue, of a folder's trace.
func (s *sink) drop(tid pcommon.TraceID, u spent) {
	s.st.Drop(tid, 1, u.usage, u.total())
}

// flush syncs every artifact with unsynced records.
func (s *sink) flush() {
	if err := s.st.Flush(); err != nil {
		otel.Handle(err)
	}
}

// close writes every trailer and closes every file. The queue drops of a
// single artifact, counted without a lock on the agent's goroutines, are
// handed to the store first.
func (s *sink) close() error {
	if s.cfg.sink != sinkDir {
		if n := s.dropped.Load(); n > 0 {
			u, c := s.dropUsage.sum()
			s.st.Drop(pcommon.TraceID{}, n, u, c)
		}
	}
	err := s.st.Close()
	if p := s.cfg.publisher; p != nil && s.cfg.sink == sinkDir {
		// The store closed, every artifact is finalized and queued.
		ctx, cancel := context.WithTimeout(context.Background(), PublishTimeout)
		defer cancel()
		err = errors.Join(err, p.Shutdown(ctx))
	}
	return err
}

// total is the cost of the span as a pricing.Total counts it: one call,
// known or unpriced, when the budget priced it; nothing otherwise.
func (u spent) total() pricing.Total {
	var t pricing.Total
	if u.priced {
		t.Add(u.cost)
	}
	return t
}

// usageCounter sums the model usage of dropped spans without a lock: the
// drop path of a single artifact runs on the agent's goroutines, under
// overload, and must stay about as cheap as the SDK's own drop. It holds
// what a budget reads (semconv.ReadUsageKV): input and output tokens;
// and, with a cost budget, the cost the budget already priced, in
// nano-dollars, with the calls counted as pricing.Total counts them.
type usageCounter struct {
	input, output                  atomic.Int64
	nanos, known, fromSpan, absent atomic.Int64
}

// add skips zero counts: each atomic add is a locked instruction.
func (c *usageCounter) add(u spent) {
	if u.usage.Input != 0 {
		c.input.Add(u.usage.Input)
	}
	if u.usage.Output != 0 {
		c.output.Add(u.usage.Output)
	}
	if !u.priced {
		return
	}
	switch u.cost.Source {
	case pricing.Unknown:
		c.absent.Add(1)
		return
	case pricing.FromSpan:
		c.fromSpan.Add(1)
	}
	c.known.Add(1)
	if n := u.cost.Nanos(); n != 0 {
		c.nanos.Add(n)
	}
}

func (c *usageCounter) sum() (semconv.Usage, pricing.Total) {
	return semconv.Usage{Input: c.input.Load(), Output: c.output.Load()},
		pricing.Total{Nanos: c.nanos.Load(), Known: c.known.Load(), FromSpan: c.fromSpan.Load(), Unknown: c.absent.Load()}
}
