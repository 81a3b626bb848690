package bridge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
)

// sink turns records into artifacts. It runs on the processor's one
// writer goroutine and is not safe for concurrent use, except for the
// list of paths and the drop table, which lock.
type sink struct {
	cfg       *config
	red       *redact.Redactor
	drops     *dropTable    // by trace, for a folder of artifacts
	dropped   *atomic.Int64 // all queue drops: a single artifact's count
	dropUsage *usageCounter // their model usage: a single artifact's
	rd        semconv.Reading

	arts    map[string]*artifact
	convOf  map[pcommon.TraceID]string              // ByConversation: the conversation a trace belongs to
	pending map[pcommon.TraceID][]*converter.Record // ByConversation: records of traces whose conversation is not known yet

	mu    sync.Mutex
	paths []string
}

// artifact is one JSONL file (or the one writer). Its key is "" for the
// one artifact of WithFile and WithWriter; in a folder, a trace id (hex)
// or convPrefix and a conversation id.
type artifact struct {
	key    string
	path   string
	f      *os.File
	w      *converter.Writer
	tally  converter.Tally // what a closed artifact holds, for when it is reopened
	meta   *converter.Meta
	traces map[pcommon.TraceID]struct{}
	open   bool
	dirty  bool // written since the last sync
}

// convPrefix starts the key of a conversation's artifact.
const convPrefix = "c:"

// pendingLimit bounds the records held for a trace that has not named its
// conversation; past it they go to the trace's own artifact.
const pendingLimit = 10000

func newSink(c *config, drops *dropTable, dropped *atomic.Int64, dropUsage *usageCounter) (*sink, error) {
	s := &sink{
		cfg:       c,
		drops:     drops,
		dropped:   dropped,
		dropUsage: dropUsage,
		arts:      make(map[string]*artifact),
		convOf:    make(map[pcommon.TraceID]string),
		pending:   make(map[pcommon.TraceID][]*converter.Record),
	}
	if r := redact.New(c.redactKeys, c.secrets); r.Enabled() {
		s.red = r
	}
	switch c.sink {
	case sinkDir:
		if err := os.MkdirAll(c.path, 0o755); err != nil {
			return nil, fmt.Errorf("agenttrace: artifact directory: %w", err)
		}
	case sinkFile:
		if dir := filepath.Dir(c.path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("agenttrace: artifact directory: %w", err)
			}
		}
		// A recording starts afresh: one run, one header.
		f, err := os.OpenFile(c.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("agenttrace: %w", err)
		}
		s.arts[""] = &artifact{path: c.path, f: f, open: true, traces: map[pcommon.TraceID]struct{}{}}
		s.addPath(c.path)
	case sinkWriter:
		s.arts[""] = &artifact{open: true, traces: map[pcommon.TraceID]struct{}{}}
	}
	return s, nil
}

func (s *sink) addPath(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.paths, p) {
		s.paths = append(s.paths, p)
		slices.Sort(s.paths)
	}
}

// Paths returns the artifacts written so far.
func (s *sink) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// write takes a batch of spans, in the order they ended.
func (s *sink) write(td ptrace.Traces) {
	if s.red != nil {
		s.red.Traces(td)
	}
	recs := converter.Records(td)
	for i := range recs {
		s.route(&recs[i])
	}
}

// route sends a record to its artifact, or holds it until its trace names
// its conversation.
func (s *sink) route(rec *converter.Record) {
	sp := rec.Span
	tid := sp.TraceID()
	switch {
	case s.cfg.sink != sinkDir:
		s.put("", rec)
	case s.cfg.groupBy == converter.ByTrace:
		s.put(tid.String(), rec)
	default:
		rec.Read(&s.rd)
		conv := s.rd.Str(semconv.FieldConversationID)
		if conv == "" {
			conv = s.convOf[tid]
		} else if _, known := s.convOf[tid]; !known {
			s.convOf[tid] = conv
		}
		if conv == "" {
			if !converter.IsLocalRoot(sp) && len(s.pending[tid]) < pendingLimit {
				s.pending[tid] = append(s.pending[tid], rec)
				return
			}
			// The trace ends without a conversation: it is its own artifact.
			s.flushPending(tid, tid.String())
			s.put(tid.String(), rec)
			return
		}
		s.flushPending(tid, convPrefix+conv)
		s.put(convPrefix+conv, rec)
	}
	if converter.IsLocalRoot(sp) {
		s.traceEnded(rec)
	}
}

func (s *sink) flushPending(tid pcommon.TraceID, key string) {
	held := s.pending[tid]
	if held == nil {
		return
	}
	delete(s.pending, tid)
	for _, r := range held {
		s.put(key, r)
	}
}

// traceEnded syncs and, for a folder of artifacts, finalizes the artifact
// of a trace whose root span ended: trailer written, file closed, so open
// files stay bounded by the traces in flight. A late span reopens it.
func (s *sink) traceEnded(rec *converter.Record) {
	tid := rec.Span.TraceID()
	key := ""
	if s.cfg.sink == sinkDir {
		key = tid.String()
		if s.cfg.groupBy == converter.ByConversation {
			if c, ok := s.convOf[tid]; ok {
				key = convPrefix + c
			}
			delete(s.convOf, tid)
		}
	}
	a := s.arts[key]
	if a == nil || !a.open {
		return
	}
	if s.cfg.sink == sinkDir {
		if err := s.finalize(a); err != nil {
			otel.Handle(err)
		}
		return
	}
	if s.cfg.fsync == FsyncTraceEnd {
		s.sync(a)
	}
}

// put writes rec to the artifact key, opening it when needed.
func (s *sink) put(key string, rec *converter.Record) {
	a, err := s.openArtifact(key, rec)
	if err != nil {
		otel.Handle(err)
		s.drops.add(rec.Span.TraceID(), semconv.Usage{})
		return
	}
	a.traces[rec.Span.TraceID()] = struct{}{}
	if cap := s.cfg.recordCap; cap > 0 && a.w.Tally().Records() >= int64(cap) {
		rec.Read(&s.rd)
		a.w.Tally().AddDropped(rec.Span, &s.rd)
		return
	}
	if err := a.w.Write(rec); err != nil {
		otel.Handle(err)
		return
	}
	a.dirty = true
	if s.cfg.fsync == FsyncAlways {
		s.sync(a)
	}
}

// openArtifact returns the open artifact key, opening (or adopting) it
// when needed; rec, the record about to be written, makes a new header,
// and is nil for an artifact of drops only.
func (s *sink) openArtifact(key string, rec *converter.Record) (*artifact, error) {
	a := s.arts[key]
	if a != nil && a.open && a.w != nil {
		return a, nil
	}
	if a == nil {
		a = &artifact{key: key, traces: map[pcommon.TraceID]struct{}{}}
		s.arts[key] = a
	}
	var out io.Writer
	switch s.cfg.sink {
	case sinkWriter:
		out = s.cfg.w
	case sinkFile:
		out = a.f
	case sinkDir:
		name := key // a trace id
		if conv, ok := strings.CutPrefix(key, convPrefix); ok {
			name = "conv-" + converter.SafeName(conv)
		}
		a.path = filepath.Join(s.cfg.path, name+".jsonl")
		if a.meta == nil {
			if err := s.adopt(a); err != nil {
				return nil, err
			}
		}
		f, err := os.OpenFile(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("agenttrace: %w", err)
		}
		a.f, out = f, f
		s.addPath(a.path)
	}
	if a.meta == nil {
		a.meta = s.metaFor(key, rec)
		a.w = converter.NewWriter(out, a.meta)
	} else {
		// Reopened for a late span: no second header; the trailer it
		// writes next counts what the file already holds.
		a.w = converter.NewWriter(out, a.meta)
		a.w.Resume(a.tally)
	}
	a.open = true
	return a, nil
}

// adopt takes over an artifact an earlier process left at a's path (the
// same trace, or conversation, going on): see converter.Adopt.
func (s *sink) adopt(a *artifact) error {
	ad, err := converter.Adopt(a.path)
	if err != nil || ad == nil {
		return err
	}
	a.meta, a.tally = ad.Meta, ad.Tally
	return nil
}

// metaFor makes the header of the artifact key from its first record, or,
// for an artifact of drops only (rec nil), from the key alone.
func (s *sink) metaFor(key string, rec *converter.Record) *converter.Meta {
	var m *converter.Meta
	if rec != nil {
		m = converter.MetaFor([]converter.Record{*rec})
	} else {
		m = converter.NewMeta(time.Now().UTC())
		m.TraceID = key
	}
	if s.cfg.sink != sinkDir || s.cfg.groupBy == converter.ByConversation {
		m.TraceID = ""
	}
	if !strings.HasPrefix(key, convPrefix) {
		m.ConversationID = ""
	}
	if s.cfg.budget > 0 {
		m.Budget = &converter.Budget{Tokens: s.cfg.budget, WarnThreshold: s.cfg.warnThreshold}
	}
	// Named keys make arguments and results incomparable; the header says
	// so. The secret scan alone leaves "[REDACTED]" where it acted.
	m.Redacted = len(s.cfg.redactKeys) > 0
	return m
}

func (s *sink) sync(a *artifact) {
	if a.f == nil || !a.dirty || s.cfg.fsync == FsyncNever {
		a.dirty = false
		return
	}
	if err := a.f.Sync(); err != nil {
		otel.Handle(fmt.Errorf("agenttrace: sync %s: %w", a.path, err))
	}
	a.dirty = false
}

// finalize writes a's trailer (with the drops of its traces), syncs it and,
// in a folder, closes its file.
func (s *sink) finalize(a *artifact) error {
	if !a.open {
		return nil
	}
	var n int64
	var u semconv.Usage
	if s.cfg.sink == sinkDir {
		n, u = s.drops.take(a.traces)
	} else {
		// The one artifact, finalized once, at close: every drop is its.
		n, u = s.dropped.Load(), s.dropUsage.sum()
	}
	if a.w == nil {
		if n == 0 {
			a.open = false // an empty run: nothing to say
			return nil
		}
		// Only drops: an artifact that says so rather than nothing.
		if _, err := s.openArtifact(a.key, nil); err != nil {
			return err
		}
	}
	t := a.w.Tally()
	t.Drop(n)
	t.AddUsage(u)
	a.tally = *t
	var errs []error
	if err := a.w.Close(); err != nil {
		errs = append(errs, err)
	}
	a.dirty = true
	s.sync(a)
	if a.f != nil && s.cfg.sink == sinkDir {
		if err := a.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("agenttrace: close %s: %w", a.path, err))
		}
		a.f = nil
	}
	a.open, a.w = false, nil
	return errors.Join(errs...)
}

// flush syncs every artifact with unsynced records.
func (s *sink) flush() {
	for _, a := range s.arts {
		if a.open {
			s.sync(a)
		}
	}
}

// close writes every trailer and closes every file. Records still held
// for an unknown conversation go to their traces' artifacts; drops of
// traces that wrote nothing get an artifact of their own.
func (s *sink) close() error {
	for tid := range s.pending {
		s.flushPending(tid, tid.String())
	}
	var errs []error
	if s.cfg.sink == sinkDir {
		for _, tid := range s.drops.traces() {
			key := tid.String()
			if _, ok := s.arts[key]; ok {
				continue
			}
			a, err := s.openArtifact(key, nil)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			a.traces[tid] = struct{}{}
		}
	}
	for _, a := range s.arts {
		if err := s.finalize(a); err != nil {
			errs = append(errs, err)
		}
		if a.f != nil {
			if err := a.f.Close(); err != nil {
				errs = append(errs, fmt.Errorf("agenttrace: close %s: %w", a.path, err))
			}
			a.f = nil
		}
	}
	return errors.Join(errs...)
}

// dropTable counts spans dropped before the writer saw them (a full queue,
// a write error), by trace, with the usage read from them as they dropped.
type dropTable struct {
	mu sync.Mutex
	m  map[pcommon.TraceID]*dropCount
}

type dropCount struct {
	n     int64
	usage semconv.Usage
}

func (d *dropTable) add(tid pcommon.TraceID, u semconv.Usage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[pcommon.TraceID]*dropCount)
	}
	c := d.m[tid]
	if c == nil {
		c = &dropCount{}
		d.m[tid] = c
	}
	c.n++
	c.usage.Add(u)
}

// usageCounter sums the model usage of dropped spans without a lock: the
// drop path of a single artifact runs on the agent's goroutines, under
// overload, and must stay about as cheap as the SDK's own drop. It holds
// what a budget reads (semconv.ReadUsageKV): input and output tokens.
type usageCounter struct {
	input, output atomic.Int64
}

// add skips zero counts: each atomic add is a locked instruction.
func (c *usageCounter) add(u semconv.Usage) {
	if u.Input != 0 {
		c.input.Add(u.Input)
	}
	if u.Output != 0 {
		c.output.Add(u.Output)
	}
}

func (c *usageCounter) sum() semconv.Usage {
	return semconv.Usage{Input: c.input.Load(), Output: c.output.Load()}
}

// take removes and returns the drops of the given traces.
func (d *dropTable) take(traces map[pcommon.TraceID]struct{}) (int64, semconv.Usage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	var u semconv.Usage
	for tid, c := range d.m {
		if _, ok := traces[tid]; ok {
			n += c.n
			u.Add(c.usage)
			delete(d.m, tid)
		}
	}
	return n, u
}

func (d *dropTable) traces() []pcommon.TraceID {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]pcommon.TraceID, 0, len(d.m))
	for tid := range d.m {
		out = append(out, tid)
	}
	return out
}
