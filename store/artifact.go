package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
)

// artifact is one artifact being written. It lives in memory from its
// first record until it is finalized; a later record adopts its file again,
// as after a restart. Its fields are guarded by mu, except lastWrite and
// rootEnded, which the finalizer reads without it.
type runFile struct {
	key  Key
	path string    // "" for a Writer
	w    io.Writer // the Writer of a store that writes to one
	held []byte    // what w did not take of a write it failed part-way (see appendWriter)

	mu      sync.Mutex
	*memory       // nil while shed (see Store.shed)
	f       file  // nil while closed
	size    int64 // of the complete lines on disk
	broken  error // why, when st is stBroken
	touched int64 // openFiles' clock at the last touch
	born    int64 // unix ns of the store's first write (rotateDue)

	// The state and flags are kept together, unpadded: an artifact is
	// made per trace, and so it fits a smaller size class.
	st    state // its lifecycle: see state
	hold  hold  // a write's hold on its open file: see hold
	dirty bool  // written since the last sync
	inLRU bool  // guarded by openFiles.mu

	rootEnded atomic.Bool
	lastWrite atomic.Int64 // unix ns
}

// memory is what an artifact knows of its file in memory: the header,
// the tally the next trailer counts, the span ids it holds. It is made
// with the artifact, and apart from it, so that an ended trace's
// artifact, live until its finalization, lets it go (Store.shed) and
// keeps a few hundred bytes instead of some kilobytes.
type memory struct {
	meta   *artifact.Meta
	tally  artifact.Tally
	seen   spanSet
	ids    smallIDs                     // seen's first table (see spanSet.start)
	traces map[pcommon.TraceID]struct{} // of a conversation's artifact
}

// newArtifact makes the artifact of k, written to path.
func newArtifact(k Key, path string) *runFile {
	return &runFile{key: k, path: path, memory: new(memory)}
}

// traceSet returns the traces whose drops a's trailer counts.
func (a *runFile) traceSet() map[pcommon.TraceID]struct{} {
	if a.key.Kind == KindTrace {
		return map[pcommon.TraceID]struct{}{a.key.Trace: {}}
	}
	return a.traces
}

// file is what the store needs of an open artifact file.
type file interface {
	io.WriteCloser
	Truncate(size int64) error
	Sync() error
}

// openFile opens an artifact file to append to, creating it; with
// excl, only when there is none yet (fs.ErrExist otherwise). Tests
// replace it with files that fail.
var openFile = func(path string, excl bool) (file, error) {
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if excl {
		flags |= os.O_EXCL
	}
	return openAppend(path, flags)
}

// encoder is a pooled scratch for encoding one chunk of a group of
// records (see pipeline): the header when the chunk starts the file
// (head: its length), the records' lines in buf, each one's reading, how
// many values AppendRecord cut in it (-1: skipped whole), where its line
// ends in buf, its span id with its hash; and, for its turn, which spans
// were new (fresh) and the ones taken (taken, of a serial write).
type encoder struct {
	enc    artifact.Encoder
	buf    []byte
	head   int
	rds    []semconv.Reading
	trunc  []int64
	ends   []int32
	keys   []artifact.SpanKey
	hashes []uint64
	fresh  []bool
	taken  []artifact.SpanKey
	walk   *redact.SpanWalk // the redaction enc does, kept with it (see redactWith)
}

// redactWith makes e's encoder redact with red (nil: not at all). Encoders
// are pooled across stores: the walk is remade only for another Redactor.
func (e *encoder) redactWith(red *redact.Redactor) {
	if red == nil {
		e.enc.SetRedactor(nil)
		return
	}
	if !e.walk.Of(red) {
		e.walk = red.Walk()
	}
	e.enc.SetRedactor(e.walk)
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

// load sets a's header, tally and span set: adopted from its file when
// one is there, else made from recs, its first records.
func (s *Store) load(a *runFile, recs []artifact.Record) error {
	if a.memory == nil {
		a.memory = new(memory) // shed: made again
	}
	a.seen = spanSet{}
	a.seen.start(len(recs), &a.ids)
	if a.key.Kind == KindConversation {
		// Its traces' drops are its own, and finalizing it ends their
		// tie to it.
		a.traces = make(map[pcommon.TraceID]struct{})
	}
	if a.path != "" {
		// Most artifacts are new: creating the file is also the check
		// that there is nothing to adopt, one system call for both.
		f, err := openFile(a.path, true)
		if err == nil {
			s.attach(a, f)
			a.meta = headerWithID(a.key, traceHexOf(a), recs, s.headerOptions(a.key), &s.origins)
			a.to(stLoaded)
			s.hooks.opened()
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("open artifact: %w", err)
		}
		ok, err := s.adoptInto(a)
		if err != nil || ok {
			return err
		}
	}
	a.meta = header(a.key, recs, s.headerOptions(a.key), &s.origins)
	a.to(stLoaded)
	s.hooks.opened()
	return nil
}

// traceHexOf is the trace id of a trace's artifact in hex, cut out of its
// file name (no copy), or "" when a is not a trace's or its name is not
// the id.
func traceHexOf(a *runFile) string {
	const n = 2 * len(pcommon.TraceID{})
	if a.key.Kind != KindTrace || len(a.path) < n+len(Ext) || !strings.HasSuffix(a.path, Ext) {
		return ""
	}
	id := a.path[len(a.path)-len(Ext)-n : len(a.path)-len(Ext)]
	var tid pcommon.TraceID
	if _, err := hex.Decode(tid[:], []byte(id)); err != nil || tid != a.key.Trace {
		return ""
	}
	return id
}

// adoptInto continues the artifact a's file holds, and reports false when
// there is none to continue (no file, an empty one, one set aside). It
// never creates a file. a.mu is held.
func (s *Store) adoptInto(a *runFile) (bool, error) {
	if st := s.takeResume(a); st != nil {
		a.meta, a.tally, a.seen, a.traces = st.meta, st.tally, st.seen, st.traces
		if a.key.Kind == KindConversation && a.traces == nil {
			a.traces = make(map[pcommon.TraceID]struct{})
		}
		a.size = st.size
		a.to(stTrailed)
		a.rootEnded.Store(st.rootEnded)
		s.hooks.opened()
		return true, nil
	}
	ad, err := adopt(a.path, s.setAside)
	if err != nil || ad == nil {
		return false, err
	}
	if ad.cut > 0 {
		s.hooks.repaired(a.path, ad.cut)
	}
	if a.key.Kind == KindConversation && a.traces == nil {
		a.traces = make(map[pcommon.TraceID]struct{})
	}
	a.meta, a.tally, a.seen = ad.meta, ad.tally, newSpanSet(ad.seen)
	a.size = ad.size
	a.written(ad.trailerLast)
	a.rootEnded.Store(ad.rootEnded)
	if a.traces != nil {
		a.seen.each(func(k artifact.SpanKey) { a.traces[k.Trace] = struct{}{} })
	}
	s.hooks.opened()
	return true, nil
}

func (s *Store) setAside(from, to string, why error) {
	s.hooks.setAside(from, to, why)
}

// writeLocked appends the records of recs a does not hold yet and counts
// them only once their write succeeded. A failed or partial write is cut
// back to where the group began, and nothing of it is counted: the caller
// gets the error, and may retry. It reports whether a local root span was
// among what it took. A small group is one chunk, written in one call on
// this goroutine; a large one goes through a pipeline on every core: both
// are counted by the one accounting step, pipeline.take. a.mu is held.
//
// prep is what is still to be done to recs before they are encoded.
func (s *Store) writeLocked(a *runFile, recs []artifact.Record, prep prepare) (root bool, err error) {
	if a.broken != nil {
		return false, a.broken
	}
	if !a.loaded() {
		prep = s.beforeHeader(a.key, recs, prep) // the header reads the records
		if err := s.load(a, recs); err != nil {
			s.hooks.dropped(int64(len(recs))) // a failed write (a symbolic link, no room)
			return false, err
		}
	}
	if w := pipelineWorkers(len(recs)); w > 1 {
		return s.writePipelined(a, recs, prep, w)
	}
	return s.writeSerial(a, recs, prep)
}

// trailerWith reports whether a write to a, which took a local root span
// when root, carries a trailer after its records: one that took the root,
// and, when the store finalizes at once (FinalizeAfter 0), one that took
// a late span of a trace whose root already ended. Such an artifact is
// finalized again right after the write (afterWrite); with the trailer in
// the same write call, no crash leaves the late span after the old
// trailer with none after it, which would fail validation for good.
// a.mu is held.
func (s *Store) trailerWith(a *runFile, root bool) bool {
	return a.key.Kind != KindRun && (root || s.finalizesAgain(a))
}

// finalizesAgain reports whether a, of a folder whose artifacts are
// finalized as soon as their root ends, is finalized after every write
// because its root already ended. a.mu is held.
func (s *Store) finalizesAgain(a *runFile) bool {
	return a.key.Kind != KindRun && s.opts.FinalizeAfter == 0 && a.rootEnded.Load()
}

// rootBudget makes budget, a local root's (zero: none), a's from the trailer
// on; the header says what was known when it was written. a.mu is held.
func (s *Store) rootBudget(a *runFile, budget rootAttrs) {
	if budget.tokens <= 0 && budget.usd <= 0 {
		return
	}
	var b artifact.Budget // the header's, the root's tokens or dollars over it
	if a.meta.Budget != nil {
		b = *a.meta.Budget
	} else if w := s.opts.Header.Budget; w != nil {
		b.WarnThreshold = w.WarnThreshold
	}
	if budget.tokens > 0 {
		b.Tokens = budget.tokens
	}
	if budget.usd > 0 {
		b.USD = budget.usd
	}
	a.meta.Budget = &b
}

// append writes b, whole lines, to a's file or writer in one call. On a
// failure the file is cut back to its last complete line; when even that
// fails the artifact is broken: every later write fails with the error,
// and nothing more is appended to a file whose end is unknown. A Writer
// cannot be cut back: see appendWriter.
func (s *Store) append(a *runFile, b []byte) error {
	if a.w != nil {
		return s.appendWriter(a, b)
	}
	if err := s.openFile(a); err != nil {
		return err
	}
	n, err := a.f.Write(b)
	if err == nil {
		a.size += int64(n)
		a.dirty = true
		return nil
	}
	werr := fmt.Errorf("write %s: %w", a.path, err)
	if n > 0 {
		if terr := a.f.Truncate(a.size); terr != nil {
			return a.breakWith(fmt.Errorf("%w; cutting back the partial line: %w", werr, terr))
		}
	}
	return werr
}

// openFile makes sure a's file is open. a.mu is held.
func (s *Store) openFile(a *runFile) error {
	if a.f != nil {
		if a.hold != holdUnlisted {
			s.files.touch(a)
		}
		return nil
	}
	f, err := openFile(a.path, false)
	if err != nil {
		return fmt.Errorf("open artifact: %w", err)
	}
	s.attach(a, f)
	return nil
}

// attach makes f a's open file. a.mu is held.
func (s *Store) attach(a *runFile, f file) {
	a.f = f
	if a.hold == holdWrite {
		a.hold = holdUnlisted
	} else {
		s.files.add(a)
	}
	s.nOpen.Add(1)
	s.hooks.openFiles(1)
	if s.opts.trackPaths() {
		s.addPath(a.path)
	}
}

// closeFile closes a's file, keeping the artifact. a.mu is held.
func (s *Store) closeFile(a *runFile) error {
	if a.f == nil {
		return nil
	}
	if a.hold == holdUnlisted {
		a.hold = holdWrite
	} else {
		s.files.remove(a)
	}
	return s.shut(a)
}

// shut closes a's open file, which is in no LRU. a.mu is held.
func (s *Store) shut(a *runFile) error {
	f := a.f
	a.f = nil
	s.nOpen.Add(-1)
	s.hooks.openFiles(-1)
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", a.path, err)
	}
	return nil
}

// hold is a write's hold on an artifact's file (a.mu guards it): while a
// write is under way (writeGroup), a file it opens joins the LRU only when
// it ends, if it is still open then (see settleFile).
type hold uint8

const (
	holdNone     hold = iota // no write under way: an open file is in the LRU
	holdWrite                // a write under way, no file of its own open
	holdUnlisted             // a write under way, with the file it opened: not in the LRU
)

// settleFile ends a write's hold on a's file: a file the write opened
// joins the LRU now, unless the write closed it again, as it does when it
// finalizes the artifact it made (FinalizeAfter 0, one artifact per
// trace): such a file never takes the LRU's lock. a.mu is held.
func (s *Store) settleFile(a *runFile) {
	if a.hold == holdUnlisted {
		s.files.add(a)
	}
	a.hold = holdNone
}

// closeEvicted closes the files the LRU let go of. It runs with no
// artifact's mutex held.
func (s *Store) closeEvicted() {
	var buf [4]*runFile
	for _, a := range s.files.takeEvicted(buf[:0]) {
		a.mu.Lock()
		// A dirty file stays dirty: syncing at finalization covers its
		// data whichever descriptor wrote it.
		// Out of the LRU, it stays out while a.mu is held: closing it
		// needs no second trip through the LRU's lock.
		if a.f != nil && s.files.stillEvicted(a) {
			if err := s.shut(a); err != nil {
				s.handle(err)
			}
		}
		a.mu.Unlock()
	}
}

// sync forces a's data to disk when it was written since the last sync,
// unless the policy is never. a.mu is held.
func (s *Store) sync(a *runFile) error {
	if !a.dirty || s.opts.Fsync == FsyncNever {
		return nil
	}
	if a.w != nil {
		a.dirty = false
		return nil
	}
	if a.f == nil {
		// Closed by the LRU since: a descriptor of its own syncs it.
		if err := syncFile(a.path); err != nil {
			return err
		}
	} else if err := a.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", a.path, err)
	}
	a.dirty = false
	return nil
}

// finalizeLocked writes a's trailer (with the drops of its traces), syncs
// it and closes its file. Unless keep, a is forgotten: a later record
// adopts its file again. With later not nil, a file still to sync is
// added to it rather than synced now (Close syncs many at once). a.mu is
// held.
//
// When the trailer cannot be written (a full disk), a is not forgotten
// even without keep: it stays live, with its span ids and tally, and the
// finalizer tries again once it has been idle for as long again (a later
// write, or Close, may do it sooner). Forgotten, its file would keep no
// trailer until a restart's recovery.
func (s *Store) finalizeLocked(a *runFile, keep bool, later *[]string) error {
	var n int64
	var u dropUsage
	if a.key.Kind == KindRun {
		n, u = s.drops.takeAll()
	} else {
		n, u = s.drops.takeOf(a)
	}
	var errs []error
	unfinished := false // no trailer could be written
	if !a.loaded() && n > 0 {
		// Only drops: an artifact that says so rather than nothing.
		if err := s.load(a, nil); err != nil {
			errs = append(errs, err)
		}
	}
	if a.loaded() && a.broken == nil && (n > 0 || !a.trailerLast()) && (a.headerOnDisk() || n > 0 || a.key.Kind == KindRun) {
		t := a.tally
		t.Drop(n)
		u.into(&t)
		if err := s.writeTrailer(a, &t); err != nil {
			errs = append(errs, err)
			unfinished = true
			if n > 0 {
				s.drops.giveBack(a, n, u)
			}
		} else {
			a.tally = t
		}
	}
	if a.w != nil && !unfinished {
		// What a failed write left held, when no trailer took it out.
		if err := s.writeHeld(a); err != nil {
			errs = append(errs, err)
		}
	}
	if later != nil && a.dirty && a.path != "" && s.opts.Fsync != FsyncNever {
		*later = append(*later, a.path)
		a.dirty = false
	} else if err := s.sync(a); err != nil {
		errs = append(errs, err)
	}
	if !keep {
		if err := s.closeFile(a); err != nil {
			errs = append(errs, err)
		}
		if unfinished && a.broken == nil {
			a.lastWrite.Store(time.Now().UnixNano())
		} else {
			// Finalized; or broken (its file's end unknown), when a later
			// record is better off adopting the file, which cuts a torn
			// end off, than being refused for good.
			if a.broken == nil && !unfinished {
				s.keepResume(a)
			}
			a.to(stGone)
			s.forget(a)
			s.hooks.finalized(a.path)
		}
	}
	return errors.Join(errs...)
}

// appendTrailer appends the trailer of t under meta.
func appendTrailer(buf []byte, meta *artifact.Meta, t *artifact.Tally) []byte {
	sum := t.Summary(meta.Budget)
	if sum.FinishedAt.IsZero() {
		sum.FinishedAt = meta.StartedAt
	}
	sum.Complete = true
	return artifact.AppendSummary(buf, &sum)
}

// writeTrailer appends the summary of t (and the header, when none is on
// disk yet). a.mu is held.
func (s *Store) writeTrailer(a *runFile, t *artifact.Tally) error {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	buf := e.buf[:0]
	if !a.headerOnDisk() {
		buf = artifact.AppendMeta(buf, a.meta)
	}
	buf = appendTrailer(buf, a.meta, t)
	e.buf = buf[:0]
	if err := s.append(a, buf); err != nil {
		return err
	}
	a.to(stTrailed)
	return nil
}
