package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of [KeeperOptions].
const (
	DefaultFlushEvery   = 2 * time.Second
	DefaultMaxPending   = 100_000
	DefaultCompactAfter = 16
)

// KeeperOptions configure a [Keeper].
type KeeperOptions struct {
	// Retention bounds the folder (none by default).
	Retention Retention
	// Writer bounds the catalog's files.
	Writer WriterOptions
	// FlushEvery is the longest a row waits before its file is written
	// (default DefaultFlushEvery): rows are written in batches, not a
	// file per run.
	FlushEvery time.Duration
	// MaxPending bounds the finalized artifacts waiting for their row
	// (default DefaultMaxPending); past it, Finalized drops them, counted
	// in KeeperStats.Dropped (agenttrace catalog build makes their rows).
	MaxPending int
	// CompactAfter is how many flushes the Keeper makes before it
	// compacts the catalog (default DefaultCompactAfter), so that a day's
	// files stay few: a query opens every file of a day.
	CompactAfter int
	// OnError hears what the Keeper could not do (an artifact it could
	// not read, a file it could not write); nil drops it.
	OnError func(error)
}

// KeeperStats count what a Keeper did.
type KeeperStats struct {
	// Rows counts the rows made (written, or buffered to be, tombstones
	// included); Removed the runs retention removed.
	Rows, Removed int64
	// Dropped counts the finalized artifacts left without a row because
	// the queue was full; Failed those that could not be read.
	Dropped, Failed int64
}

// A Keeper keeps the catalog of a store's folder as the store finalizes
// its artifacts, and applies the folder's retention. Its Finalized is
// the store's Hooks.Finalized: it only queues the path, and a goroutine
// started by Start reads the artifact, writes rows in batches
// (FlushEvery) and removes what retention says, so the store's writers
// never wait for it.
//
//	k := catalog.NewKeeper(dir, opts)
//	st, _ := store.New(store.Options{Dir: dir, Hooks: store.Hooks{Finalized: k.Finalized}})
//	k.Start(remove) // remove: how a finalized artifact is taken away
//	...
//	st.Close()      // finalizes what is open: its rows are queued
//	k.Close(ctx)    // writes them
//
// At Start it also catches up with the folder: artifacts finalized while
// no Keeper ran get their rows, and rows of artifacts gone get
// tombstones.
type Keeper struct {
	dir  string
	opts KeeperOptions

	mu      sync.Mutex
	pending map[string]struct{}
	order   []string
	closed  bool

	wake   chan struct{}
	syncs  chan chan struct{}
	stop   chan struct{}
	exited chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	start  sync.Once

	// The goroutine's own.
	w        *Writer
	f        *folder
	remove   func(path string) (bool, error)
	buffered time.Time // when the oldest unwritten row was added
	flushes  int       // since the last compaction

	rows, removed, dropped, failed atomic.Int64
}

// NewKeeper returns a Keeper of the folder dir; it does nothing but queue
// until Start.
func NewKeeper(dir string, opts KeeperOptions) *Keeper {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = DefaultFlushEvery
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	if opts.CompactAfter <= 0 {
		opts.CompactAfter = DefaultCompactAfter
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Keeper{
		dir: filepath.Clean(dir), opts: opts, pending: map[string]struct{}{},
		wake: make(chan struct{}, 1), syncs: make(chan chan struct{}), stop: make(chan struct{}), exited: make(chan struct{}),
		ctx: ctx, cancel: cancel, w: NewWriter(Dir(dir), opts.Writer), f: newFolder(),
	}
}

// Finalized queues the artifact at path for its row. It never blocks; it
// is store.Hooks.Finalized.
func (k *Keeper) Finalized(path string) {
	k.mu.Lock()
	switch _, dup := k.pending[path]; {
	case k.closed:
		k.dropped.Add(1)
	case dup:
	case len(k.pending) >= k.opts.MaxPending:
		k.dropped.Add(1)
	default:
		k.pending[path] = struct{}{}
		k.order = append(k.order, path)
	}
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// Start starts the Keeper's goroutine. remove takes a finalized artifact
// away for retention, reporting false when it must stay (a late record
// is writing to it again: it will be finalized again); nil removes the
// file. With a store, remove is store.Take followed by removing the
// taken file, so that no writer adopts a file being removed.
func (k *Keeper) Start(remove func(path string) (bool, error)) {
	k.start.Do(func() {
		if remove == nil {
			remove = removeFile
		}
		k.remove = remove
		go k.run()
	})
}

// TakeAndRemove is the remove of [Keeper.Start] for a store's folder:
// take is the store's Take (which moves a finalized artifact out of its
// way under the artifact's lock, unless a late record is writing to it),
// and the taken file is removed.
func TakeAndRemove(take func(path string) (string, bool, error)) func(path string) (bool, error) {
	return func(path string) (bool, error) {
		taken, ok, err := take(path)
		if err != nil || !ok {
			return false, err
		}
		return removeFile(taken)
	}
}

func removeFile(path string) (bool, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// Sync waits until every artifact queued so far has its row written and
// retention has been applied.
func (k *Keeper) Sync(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case k.syncs <- done:
	case <-k.exited:
		return errors.New("catalog: keeper closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes the rows of what is queued and stops the Keeper. When ctx
// ends first, it abandons them (catalog build makes them) and returns
// ctx's error once the goroutine has stopped. Call it after the store's
// Close, which finalizes what was open. A nil Keeper closes as nothing.
func (k *Keeper) Close(ctx context.Context) error {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	started := true
	k.start.Do(func() { started = false }) // never started: nothing runs
	if !started {
		k.cancel()
		return nil
	}
	k.once.Do(func() { close(k.stop) })
	select {
	case <-k.exited:
		return nil
	case <-ctx.Done():
		k.cancel()
		<-k.exited
		return ctx.Err()
	}
}

// Stats returns what the Keeper did so far.
func (k *Keeper) Stats() KeeperStats {
	return KeeperStats{Rows: k.rows.Load(), Removed: k.removed.Load(), Dropped: k.dropped.Load(), Failed: k.failed.Load()}
}

func (k *Keeper) fail(err error) {
	if k.opts.OnError != nil {
		k.opts.OnError(err)
	}
}

func (k *Keeper) run() {
	defer close(k.exited)
	defer k.cancel()
	ctx := k.ctx
	k.catchUp(ctx)
	tick := time.NewTicker(k.opts.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-k.wake:
			k.step(ctx, false)
		case <-tick.C:
			k.step(ctx, false)
		case done := <-k.syncs:
			k.step(ctx, true)
			close(done)
		case <-k.stop:
			k.step(ctx, true)
			return
		case <-ctx.Done():
			return
		}
	}
}

// step writes the rows of what is queued (the file when due, or now),
// and applies retention.
func (k *Keeper) step(ctx context.Context, now bool) {
	for {
		k.mu.Lock()
		paths := k.order
		k.order = nil
		clear(k.pending)
		k.mu.Unlock()
		if len(paths) == 0 {
			break
		}
		for _, p := range paths {
			if ctx.Err() != nil {
				return
			}
			k.add(ctx, p)
		}
	}
	if k.w.Buffered() > 0 && (now || time.Since(k.buffered) >= k.opts.FlushEvery) {
		k.flush(ctx)
	}
	k.enforce(ctx)
}

// add makes and buffers the row of the artifact at path.
func (k *Keeper) add(ctx context.Context, path string) {
	name, ok := k.nameOf(path)
	if !ok {
		return
	}
	row, err := FileRow(k.dir, name)
	if errors.Is(err, fs.ErrNotExist) {
		k.f.forget(name) // taken away since (a publisher, retention)
		return
	}
	if err != nil {
		k.failed.Add(1)
		k.fail(err)
		return
	}
	k.buffer(ctx, row)
	k.f.track(name, &row, row.Bytes)
}

func (k *Keeper) buffer(ctx context.Context, row Row) {
	if k.w.Buffered() == 0 {
		k.buffered = time.Now()
	}
	k.rows.Add(1)
	if err := k.w.Add(ctx, row); err != nil {
		k.fail(err) // the rows stay buffered for the next flush
	}
}

// flush writes the buffered rows, and compacts the catalog every
// CompactAfter flushes.
func (k *Keeper) flush(ctx context.Context) bool {
	if k.w.Buffered() == 0 {
		return true
	}
	if err := k.w.Flush(ctx); err != nil {
		k.fail(err)
		return false
	}
	if k.flushes++; k.flushes >= k.opts.CompactAfter {
		k.flushes = 0
		if _, err := Compact(ctx, Dir(k.dir), k.opts.Writer); err != nil {
			k.fail(err)
		}
	}
	return true
}

// nameOf returns the artifact name of path, a file of the folder.
func (k *Keeper) nameOf(path string) (string, bool) {
	dir, name := filepath.Split(path)
	if filepath.Clean(dir) != k.dir || !strings.HasSuffix(name, ArtifactExt) || strings.HasPrefix(name, ".") {
		k.fail(fmt.Errorf("catalog: %s is no artifact of %s: no row", path, k.dir))
		return "", false
	}
	return name, true
}

// enforce removes what retention says: the tombstones are written first,
// so that the catalog never lists a run whose file is gone.
func (k *Keeper) enforce(ctx context.Context) {
	r := k.opts.Retention
	if !r.Enabled() {
		return
	}
	vs := k.f.expired(r, time.Now())
	if len(vs) == 0 {
		return
	}
	now := time.Now().UTC()
	for _, v := range vs {
		k.w.Drop(v.run)
		k.buffer(ctx, Row{Run: v.run, Started: v.started, Keys: []string{v.name}, Removed: true, WrittenAt: now})
	}
	if !k.flush(ctx) {
		for _, v := range vs { // not removed: keep them for the next try
			k.f.track(v.name, &Row{Run: v.run, Started: v.started, Ended: v.ended}, v.size)
		}
		return
	}
	for _, v := range vs {
		ok, err := k.remove(filepath.Join(k.dir, v.name))
		switch {
		case err != nil:
			k.fail(fmt.Errorf("catalog: retention: %w", err))
		case ok:
			k.removed.Add(1)
		}
		// Not removed: a late record adopted it; its next finalization
		// writes a row newer than the tombstone.
	}
}
