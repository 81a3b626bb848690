package agenttraceexporter

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
)

// artifact is one JSONL file being written. It lives in memory from its
// first span until it is finalized; a later span adopts it from the file
// again, as after a restart. All fields are guarded by the exporter's mu.
type artifact struct {
	name      string
	path      string
	meta      *converter.Meta
	w         *converter.Writer // writes through file, opening it on demand
	f         *os.File          // nil while closed by the LRU
	elem      *list.Element     // in the LRU while f is open
	e         *agenttraceExporter
	seen      map[converter.SpanKey]struct{}
	traces    map[pcommon.TraceID]struct{}
	lastWrite time.Time
	rootEnded bool
	dirty     bool // written since the last sync
}

// file is the io.Writer the artifact's converter.Writer writes to: it
// (re)opens the file through the LRU, so every line goes to an open file
// however many artifacts are active.
type file struct{ a *artifact }

func (f file) Write(p []byte) (int, error) {
	a := f.a
	if err := a.e.open(a); err != nil {
		return 0, err
	}
	a.dirty = true
	return a.f.Write(p)
}

func (a *artifact) setBudget(tokens int64, warn float64) {
	a.meta.Budget = &converter.Budget{Tokens: tokens, WarnThreshold: warn}
}

func (a *artifact) sync() error {
	if a.f == nil || !a.dirty {
		return nil
	}
	a.dirty = false
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", a.path, err)
	}
	return nil
}

// artifactFor returns the artifact named name, adopting its file when an
// earlier process (or an earlier finalization) left one, else starting it
// with a header made from recs. Called under mu.
func (e *agenttraceExporter) artifactFor(name string, recs []converter.Record) (*artifact, error) {
	if a := e.arts[name]; a != nil {
		return a, nil
	}
	path := filepath.Join(e.cfg.Directory, name)
	if filepath.Dir(path) != filepath.Clean(e.cfg.Directory) || strings.ContainsRune(name, 0) {
		// Names are built to make this impossible; refuse rather than trust.
		return nil, consumererror.NewPermanent(fmt.Errorf("artifact name %q leaves directory", name))
	}
	a := &artifact{
		name: name, path: path, e: e,
		seen:   make(map[converter.SpanKey]struct{}),
		traces: make(map[pcommon.TraceID]struct{}),
	}
	ad, err := converter.Adopt(path)
	if err != nil {
		// The file is not an artifact this version can append to; retrying
		// will not change that.
		return nil, consumererror.NewPermanent(err)
	}
	if ad != nil {
		a.meta, a.seen, a.rootEnded = ad.Meta, ad.Spans, ad.RootEnded
		for k := range a.seen {
			a.traces[k.Trace] = struct{}{}
		}
		a.w = converter.NewWriter(file{a}, a.meta)
		a.w.Resume(ad.Tally)
	} else {
		a.meta = e.metaFor(recs)
		a.w = converter.NewWriter(file{a}, a.meta)
	}
	e.arts[name] = a
	e.tel.add(e.tel.opened, 1)
	return a, nil
}

// metaFor makes the header of a new artifact from its first records.
// The budget is, first found: a root span's agenttrace.budget.tokens, the
// resource's (converter.MetaFor reads it), the configured one.
func (e *agenttraceExporter) metaFor(recs []converter.Record) *converter.Meta {
	m := converter.MetaFor(recs)
	// The header outlives the batch it was made from: own its memory.
	r := pcommon.NewResource()
	m.Resource.CopyTo(r)
	s := pcommon.NewInstrumentationScope()
	m.Scope.CopyTo(s)
	m.Resource, m.Scope = r, s
	switch {
	case e.cfg.GroupBy == GroupByTrace:
		m.ConversationID = ""
	case e.cfg.GroupBy == GroupByConversation:
		m.TraceID = ""
	default:
		m.TraceID, m.ConversationID = "", ""
	}
	for i := range recs {
		if sp := recs[i].Span; converter.IsLocalRoot(sp) {
			if b := budgetAttr(sp.Attributes()); b > 0 {
				m.Budget = &converter.Budget{Tokens: b, WarnThreshold: e.cfg.Budget.WarnThreshold}
			}
		}
	}
	if m.Budget == nil && e.cfg.Budget.Tokens > 0 {
		m.Budget = &converter.Budget{Tokens: e.cfg.Budget.Tokens, WarnThreshold: e.cfg.Budget.WarnThreshold}
	}
	// Named keys make arguments and results incomparable; the header says
	// so. The secret scan alone leaves "[REDACTED]" where it acted.
	m.Redacted = m.Redacted || len(e.cfg.Redact.Keys) > 0
	return m
}

// open makes sure a's file is open, closing the least recently written
// others past max_open_files. Called under mu.
func (e *agenttraceExporter) open(a *artifact) error {
	if a.f != nil {
		e.lru.touch(a)
		return nil
	}
	for e.lru.len() >= e.cfg.MaxOpenFiles {
		if err := e.closeFile(e.lru.oldest()); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open artifact: %w", err)
	}
	a.f = f
	e.lru.add(a)
	e.tel.openFiles.Add(bg, 1)
	return nil
}

// closeFile closes a's file, keeping the artifact active. With fsync
// trace_end the data is synced at finalization (fsync covers a file's data
// whichever descriptor wrote it).
func (e *agenttraceExporter) closeFile(a *artifact) error {
	e.lru.remove(a)
	f := a.f
	a.f = nil
	e.tel.openFiles.Add(bg, -1)
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", a.path, err)
	}
	return nil
}

// finalize writes a's trailer, syncs it (unless fsync is never), closes
// its file and forgets it: a later span adopts the file again. Called
// under mu.
func (e *agenttraceExporter) finalize(a *artifact) error {
	var errs []error
	if err := a.w.Close(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", a.path, err))
	}
	if e.cfg.Fsync != FsyncNever {
		if err := a.sync(); err != nil {
			errs = append(errs, err)
		}
	}
	if a.f != nil {
		if err := e.closeFile(a); err != nil {
			errs = append(errs, err)
		}
	}
	delete(e.arts, a.name)
	e.tel.add(e.tel.finalized, 1)
	if e.cfg.GroupBy == GroupByConversation {
		for tid := range a.traces {
			delete(e.convOf, tid)
		}
	}
	return errors.Join(errs...)
}

// lru orders the artifacts whose files are open, most recently written
// first.
type lru struct{ l list.List }

func (c *lru) len() int { return c.l.Len() }

func (c *lru) add(a *artifact) { a.elem = c.l.PushFront(a) }

func (c *lru) touch(a *artifact) { c.l.MoveToFront(a.elem) }

func (c *lru) oldest() *artifact { return c.l.Back().Value.(*artifact) }

func (c *lru) remove(a *artifact) {
	if a.elem != nil {
		c.l.Remove(a.elem)
		a.elem = nil
	}
}
