package store

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
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

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Route says which artifact of a folder a record goes to.
type Route uint8

const (
	// ByTrace gives every trace its own artifact (the default).
	ByTrace Route = iota
	// ByConversation gives every gen_ai.conversation.id its own artifact;
	// a trace that never names one is its own.
	ByConversation
	// ByAttribute gives every value of a resource attribute its own
	// artifact; records whose resource lacks it go by trace.
	ByAttribute
)

// Fsync says when artifact data is forced to disk.
type Fsync uint8

const (
	// FsyncTraceEnd syncs an artifact when it is finalized, and on Flush
	// (and a single artifact when a local root span ends). The default.
	FsyncTraceEnd Fsync = iota
	// FsyncAlways syncs every artifact a Write wrote to before it returns.
	FsyncAlways
	// FsyncNever leaves syncing to the operating system.
	FsyncNever
	// FsyncTurn syncs as FsyncTraceEnd does, and also every artifact a
	// Write wrote the end of a turn to, before it returns (see TurnEnds):
	// an OS crash or power cut then loses at most the turn in progress,
	// not every turn of a long session. The SDK processor's default.
	FsyncTurn
)

// DefaultMaxOpenFiles bounds the files a folder store holds open when
// Options.MaxOpenFiles is 0.
const DefaultMaxOpenFiles = 128

// DefaultOrphanFactor: an artifact whose root span never arrived is
// finalized after this many FinalizeAfter of idleness, so state for traces
// that lost their root stays bounded.
const DefaultOrphanFactor = 10

// SharedFolderIdle is the RecoverIdle of a folder other processes may
// write to at the same time (the SDK processors of several agents, serve
// --otlp beside them): far longer than any write takes, short enough that
// a restart repairs what a crash left within seconds.
const SharedFolderIdle = 2 * time.Second

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

// Options configure a Store. Exactly one of Dir, Path and Writer is set.
type Options struct {
	// Dir holds one artifact per key (see Route and FileName). It is
	// created when missing.
	Dir string
	// Path is the one artifact of the whole run; an artifact already there
	// is continued (one header, its records counted in the trailer).
	Path string
	// Writer receives the one artifact of the whole run. The store never
	// closes it. A write it fails part-way is finished before anything
	// else is written (see the package documentation).
	Writer io.Writer

	// Route and Attribute (for ByAttribute) say which artifact of Dir a
	// record goes to.
	Route     Route
	Attribute string
	// MaxOpenFiles bounds the files held open at once (default
	// DefaultMaxOpenFiles); the least recently used closes first and
	// reopens when written to again.
	MaxOpenFiles int
	// Fsync says when data is synced (default FsyncTraceEnd).
	Fsync Fsync
	// RecordCap caps the records of one artifact; spans past it are
	// counted in the trailer as dropped (their usage still counts). 0 is
	// no cap.
	RecordCap int64
	// Header is what headers take from the writer (budget, redaction).
	Header HeaderOptions
	// FinalizeAfter is how long an artifact of Dir whose local root span
	// has ended stays idle before it is finalized (trailer written, file
	// closed); 0 finalizes it as soon as the root is written, and leaves
	// artifacts without one to Close. OrphanAfter (default
	// DefaultOrphanFactor × FinalizeAfter) finalizes one whose root never
	// came.
	FinalizeAfter time.Duration
	OrphanAfter   time.Duration
	// RotateBytes rotates the artifacts of resource attribute values
	// (ByAttribute), which would otherwise live as long as traffic goes
	// on: one whose file reaches this size is finalized and renamed to
	// <name>.R<unix ns>.jsonl, and the next record starts a new one under
	// its name. 0 never rotates.
	RotateBytes int64
	// RotateAfter rotates them by age as RotateBytes does by size: one
	// written to for this long since the store first wrote to it is
	// finalized and renamed on its next write, so that each file gets its
	// trailer while traffic goes on (an idle one is finalized as any
	// other). 0 never rotates by age.
	RotateAfter time.Duration
	// Recover finishes, in the background from New on, what a process
	// that stopped without finalizing (a crash, a kill) left in Dir: every
	// artifact without a trailer is taken back as if last written at its
	// file's modification time, and finalized by the usual rules (root
	// ended and FinalizeAfter passed, OrphanAfter, Close). A file that
	// cannot be continued is set aside. A rotated file left without a
	// trailer (see RotateBytes) gets one at once. With FinalizeAfter 0
	// (no finalizer), every artifact taken back is finalized at once.
	Recover bool
	// RecoverIdle, with Recover, leaves a file modified less than this
	// long ago alone until it is that old: when processes share a folder
	// (one SDK processor per agent process), a file may be another's,
	// live, and the line it is writing is no torn one to cut off. 0 takes
	// every file at once (a folder of one process's own, the collector's).
	RecoverIdle time.Duration
	// TrackPaths keeps the paths of the artifacts written, for Paths: the
	// MaxTrackedPaths most recently written, so that a long-running
	// process with one artifact per trace does not grow by a path per trace.
	TrackPaths bool
	// Hooks hear what the store does, for self-telemetry.
	Hooks Hooks
	// MaxHeldLogs bounds the log records held for traces whose artifact
	// does not exist yet (default DefaultMaxHeldLogs); HoldLogs is the
	// longest one is held (default FinalizeAfter; 0 with it: until its
	// spans, the bound or Close); LogHooks count log records. See
	// WriteLogs.
	MaxHeldLogs int
	HoldLogs    time.Duration
	LogHooks    LogHooks
	// OnError hears errors of the background finalizer; nil drops them.
	OnError func(error)
	// Prepare, when set, is called on every record a Write writes, once,
	// before the store reads more of its span than its ids (a record
	// skipped as already written may go without), from as many goroutines
	// as encode the records: the collector exporter redacts there, so that
	// the secret scan shares the cores with encoding and each span is
	// encoded while it is still in the cache. It may change the span only
	// (records share their resource and scope), and must be safe for
	// concurrent use on different spans.
	Prepare func(rec *converter.Record)
	// Redactor, when it can change anything, redacts every record the
	// store writes, spans and log records, before anything reads them,
	// and the header says so (useRedactor); writers pass theirs here.
	Redactor *redact.Redactor
}

func (o *Options) trackPaths() bool { return o.TrackPaths }

// Hooks are called as the store works; any may be nil. They must be quick
// and safe for concurrent use.
type Hooks struct {
	// Written, Dropped (past the record cap, or a failed write) and
	// Duplicates (already in their artifact) count spans.
	Written, Dropped, Duplicates func(n int64)
	// Opened is an artifact created or adopted; Finalized one finalized.
	Opened, Finalized func()
	// OpenFiles is the change in files held open.
	OpenFiles func(delta int64)
	// SetAside is a file that could not be continued, renamed from to to.
	SetAside func(from, to string, why error)
	// Repaired is a file continued after cutting cut bytes off its end: a
	// torn last line a crash left, whose record was never counted.
	Repaired func(path string, cut int64)
}

func (h *Hooks) written(n int64) {
	if n != 0 && h.Written != nil {
		h.Written(n)
	}
}

func (h *Hooks) dropped(n int64) {
	if n != 0 && h.Dropped != nil {
		h.Dropped(n)
	}
}

func (h *Hooks) duplicates(n int64) {
	if n != 0 && h.Duplicates != nil {
		h.Duplicates(n)
	}
}

func (h *Hooks) opened() {
	if h.Opened != nil {
		h.Opened()
	}
}

func (h *Hooks) finalized() {
	if h.Finalized != nil {
		h.Finalized()
	}
}

func (h *Hooks) openFiles(d int64) {
	if h.OpenFiles != nil {
		h.OpenFiles(d)
	}
}

func (h *Hooks) setAside(from, to string, why error) {
	if h.SetAside != nil {
		h.SetAside(from, to, why)
	}
}

func (h *Hooks) repaired(path string, cut int64) {
	if h.Repaired != nil {
		h.Repaired(path, cut)
	}
}

// WriteError is what Write returns when some records could not be
// written: the records of the artifacts that failed (the others were
// written), for a caller that retries only those.
type WriteError struct {
	Failed []converter.Record
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
	arts   map[Key]*artifact
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

	dir string // opts.Dir, cleaned

	shards [nShards]shard
	files  *openFiles
	nOpen  atomic.Int64
	drops  dropTable
	run    *artifact // the artifact of Path or Writer

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
	for i := range s.shards {
		s.shards[i].arts = make(map[Key]*artifact)
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
		s.run = &artifact{key: Key{Kind: KindRun}, path: opts.Path}
		if opts.TrackPaths {
			s.addPath(opts.Path)
		}
	default:
		s.run = &artifact{key: Key{Kind: KindRun}, w: opts.Writer}
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
func (s *Store) get(k Key) *artifact {
	if s.run != nil {
		return s.run
	}
	sh := s.shardOf(k)
	sh.mu.Lock()
	a := sh.arts[k]
	if a == nil {
		a = &artifact{key: k, path: s.pathOf(k)}
		sh.arts[k] = a
	}
	sh.mu.Unlock()
	return a
}

// lookup returns the artifact of k, or nil.
func (s *Store) lookup(k Key) *artifact {
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
func (s *Store) forget(a *artifact) {
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

// group is the records of one artifact in one Write.
type group struct {
	key  Key
	recs []converter.Record
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
func (s *Store) Write(recs []converter.Record) error {
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
	prep := s.opts.Prepare
	if prep != nil && s.run == nil && s.opts.Route == ByConversation {
		// Routing reads the spans' conversation ids.
		prepareAll(recs, prep)
		prep = nil
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
	var failed []converter.Record
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
func (s *Store) writeGroup(k Key, recs []converter.Record, prep func(*converter.Record), evict bool) error {
	if k.Kind == KindTrace && k.Trace.IsEmpty() {
		s.hooks.dropped(int64(len(recs)))
		s.handle(fmt.Errorf("%w: %d spans dropped", ErrNoTraceID, len(recs)))
		return nil
	}
	if evict {
		defer s.closeEvicted()
	}
	for {
		a := s.get(k)
		a.mu.Lock()
		if a.gone {
			a.mu.Unlock()
			if k.Kind == KindTrace && s.opts.Route == ByConversation {
				if c, ok := s.convOf(k.Trace); ok {
					k = ConversationKey(c)
				}
			}
			continue
		}
		a.lastWrite.Store(time.Now().UnixNano())
		a.lruLater = true
		root, err := s.writeLocked(a, recs, prep)
		if err == nil {
			err = s.afterWrite(a, root, s.opts.Fsync == FsyncTurn && TurnEnds(recs))
		}
		s.settleFile(a)
		a.mu.Unlock()
		return err
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
func (s *Store) afterWrite(a *artifact, root, turn bool) error {
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
func (s *Store) rotate(a *artifact) error {
	ferr := s.finalizeLocked(a, true, nil)
	if !a.trailerLast {
		return ferr
	}
	errs := []error{ferr, s.closeFile(a)}
	to := strings.TrimSuffix(a.path, Ext) + ".R" + strconv.FormatInt(time.Now().UnixNano(), 10) + Ext
	if err := os.Rename(a.path, to); err != nil {
		errs = append(errs, fmt.Errorf("rotate %s: %w", a.path, err))
	} else if s.opts.TrackPaths {
		s.addPath(to)
	}
	a.gone = true
	s.forget(a)
	s.hooks.finalized()
	return errors.Join(errs...)
}

func (s *Store) convOf(tid pcommon.TraceID) (string, bool) {
	sh := s.shardOfTrace(tid)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c, ok := sh.convOf[tid]
	return c, ok
}

// routing is a Write's scratch, kept for the next one: its groups, where
// each starts in the batch, and their errors. With one artifact per trace a
// batch of 100 traces made all three afresh, doubling as they grew: about
// a tenth of what the store allocated per trace.
type routing struct {
	groups []group
	starts []int32
	errs   []error
	idx    map[Key]int // each group's index, once there are two
}

var routings = sync.Pool{New: func() any { return new(routing) }}

// maxPooledGroups caps the groups a pooled routing keeps room for, so that
// one huge batch does not pin its worth of memory.
const maxPooledGroups = 4096

// errors returns n nil errors.
func (rt *routing) errors(n int) []error {
	if cap(rt.errs) < n {
		rt.errs = make([]error, n)
	}
	rt.errs = rt.errs[:n]
	return rt.errs
}

// release returns rt to the pool, holding nothing of the batch.
func (rt *routing) release() {
	if cap(rt.groups) > maxPooledGroups || cap(rt.errs) > maxPooledGroups || len(rt.idx) > maxPooledGroups {
		return
	}
	clear(rt.groups)
	clear(rt.errs)
	clear(rt.idx)
	rt.groups, rt.starts, rt.errs = rt.groups[:0], rt.starts[:0], rt.errs[:0]
	routings.Put(rt)
}

// route groups recs by artifact, in order of first appearance, into rt.
func (s *Store) route(rt *routing, recs []converter.Record) ([]group, error) {
	if s.run != nil {
		rt.groups = append(rt.groups[:0], group{key: Key{Kind: KindRun}, recs: recs})
		return rt.groups, nil
	}
	var convs map[pcommon.TraceID]string
	if s.opts.Route == ByConversation {
		var err error
		if convs, err = s.conversations(recs); err != nil {
			return nil, err
		}
	}
	return rt.group(recs, s.opts.Route, s.opts.Attribute, convs), nil
}

// groupRecords groups recs by artifact (see routing.group).
func groupRecords(recs []converter.Record, route Route, attr string, convs map[pcommon.TraceID]string) []group {
	return new(routing).group(recs, route, attr, convs)
}

// group groups recs by artifact, in order of first appearance, into
// rt.groups.
// Neighbours mostly share an artifact (a trace's spans, a resource's), so
// a record whose resource (by attribute) or trace (otherwise) is its
// predecessor's joins its group without computing its key. While every
// group is one run of recs (a batch in trace order, the usual case, and a
// batch of one artifact), the groups are slices of recs, not a copy; only
// a batch that comes back to an earlier group is copied, each group a run
// of one copy.
func (rt *routing) group(recs []converter.Record, route Route, attr string, convs map[pcommon.TraceID]string) []group {
	groups := rt.groups[:0]
	starts := rt.starts[:0] // while runs: where each group starts in recs
	defer func() { rt.groups, rt.starts = groups, starts }()
	idx := rt.idx  // empty; nil until a Write has two groups
	var of []int32 // each record's group, once a group comes back
	j := -1
	for i := range recs {
		rec := &recs[i]
		if i == 0 || !sameArtifact(&recs[i-1], rec, route, groups[j].key.Kind) {
			k := keyOf(rec, route, attr, convs)
			switch {
			case j >= 0 && groups[j].key == k:
			case len(groups) == 0:
				groups = append(groups, group{key: k})
				starts = append(starts, 0)
				j = 0
			default:
				if len(idx) == 0 {
					if idx == nil {
						idx = make(map[Key]int, 8)
						rt.idx = idx
					}
					idx[groups[0].key] = 0
				}
				var ok bool
				if j, ok = idx[k]; !ok {
					j = len(groups)
					idx[k] = j
					groups = append(groups, group{key: k})
					starts = append(starts, int32(i))
				} else if of == nil {
					// recs[:i] are runs of the groups so far.
					of = make([]int32, len(recs))
					for g := range starts {
						end := int32(i)
						if g+1 < len(starts) {
							end = starts[g+1]
						}
						for x := starts[g]; x < end; x++ {
							of[x] = int32(g)
						}
					}
				}
			}
		}
		if of != nil {
			of[i] = int32(j)
		}
	}
	if of == nil {
		for g := range groups {
			end := len(recs)
			if g+1 < len(starts) {
				end = int(starts[g+1])
			}
			groups[g].recs = recs[starts[g]:end:end]
		}
		return groups
	}
	// Each group a run of one copy of recs, in order.
	end := make([]int, len(groups))
	for _, g := range of {
		end[g]++
	}
	n := 0
	for g := range end {
		n += end[g]
		end[g] = n - end[g] // its start, for now
	}
	out := make([]converter.Record, len(recs))
	for i, g := range of {
		out[end[g]] = recs[i]
		end[g]++
	}
	start := 0
	for g := range groups {
		groups[g].recs = out[start:end[g]:end[g]]
		start = end[g]
	}
	return groups
}

// sameArtifact reports whether b surely goes where a, of an artifact of
// kind, goes, when that is cheap to tell: the same resource (by attribute,
// when it has the attribute), the same trace (by trace or conversation,
// which maps a trace to one conversation; by attribute with the same
// resource).
func sameArtifact(a, b *converter.Record, route Route, kind Kind) bool {
	if route == ByAttribute && kind == KindAttribute && a.Resource == b.Resource {
		return true
	}
	return a.Span.TraceID() == b.Span.TraceID() && (route != ByAttribute || a.Resource == b.Resource)
}

// conversations returns the conversation of every trace of recs that has
// one: the one it was first seen to name, in an earlier Write or, first
// in recs, in this one. A trace that names its conversation only now, and
// whose earlier records went to an artifact of its own, has that artifact
// folded into its conversation's: one trace, one file.
func (s *Store) conversations(recs []converter.Record) (map[pcommon.TraceID]string, error) {
	convs := make(map[pcommon.TraceID]string)
	var fresh []pcommon.TraceID
	var rd semconv.Reading
	checked := make(map[pcommon.TraceID]bool)
	for i := range recs {
		tid := recs[i].Span.TraceID()
		if _, ok := convs[tid]; ok {
			continue
		}
		if !checked[tid] {
			checked[tid] = true
			if c, ok := s.convOf(tid); ok {
				convs[tid] = c
				continue
			}
		}
		recs[i].Read(&rd)
		c := rd.Str(semconv.FieldConversationID)
		if c == "" {
			continue
		}
		sh := s.shardOfTrace(tid)
		sh.mu.Lock()
		if prev, ok := sh.convOf[tid]; ok {
			c = prev // another Write named it first
		} else {
			if sh.convOf == nil {
				sh.convOf = make(map[pcommon.TraceID]string)
			}
			sh.convOf[tid] = c
			fresh = append(fresh, tid)
		}
		sh.mu.Unlock()
		convs[tid] = c
	}
	var errs []error
	for _, tid := range fresh {
		if err := s.fold(tid, ConversationKey(convs[tid])); err != nil {
			errs = append(errs, err)
		}
	}
	return convs, errors.Join(errs...)
}

// fold moves the artifact trace tid wrote before it named its
// conversation into the conversation's artifact, and removes its file.
func (s *Store) fold(tid pcommon.TraceID, conv Key) error {
	tk := TraceKey(tid)
	path := s.pathOf(tk)
	ta := s.lookup(tk)
	if ta == nil {
		if _, err := os.Stat(path); err != nil {
			return nil // nothing written for it
		}
		ta = s.get(tk)
	}
	defer s.closeEvicted()
	ta.mu.Lock()
	defer ta.mu.Unlock()
	if ta.gone {
		// Finalized meanwhile: its file is what remains.
		ta = &artifact{key: tk, path: path}
	}
	if err := s.closeFile(ta); err != nil {
		return err
	}
	recs, meta, dropped, err := readArtifact(path)
	if err != nil {
		return fmt.Errorf("fold %s into %s: %w", path, conv, err)
	}
	if ta.meta != nil && meta != nil {
		// Records read back under the header get its resource and scope,
		// with the budget and redaction the header says put back in; the
		// header was made from the spans' own: give them back.
		for i := range recs {
			if recs[i].Resource.Attributes().Equal(meta.Resource.Attributes()) {
				recs[i].Resource = ta.meta.Resource
			}
		}
	}
	if dropped > 0 {
		s.drops.add(tid, dropped, dropUsage{})
	}
	if len(recs) > 0 {
		if err := s.writeGroup(conv, recs, nil, false); err != nil {
			return fmt.Errorf("fold %s into %s: %w", path, conv, err)
		}
	}
	if err := s.foldLogs(path, conv); err != nil {
		return fmt.Errorf("fold %s into %s: %w", path, conv, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("fold %s into %s: %w", path, conv, err)
	}
	if s.opts.TrackPaths {
		s.pathsMu.Lock()
		s.paths.Remove(path)
		s.pathsMu.Unlock()
	}
	ta.gone = true
	s.forget(ta)
	return nil
}

// readArtifact reads the records of the artifact at path, its header and
// the drops its last trailer counted; nothing when there is no file.
func readArtifact(path string) ([]converter.Record, *converter.Meta, int64, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, 0, nil
	}
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	r := converter.NewReader(f, converter.WithSource(path))
	var recs []converter.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, 0, err
		}
		recs = append(recs, *rec)
	}
	var dropped int64
	if sum := r.Summary(); sum != nil {
		dropped = sum.Dropped
	}
	return recs, r.Meta(), dropped, nil
}

// Drop counts n spans of trace tid that were dropped before the store saw
// them (a full queue, a failed write), with u, their usage when it was
// read, and c, the cost of their model calls priced as they dropped (each
// call, known or unpriced, counted as [pricing.Total.Add] does; the zero
// Total when none was priced): the trailer of the trace's artifact counts
// them, its spent_usd as if they had been written and an unpriced one in
// unpriced_calls, so a cost budget is judged on every call made, not only
// those written; a trace with nothing but drops gets an artifact at Close
// that says so.
func (s *Store) Drop(tid pcommon.TraceID, n int64, u semconv.Usage, c pricing.Total) {
	if tid.IsEmpty() && s.run == nil {
		return // no artifact of a folder can say so (see ErrNoTraceID)
	}
	s.drops.add(tid, n, dropUsage{usage: u, cost: c})
}

// Flush syncs every artifact written since its last sync (unless the
// policy is never).
func (s *Store) Flush() error {
	var errs []error
	each := func(a *artifact) {
		a.mu.Lock()
		if !a.gone {
			errs = append(errs, s.sync(a))
		}
		a.mu.Unlock()
	}
	if s.run != nil {
		each(s.run)
	}
	for _, a := range s.snapshot() {
		each(a)
	}
	return errors.Join(errs...)
}

// snapshot returns every artifact in the tables now.
func (s *Store) snapshot() []*artifact {
	var out []*artifact
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, a := range sh.arts {
			out = append(out, a)
		}
		sh.mu.Unlock()
	}
	return out
}

// finalizeLoop finalizes idle artifacts until Close.
func (s *Store) finalizeLoop() {
	defer s.wg.Done()
	every := min(max(s.opts.FinalizeAfter/4, 5*time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.finalizeIdle(now)
		}
	}
}

// finalizeIdle finalizes the artifacts whose root ended and that stayed
// idle for FinalizeAfter, and those idle for OrphanAfter.
func (s *Store) finalizeIdle(now time.Time) {
	due := func(a *artifact) bool {
		idle := time.Duration(now.UnixNano() - a.lastWrite.Load())
		return (a.rootEnded.Load() && idle >= s.opts.FinalizeAfter) || idle >= s.opts.OrphanAfter
	}
	for _, a := range s.snapshot() {
		if !due(a) {
			continue
		}
		a.mu.Lock()
		if !a.gone && due(a) {
			if err := s.finalizeLocked(a, false, nil); err != nil {
				s.handle(fmt.Errorf("finalize %s: %w", a.path, err))
			}
		}
		a.mu.Unlock()
	}
	s.closeEvicted()
}

// Close stops the finalizer, writes every artifact's trailer (and one for
// each trace that has nothing but drops), syncs and closes every file, and
// returns what failed. Later Writes return ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
	heldErr := s.flushHeld() // nothing held is lost
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	errs := []error{heldErr}
	if s.run != nil {
		a := s.run
		a.mu.Lock()
		errs = append(errs, s.finalizeLocked(a, true, nil), s.closeFile(a))
		a.mu.Unlock()
		return errors.Join(errs...)
	}
	for _, tid := range s.drops.traces() {
		k := TraceKey(tid)
		if c, ok := s.convOf(tid); ok {
			k = ConversationKey(c)
		}
		s.get(k)
	}
	var later []string
	for _, a := range s.snapshot() {
		a.mu.Lock()
		if !a.gone {
			errs = append(errs, s.finalizeLocked(a, false, &later))
		}
		a.mu.Unlock()
	}
	s.closeEvicted()
	errs = append(errs, syncFiles(s.opts.Dir, later))
	return errors.Join(errs...)
}

// OpenFiles returns the number of artifact files open now.
func (s *Store) OpenFiles() int { return int(s.nOpen.Load()) }

// Active returns the number of artifacts in memory (written to and not
// finalized).
func (s *Store) Active() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.arts)
		sh.mu.Unlock()
	}
	return n
}

// IsActive reports whether the artifact of k is in memory: written to and
// not finalized.
func (s *Store) IsActive(k Key) bool { return s.lookup(k) != nil }
