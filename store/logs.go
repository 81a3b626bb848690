package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// Log records (format §4.4) go to the artifact of their trace, routed as
// its spans are (by trace, by the trace's conversation, by a resource
// attribute; the one artifact of Path or Writer). The rules:
//
//   - Held until their trace's artifact exists. A log record of a trace
//     whose artifact is neither in memory nor on disk is held, so that it
//     follows its span rather than make an artifact of its own: the
//     official instrumentations emit a model call's log records before the
//     call's span ends. The spans' Write that makes the artifact appends
//     the held records after its own. Holding is bounded: past
//     Options.MaxHeldLogs records, the trace held longest is written (its
//     artifact created from the log records, the spans continue it); a
//     record held longer than Options.HoldLogs is written at the next
//     Write or WriteLogs; Close writes every record still held. Nothing
//     held is dropped. LogHooks.Held counts records put on hold.
//   - Identity: a log record is the same record when all of it is the
//     same: trace and span id, times, severity, event name, body,
//     attributes, flags, dropped count, resource and scope (a SHA-256 of
//     its full encoding, 128 bits kept). A redelivered record is skipped
//     (LogHooks.Duplicates), as a redelivered span is.
//   - Adoption: an artifact continued from disk (a restart, a late
//     record) reads its log lines back (artifact.WithLogs) before its
//     first log record is written, so redelivery after a restart writes
//     nothing twice.
//   - Untraced: a log record without a trace id goes to the artifact of
//     the all-zero trace id, UntracedFileName in a folder (no trace has
//     that id: it is invalid in OTLP), or to the one artifact of Path or
//     Writer; LogHooks.Untraced counts them. Under ByAttribute a record
//     whose resource has the attribute goes to that value's artifact.
//   - Finalization is the spans': log lines add nothing to a trailer's
//     counts, but a line written after a trailer makes the next
//     finalization write another one; with FinalizeAfter 0 an artifact
//     whose root has ended is finalized again after its late log records.
//   - A conversation that takes over a trace's artifact (see the package
//     documentation) takes its log lines too.

// DefaultMaxHeldLogs bounds the log records held for traces whose
// artifact does not exist yet, when Options.MaxHeldLogs is 0.
const DefaultMaxHeldLogs = 65536

// UntracedFileName is the artifact of a folder that log records without
// a trace id go to.
var UntracedFileName = FileName(TraceKey(pcommon.TraceID{}), "")

// LogHooks count what the store does with log records; any may be nil.
// They must be quick and safe for concurrent use.
type LogHooks struct {
	// Written, Duplicates (already in their artifact, or already held)
	// and Failed (a write that failed; returned in the error) count log
	// records; Held counts those put on hold and Untraced those without a
	// trace id.
	Written, Duplicates, Failed, Held, Untraced func(n int64)
}

func call(f func(int64), n int64) {
	if f != nil && n != 0 {
		f(n)
	}
}

// logID is a log record's identity.
type logID [16]byte

// logSet is the log records an artifact holds.
type logSet struct {
	art *runFile
	ids map[logID]struct{}
}

// logState is the store's state for log records.
type logState struct {
	mu      sync.Mutex
	sets    map[string]*logSet // by artifact path ("" for the run)
	puts    int
	held    map[pcommon.TraceID]*heldTrace
	order   []pcommon.TraceID // held traces, oldest first (may hold stale ids)
	nHeld   int
	pending atomic.Int64 // nHeld, read without mu
}

func (s *Store) logHooks() *LogHooks { return &s.opts.LogHooks }

// idOf returns the identity of rec: its full encoding, hashed.
func idOf(rec *artifact.LogRecord, scratch []byte) (logID, []byte) {
	var e artifact.Encoder
	scratch = e.AppendLog(scratch[:0], rec)
	sum := sha256.Sum256(scratch)
	var id logID
	copy(id[:], sum[:])
	return id, scratch
}

// WriteLogs writes log records, each after its trace's records in that
// trace's artifact, holding those whose artifact does not exist yet (see
// the rules above). The store keeps copies of what it holds: recs stay
// the caller's. Records already in their artifact are skipped. When some
// artifacts fail, the others are still written, and the error is a
// *LogWriteError holding the records not written; after Close it is
// ErrClosed.
func (s *Store) WriteLogs(recs []artifact.LogRecord) error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if s.opts.Redactor != nil {
		redactLogs(s.opts.Redactor, recs)
	}
	h := s.logHooks()
	now := time.Now()
	type out struct {
		key  Key
		recs []artifact.LogRecord
	}
	var outs []out
	idx := make(map[Key]int)
	add := func(k Key, rec artifact.LogRecord) {
		j, ok := idx[k]
		if !ok {
			j = len(outs)
			idx[k] = j
			outs = append(outs, out{key: k})
		}
		outs[j].recs = append(outs[j].recs, rec)
	}
	var scratch []byte
	var untraced int64
	for i := range recs {
		rec := recs[i]
		tid := rec.Log.TraceID()
		if tid.IsEmpty() {
			untraced++
		}
		k, hold := s.logKey(&rec)
		if !hold {
			add(k, rec)
			continue
		}
		var id logID
		id, scratch = idOf(&rec, scratch)
		s.hold(tid, rec, id, now)
	}
	call(h.Untraced, untraced)
	var errs []error
	var failed []artifact.LogRecord
	for _, o := range outs {
		if err := s.writeLogsTo(o.key, o.recs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o.key, err))
			failed = append(failed, o.recs...)
		}
	}
	if err := s.releaseDue(now, nil); err != nil {
		errs = append(errs, err)
	}
	if errs == nil {
		return nil
	}
	return &LogWriteError{Failed: failed, Err: errors.Join(errs...)}
}

// LogWriteError is what WriteLogs returns when some log records could not
// be written: those of the artifacts that failed, for a caller that
// retries only those.
type LogWriteError struct {
	Failed []artifact.LogRecord
	Err    error
}

func (e *LogWriteError) Error() string { return e.Err.Error() }

func (e *LogWriteError) Unwrap() error { return e.Err }

// logKey is the artifact rec goes to, and whether it is held because
// that artifact does not exist yet.
func (s *Store) logKey(rec *artifact.LogRecord) (Key, bool) {
	if s.run != nil {
		return Key{Kind: KindRun}, false
	}
	tid := rec.Log.TraceID()
	if s.opts.Route == ByAttribute {
		if v, ok := rec.Resource.Attributes().Get(s.opts.Attribute); ok {
			return AttributeKey(v.AsString()), false
		}
	}
	if tid.IsEmpty() {
		return TraceKey(tid), false
	}
	if s.opts.Route == ByConversation {
		if c, ok := s.convOf(tid); ok {
			return ConversationKey(c), false
		}
	}
	k := TraceKey(tid)
	return k, !s.exists(k)
}

// exists reports whether the artifact of k is in memory or on disk.
func (s *Store) exists(k Key) bool {
	if s.lookup(k) != nil {
		return true
	}
	_, err := os.Stat(s.pathOf(k))
	return err == nil
}

// writeLogsTo writes recs to the artifact of k.
func (s *Store) writeLogsTo(k Key, recs []artifact.LogRecord) error {
	defer s.closeEvicted()
	a := s.lockLive(k)
	err := s.writeLogsLocked(a, recs)
	a.mu.Unlock()
	return err
}

// writeLogsLocked appends the log records of recs a does not hold yet, in
// one write. a.mu is held.
func (s *Store) writeLogsLocked(a *runFile, recs []artifact.LogRecord) error {
	h := s.logHooks()
	if a.broken != nil {
		call(h.Failed, int64(len(recs)))
		return a.broken
	}
	if !a.loaded() {
		if err := s.load(a, nil); err != nil {
			call(h.Failed, int64(len(recs)))
			return err
		}
		if !a.headerOnDisk() && len(recs) > 0 {
			headerFromLog(a.meta, &recs[0])
		}
	}
	set, err := s.logSetOf(a)
	if err != nil {
		call(h.Failed, int64(len(recs)))
		return err
	}
	var buf, scratch []byte
	if !a.headerOnDisk() {
		buf = artifact.AppendMeta(buf, a.meta)
	}
	var enc artifact.Encoder
	enc.SetDefaults(a.meta)
	var added []logID
	var dups int64
	for i := range recs {
		var id logID
		id, scratch = idOf(&recs[i], scratch)
		if _, ok := set[id]; ok {
			dups++
			continue
		}
		set[id] = struct{}{}
		added = append(added, id)
		buf = enc.AppendLog(buf, &recs[i])
	}
	call(h.Duplicates, dups)
	if len(added) == 0 {
		return nil
	}
	if err := s.append(a, buf); err != nil {
		for _, id := range added {
			delete(set, id)
		}
		call(h.Failed, int64(len(added)))
		return err
	}
	a.to(stOpen)
	call(h.Written, int64(len(added)))
	switch {
	case a.key.Kind != KindRun && s.opts.FinalizeAfter == 0 && a.rootEnded.Load():
		// The root has ended, and the artifact was (or would have been)
		// finalized with it: finalize it again, its log lines in.
		return s.finalizeLocked(a, false, nil)
	case s.opts.Fsync == FsyncAlways:
		return s.sync(a)
	}
	return nil
}

// headerFromLog makes a header written before any span (only log records
// so far) say when and where they came from.
func headerFromLog(m *artifact.Meta, rec *artifact.LogRecord) {
	if t := rec.Log.Timestamp(); t != 0 {
		m.StartedAt = artifact.UnixNano(uint64(t))
	} else if t := rec.Log.ObservedTimestamp(); t != 0 {
		m.StartedAt = artifact.UnixNano(uint64(t))
	}
	m.Resource = pcommon.NewResource()
	rec.Resource.CopyTo(m.Resource)
	m.ResourceSchemaURL = rec.ResourceSchemaURL
	m.Scope = pcommon.NewInstrumentationScope()
	rec.Scope.CopyTo(m.Scope)
	m.ScopeSchemaURL = rec.ScopeSchemaURL
	if v, ok := m.Resource.Attributes().Get("service.name"); ok {
		m.Service = v.AsString()
	}
}

// logSetOf returns the identities of the log records a holds, read from
// its file the first time (an artifact continued from disk). a.mu is
// held.
func (s *Store) logSetOf(a *runFile) (map[logID]struct{}, error) {
	ls := &s.logs
	ls.mu.Lock()
	if ls.sets == nil {
		ls.sets = make(map[string]*logSet)
	}
	e := ls.sets[a.path]
	if e != nil && e.art == a {
		ls.mu.Unlock()
		return e.ids, nil
	}
	ls.puts++
	if ls.puts%1024 == 0 {
		ls.sweep()
	}
	ls.mu.Unlock()
	ids := make(map[logID]struct{})
	if a.path != "" {
		// Another artifact value of this path was finalized (or this one
		// was adopted): what its file holds is the truth.
		if err := readLogIDs(a.path, ids); err != nil {
			return nil, err
		}
	}
	ls.mu.Lock()
	ls.sets[a.path] = &logSet{art: a, ids: ids}
	ls.mu.Unlock()
	return ids, nil
}

// sweep forgets the log sets of artifacts finalized since. ls.mu is held;
// an artifact busy now is left for the next sweep.
func (ls *logState) sweep() {
	for p, e := range ls.sets {
		if e.art.mu.TryLock() {
			gone := e.art.gone()
			e.art.mu.Unlock()
			if gone {
				delete(ls.sets, p)
			}
		}
	}
}

// readLogIDs adds the identities of the log lines of the artifact at path.
func readLogIDs(path string, ids map[logID]struct{}) error {
	logs, err := readLogs(path)
	if err != nil {
		return err
	}
	var scratch []byte
	for i := range logs {
		var id logID
		id, scratch = idOf(&logs[i], scratch)
		ids[id] = struct{}{}
	}
	return nil
}

// readLogs reads the log lines of the artifact at path; nothing when
// there is no file.
func readLogs(path string) ([]artifact.LogRecord, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read log lines: %w", err)
	}
	defer f.Close()
	var out []artifact.LogRecord
	r := artifact.NewReader(f, artifact.WithSource(path), artifact.WithLogs(func(l *artifact.LogRecord) {
		out = append(out, *l)
	}))
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read log lines: %w", err)
		}
	}
}

// foldLogs moves the log lines of the trace artifact at path (being
// folded into conv) into conv's artifact.
func (s *Store) foldLogs(path string, conv Key) error {
	logs, err := readLogs(path)
	if err != nil || len(logs) == 0 {
		return err
	}
	return s.writeLogsTo(conv, logs)
}
