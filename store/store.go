package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// ErrClosed is returned by a Write after Close.
var ErrClosed = errors.New("artifact store closed")

// ErrSymlink is returned for an artifact whose name in the folder is a
// symbolic link: the store never follows one (a link planted there could
// point anywhere, and the store would append to, truncate or read that
// file). It is an ErrNotAppendable: retrying will not change the file.
// The folder itself may be a link (whoever configured it named it); no
// artifact name holds a path separator, so the file's own name is the
// only part of its path the store resolves inside the folder.
var ErrSymlink = fmt.Errorf("%w: a symbolic link, not followed", ErrNotAppendable)

// ErrNoTraceID is what Options.OnError hears when a folder store drops
// spans whose trace id is empty (all zero, or absent): a trace's artifact
// is named by its id, and no id would make DIR/.jsonl, a hidden file
// every such span of every sender would share. The spans are counted as
// dropped (Hooks.Dropped), not failed: no retry can give them an id.
var ErrNoTraceID = errors.New("span without a trace id")

// WriteError is what Write returns when some records could not be
// written: the records of the artifacts that failed (the others were
// written), for a caller that retries only those.
type WriteError struct {
	Failed []artifact.Record
	Err    error
}

func (e *WriteError) Error() string { return e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }

// nShards splits the artifact table, so that looking up artifacts of
// different keys rarely meets on one mutex, and never for longer than a
// map access.
const nShards = 64

type shard struct {
	mu     sync.Mutex
	arts   map[Key]*runFile
	convOf map[pcommon.TraceID]string // ByConversation: the conversation a trace belongs to
}

// A Store writes artifacts. It is safe for concurrent use: writes to
// different artifacts never wait for each other (each artifact has its
// own lock; the tables that find them are sharded), and writes to one
// artifact are serialized, so its lines never interleave. See the package
// documentation for what it guarantees.
type Store struct {
	opts  Options
	hooks *Hooks
	seed  maphash.Seed

	dir      string      // opts.Dir, cleaned
	takenDir atomic.Bool // TakenDir was made (Take)
	// budgetNamed: the Redactor names a budget attribute's key, so a
	// header, which reads a root's budget, reads redacted records.
	budgetNamed bool

	shards [nShards]shard
	files  *openFiles
	nOpen  atomic.Int64
	drops  dropTable
	run    *runFile // the artifact of Path or Writer

	origins originCache // the headers' resource and scope, shared
	roots   sync.Map    // pcommon.TraceID -> rootBudget, told by RootBudget
	resume  resumeCache // large finalized artifacts' state, to reopen them cheaply

	life   sync.RWMutex // Write holds it shared; Close exclusively
	logs   logState
	closed bool

	pathsMu sync.Mutex
	paths   *simplelru.LRU[string, struct{}]

	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// New returns a Store and, when artifacts finalize after idleness,
// starts its finalizer; Close stops it.
func New(opts Options) (*Store, error) {
	n := 0
	for _, set := range []bool{opts.Dir != "", opts.Path != "", opts.Writer != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("artifact store: exactly one of a directory, a file and a writer")
	}
	if opts.Route == ByAttribute && opts.Attribute == "" {
		return nil, errors.New("artifact store: grouping by a resource attribute names no attribute")
	}
	if opts.MaxOpenFiles <= 0 {
		opts.MaxOpenFiles = DefaultMaxOpenFiles
	}
	if opts.OrphanAfter <= 0 {
		opts.OrphanAfter = DefaultOrphanFactor * opts.FinalizeAfter
	}
	opts.useRedactor()
	s := &Store{
		opts:  opts,
		hooks: &opts.Hooks,
		seed:  maphash.MakeSeed(),
		files: newOpenFiles(opts.MaxOpenFiles),
		stop:  make(chan struct{}),
		paths: newPathSet(),
		dir:   filepath.Clean(opts.Dir),
	}
	s.hooks = &s.opts.Hooks
	s.budgetNamed = opts.Redactor.Names(semconv.BudgetTokens) || opts.Redactor.Names(semconv.BudgetUSD)
	for i := range s.shards {
		s.shards[i].arts = make(map[Key]*runFile)
	}
	switch {
	case opts.Dir != "":
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("artifact directory: %w", err)
		}
		if opts.Recover {
			s.wg.Go(s.recoverDir)
		}
		if opts.FinalizeAfter > 0 {
			s.wg.Add(1)
			go s.finalizeLoop()
		}
	case opts.Path != "":
		if dir := filepath.Dir(opts.Path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("artifact directory: %w", err)
			}
		}
		s.run = newArtifact(Key{Kind: KindRun}, opts.Path)
		if opts.TrackPaths {
			s.addPath(opts.Path)
		}
	default:
		s.run = newArtifact(Key{Kind: KindRun}, "")
		s.run.w = opts.Writer
	}
	return s, nil
}

func (s *Store) handle(err error) {
	if err != nil && s.opts.OnError != nil {
		s.opts.OnError(err)
	}
}

func (s *Store) shardOf(k Key) *shard {
	if k.Kind == KindTrace {
		return &s.shards[(k.Trace[15]^k.Trace[7])%nShards]
	}
	return &s.shards[maphash.String(s.seed, k.Value)%nShards]
}

func (s *Store) shardOfTrace(tid pcommon.TraceID) *shard {
	return &s.shards[(tid[15]^tid[7])%nShards]
}

// pathOf is the file of key k: filepath.Join of the folder and the key's
// file name. A trace's, made for every trace with one artifact per trace,
// is built in one allocation (the folder is clean and the name plain, so
// joining them is putting a separator between).
func (s *Store) pathOf(k Key) string {
	if k.Kind != KindTrace || k.Trace.IsEmpty() {
		return filepath.Join(s.opts.Dir, FileName(k, s.opts.Attribute))
	}
	dir := s.dir
	if dir == "." {
		dir = ""
	}
	var b strings.Builder
	b.Grow(len(dir) + 1 + 2*len(k.Trace) + len(Ext))
	b.WriteString(dir)
	if dir != "" && !os.IsPathSeparator(dir[len(dir)-1]) {
		b.WriteByte(filepath.Separator)
	}
	var name [2 * len(pcommon.TraceID{})]byte
	hex.Encode(name[:], k.Trace[:])
	b.Write(name[:])
	b.WriteString(Ext)
	return b.String()
}

// get returns the artifact of k, making it when needed.
func (s *Store) get(k Key) *runFile {
	if s.run != nil {
		return s.run
	}
	sh := s.shardOf(k)
	sh.mu.Lock()
	a := sh.arts[k]
	if a == nil {
		a = newArtifact(k, s.pathOf(k))
		sh.arts[k] = a
	}
	sh.mu.Unlock()
	return a
}

// lookup returns the artifact of k, or nil.
func (s *Store) lookup(k Key) *runFile {
	sh := s.shardOf(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.arts[k]
}

// rootBudget is a local root's budget told before the root is written.
type rootBudget struct {
	tokens int64
	usd    float64
}

// RootBudget tells the store the budget (agenttrace.budget.tokens and
// .usd) trace tid's local root span names when it starts, before any of
// the trace is written: the header of the trace's own artifact then says
// it even when the artifact is started by a batch the root is not in yet
// (the SDK processor's FsyncTurn writes each turn at once, while the root
// is still open), as the header of an artifact written with its root
// does. No budget (both zero) forgets what was told: the caller tells
// that once the root is written; the store also forgets it when the
// trace's own artifact is finalized or folded.
func (s *Store) RootBudget(tid pcommon.TraceID, tokens int64, usd float64) {
	if tokens <= 0 && !(usd > 0) {
		s.roots.Delete(tid)
		return
	}
	s.roots.Store(tid, rootBudget{tokens, usd})
}

// headerOptions are the header options for artifact k: the writer's, with
// the root budget RootBudget told for a trace's own artifact.
func (s *Store) headerOptions(k Key) HeaderOptions {
	opts := s.opts.Header
	if k.Kind == KindTrace {
		if v, ok := s.roots.Load(k.Trace); ok {
			rb := v.(rootBudget)
			opts.RootTokens, opts.RootUSD = rb.tokens, rb.usd
		}
	}
	return opts
}

// forget drops a finalized artifact from the tables. a.mu is held.
func (s *Store) forget(a *runFile) {
	if a.key.Kind == KindTrace {
		s.roots.Delete(a.key.Trace)
	}
	if a.key.Kind == KindRun {
		return
	}
	sh := s.shardOf(a.key)
	sh.mu.Lock()
	if sh.arts[a.key] == a {
		delete(sh.arts, a.key)
	}
	sh.mu.Unlock()
	if a.key.Kind == KindConversation {
		for tid := range a.traces {
			ts := s.shardOfTrace(tid)
			ts.mu.Lock()
			if c, ok := ts.convOf[tid]; ok && ConversationKey(c) == a.key {
				delete(ts.convOf, tid)
			}
			ts.mu.Unlock()
		}
	}
}

// MaxTrackedPaths is how many artifact paths Paths remembers: the most
// recently written. A path is some tens of bytes; 16,384 of them bound
// what Options.TrackPaths costs however many traces a process writes.
const MaxTrackedPaths = 1 << 14

func newPathSet() *simplelru.LRU[string, struct{}] {
	l, _ := simplelru.NewLRU[string, struct{}](MaxTrackedPaths, nil)
	return l
}

func (s *Store) addPath(p string) {
	s.pathsMu.Lock()
	s.paths.Add(p, struct{}{})
	s.pathsMu.Unlock()
}

// Paths returns the paths of the artifacts written so far, sorted (with
// Options.TrackPaths): the MaxTrackedPaths most recently written.
func (s *Store) Paths() []string {
	s.pathsMu.Lock()
	defer s.pathsMu.Unlock()
	out := s.paths.Keys()
	slices.Sort(out)
	return out
}

// Write writes recs, each to its artifact, skipping spans an artifact
// already holds. Records of one artifact are written whole or not at all
// (what a failed write left is cut back off the file) and counted only
// once written. Artifacts are written on every core, and a large group of
// one artifact's records is encoded on every core while its lines are
// appended in order. When some artifacts fail, the others are still
// written and the error is a *WriteError holding the records not written;
// after Close it is ErrClosed. A folder store drops spans without a trace
// id that no conversation or attribute routes (see ErrNoTraceID).
func (s *Store) Write(recs []artifact.Record) error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if len(recs) == 0 {
		return nil
	}
	defer s.releaseAfterWrite(recs) // log records held for these traces follow their spans
	if s.opts.Redactor != nil {
		redactOrigins(s.opts.Redactor, recs)
	}
	prep := s.pending()
	if s.run == nil && s.opts.Route == ByConversation {
		// Routing reads the spans' conversation ids.
		prep = prep.now(recs)
	}
	rt := routings.Get().(*routing)
	defer rt.release()
	groups, err := s.route(rt, recs)
	if err != nil {
		return err
	}
	gerrs := rt.errors(len(groups))
	if w := groupWorkers(groups, len(recs)); w > 1 {
		// Artifacts on every core, each whole (encoded, created, written)
		// by one goroutine. (Creating the files from one goroutine while
		// the others only encode, as a pipeline in group order, measured
		// slower: the file system work then bounds the batch.)
		var next atomic.Int64
		parallel(w, func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(groups) {
					return
				}
				gerrs[i] = s.writeGroup(groups[i].key, groups[i].recs, prep, true)
			}
		})
	} else {
		for i := range groups {
			gerrs[i] = s.writeGroup(groups[i].key, groups[i].recs, prep, true)
		}
	}
	var errs []error
	var failed []artifact.Record
	for i, err := range gerrs {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", groups[i].key, err))
			failed = append(failed, groups[i].recs...)
		}
	}
	if errs == nil {
		return nil
	}
	return &WriteError{Failed: failed, Err: errors.Join(errs...)}
}

// writeGroup writes recs to the artifact of k, finalizing it when its root
// ended and the store finalizes at once.
func (s *Store) writeGroup(k Key, recs []artifact.Record, prep prepare, evict bool) error {
	if k.Kind == KindTrace && k.Trace.IsEmpty() {
		s.hooks.dropped(int64(len(recs)))
		s.handle(fmt.Errorf("%w: %d spans dropped", ErrNoTraceID, len(recs)))
		return nil
	}
	if evict {
		defer s.closeEvicted()
	}
	a := s.lockLive(k)
	a.hold = holdWrite
	root, err := s.writeLocked(a, recs, prep)
	if err == nil {
		err = s.afterWrite(a, root, s.opts.Fsync == FsyncTurn && TurnEnds(recs))
	}
	if err == nil {
		s.shed(a)
	}
	s.settleFile(a)
	a.mu.Unlock()
	return err
}

// lockLive returns the live artifact of k, locked, its last write
// stamped now. One gone meanwhile (finalized, evicted, or folded into its
// conversation) is looked up again: under its conversation's key when
// the store routes by conversation and has learned the trace's.
func (s *Store) lockLive(k Key) *runFile {
	for {
		a := s.get(k)
		a.mu.Lock()
		if !a.gone() {
			a.lastWrite.Store(time.Now().UnixNano())
			return a
		}
		a.mu.Unlock()
		if k.Kind == KindTrace && s.opts.Route == ByConversation {
			if c, ok := s.convOf(k.Trace); ok {
				k = ConversationKey(c)
			}
		}
	}
}

// afterWrite applies the sync, finalization and rotation policies to a,
// just written. a.mu is held.
//
// The records are written and counted by now, so a rotation or
// finalization that fails (no room for the trailer) is not theirs: it goes
// to Options.OnError, never back to the caller as failed records (which a
// caller would retry into the next rotated file, or count as dropped while
// they are in the file). The artifact stays live with its span ids, and a
// later write, the finalizer or Close finishes it. Only FsyncAlways's sync
// fails the Write: its records stay remembered, so the retry writes
// nothing twice and syncs again; so does FsyncTurn's, for a turn that
// ended in recs.
func (s *Store) afterWrite(a *runFile, root, turn bool) error {
	if s.rotateDue(a) {
		if err := s.rotate(a); err != nil {
			s.handle(fmt.Errorf("rotate %s: %w", a.path, err))
		}
		return nil
	}
	switch {
	case (root || s.finalizesAgain(a)) && a.key.Kind != KindRun && s.opts.FinalizeAfter == 0:
		// A root just written, or a late span of a trace whose root
		// ended (its trailer went out with it): finalized again, as a
		// late log record is (appendLogs).
		if err := s.finalizeLocked(a, false, nil); err != nil {
			s.handle(fmt.Errorf("finalize %s: %w", a.path, err))
		}
		return nil
	case s.opts.Fsync == FsyncAlways, turn,
		root && a.key.Kind == KindRun && (s.opts.Fsync == FsyncTraceEnd || s.opts.Fsync == FsyncTurn):
		return s.sync(a)
	}
	return nil
}

// rotate finalizes a, renames its file to <name>.R<unix ns>.jsonl and
// forgets it: the next record starts a new file under its name. No value
// names a file so (plain names hold no upper case; hashed ones end in hex
// digits). a.mu is held, and stays held until the file is out of the way,
// so that no writer adopts it meanwhile. The trailer is on disk (and, but
// with FsyncNever, synced) before the rename: a rotated file always has
// one. When it cannot be written (a full disk), the file keeps its name and
// a stays live: a later write rotates it, or finalization gives it its
// trailer.
func (s *Store) rotate(a *runFile) error {
	ferr := s.finalizeLocked(a, true, nil)
	if !a.trailerLast() {
		return ferr
	}
	errs := []error{ferr, s.closeFile(a)}
	to := strings.TrimSuffix(a.path, Ext) + ".R" + strconv.FormatInt(time.Now().UnixNano(), 10) + Ext
	if err := os.Rename(a.path, to); err != nil {
		errs = append(errs, fmt.Errorf("rotate %s: %w", a.path, err))
		to = a.path
	} else if s.opts.TrackPaths {
		s.addPath(to)
	}
	a.to(stGone)
	s.forget(a)
	s.hooks.finalized(to)
	return errors.Join(errs...)
}
