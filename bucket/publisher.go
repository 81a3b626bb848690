package bucket

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttrace/agenttrace/store"
)

// PublisherOptions configure a Publisher.
type PublisherOptions struct {
	// Zstd compresses the objects (.jsonl.zst).
	Zstd bool
	// Workers is how many uploads run at once (default 8: an upload to a
	// remote store mostly waits for its answer).
	Workers int
	// MinBackoff and MaxBackoff bound the wait before an upload that
	// failed is tried again, doubling from the one to the other (defaults
	// 200ms and 30s). A failed upload is tried until it succeeds or
	// Shutdown's context ends: nothing is given up but a file that is no
	// artifact.
	MinBackoff, MaxBackoff time.Duration
	// OnError hears every failed attempt (its message holds no secret of
	// the bucket's URL); nil drops them.
	OnError func(error)
	// Uploaded hears each run file published: the object's key, and
	// whether an identical object was there already (nothing uploaded).
	// It runs on a publisher's worker; the local file is removed after it
	// returns.
	Uploaded func(key string, existed bool)
	// Catalog, when set, keeps the bucket's run catalog: each uploaded
	// run's row, its generations merged, written after the upload; the
	// local copy is removed once its row is written too (a crash before
	// leaves it to the next start, which catalogs it).
	Catalog *CatalogOptions
}

// Stats count what a Publisher did.
type Stats struct {
	// Uploaded objects, and files found already uploaded (Existed).
	Uploaded, Existed int64
	// Failed attempts (each tried again), and Bad files set aside as no
	// artifact (renamed to <name>.bad in the taken folder).
	Failed, Bad int64
	// Pending files: queued or being uploaded.
	Pending int64
	// CatalogRows made for the catalog; CatalogFailed runs whose row
	// could not be made, CatalogDropped those past MaxPending.
	CatalogRows, CatalogFailed, CatalogDropped int64
}

// A Publisher uploads the artifacts a store finalizes in its folder to a
// bucket, off the store's hot path: the store's Finalized hook queues the
// path; a worker takes the file out of the store's way (store.Take: only a
// finalized file no late span is appending to), uploads it create-only
// (Bucket.Put: the next generation when the run is there already), and
// removes the local copy once the upload is confirmed. What a crash left
// (taken files not uploaded yet, finalized artifacts of the folder) is
// queued again by Start: at least once, and never twice in the bucket
// (an identical object is recognized by its hash, and readers merge
// generations by span id).
type Publisher struct {
	b    *Bucket
	opts PublisherOptions

	mu      sync.Mutex
	queue   []item
	st      *store.Store
	dir     string
	wake    chan struct{}
	closing chan struct{} // Shutdown began: drain, then stop
	stop    chan struct{} // Shutdown's context ended: stop now
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool
	once    sync.Once
	cat     *cataloger // nil without a catalog
	ledger  *ledger    // the runs uploaded by day; nil when it could not be kept

	uploaded, existed, failed, bad, pending atomic.Int64
}

// item is a queued file: a store's finalized artifact, or a file already
// taken out of the store's way.
type item struct {
	path  string
	taken bool
}

// Publisher returns a publisher to b. Set its Finalized (or Hook) as the
// store's Hooks.Finalized, then Start it with the store.
func (b *Bucket) Publisher(opts PublisherOptions) *Publisher {
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 200 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(30*time.Second, opts.MinBackoff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Publisher{b: b, opts: opts, wake: make(chan struct{}, 1),
		closing: make(chan struct{}), stop: make(chan struct{}), ctx: ctx, cancel: cancel}
	if opts.Catalog != nil {
		p.cat = newCataloger(b, *opts.Catalog, p.fail)
	}
	return p
}

// Finalized queues the artifact just finalized at path. It never blocks:
// it is a store's Hooks.Finalized, called under the artifact's lock.
func (p *Publisher) Finalized(path string) { p.push(item{path: path}) }

// Hook returns a Hooks.Finalized that calls next (when not nil) and then
// Finalized, for a store whose hook already does something.
func (p *Publisher) Hook(next func(string)) func(string) {
	if next == nil {
		return p.Finalized
	}
	return func(path string) {
		next(path)
		p.Finalized(path)
	}
}

func (p *Publisher) push(it item) {
	p.pending.Add(1)
	p.mu.Lock()
	p.queue = append(p.queue, it)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start starts the workers uploading what st finalizes in its folder dir,
// after queuing what an earlier process left there: taken files first,
// then the folder's finalized artifacts. Start once; Shutdown stops.
func (p *Publisher) Start(st *store.Store, dir string) error {
	p.mu.Lock()
	if p.started {
		p.mu.Unlock()
		return errors.New("bucket publisher: started twice")
	}
	p.started, p.st, p.dir = true, st, dir
	// Before anything is taken: a folder without TakenDir never published.
	l, lerr := openLedger(dir, time.Now())
	p.ledger = l
	p.mu.Unlock()
	if lerr != nil {
		p.fail(lerr) // no ledger: every run's first file looks in the bucket
	}
	left, err := leftovers(dir)
	for _, it := range left {
		p.push(it)
	}
	for range p.opts.Workers {
		p.wg.Go(p.work)
	}
	if p.cat != nil {
		go p.cat.run()
	}
	return err
}

// leftovers are the files of dir a publisher has to upload at start.
func leftovers(dir string) ([]item, error) {
	var out []item
	var errs []error
	taken, err := os.ReadDir(filepath.Join(dir, store.TakenDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("bucket publisher: %w", err))
	}
	names := make([]string, 0, len(taken))
	for _, e := range taken {
		if _, ok := store.TakenName(e.Name()); ok && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // by the time they were taken
	for _, n := range names {
		out = append(out, item{path: filepath.Join(dir, store.TakenDir, n), taken: true})
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		errs = append(errs, fmt.Errorf("bucket publisher: %w", err))
	}
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, store.Ext) && !strings.HasPrefix(n, ".") {
			out = append(out, item{path: filepath.Join(dir, n)})
		}
	}
	return out, errors.Join(errs...)
}

// next returns the next queued file, waiting for one; false once the
// queue is drained after Shutdown began, or Shutdown's context ended.
func (p *Publisher) next() (item, bool) {
	for {
		select {
		case <-p.stop:
			return item{}, false
		default:
		}
		p.mu.Lock()
		if len(p.queue) > 0 {
			it := p.queue[0]
			p.queue[0] = item{}
			p.queue = p.queue[1:]
			more := len(p.queue) > 0
			p.mu.Unlock()
			if more {
				select { // another worker may take the rest
				case p.wake <- struct{}{}:
				default:
				}
			}
			return it, true
		}
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-p.closing:
			p.mu.Lock()
			empty := len(p.queue) == 0
			p.mu.Unlock()
			if empty {
				return item{}, false
			}
		case <-p.stop:
			return item{}, false
		}
	}
}

func (p *Publisher) work() {
	for {
		it, ok := p.next()
		if !ok {
			return
		}
		if p.publish(it) {
			p.pending.Add(-1)
		}
	}
}

// publish takes, uploads and removes one file, trying again until it is
// done or the publisher stops: it reports false then (the file is left
// for the next start, and still counted as pending).
func (p *Publisher) publish(it item) bool {
	path := it.path
	var f *os.File
	if !it.taken {
		tf, taken, ok, err := p.st.TakeFile(path)
		if err != nil {
			p.fail(err)
			return true
		}
		if !ok {
			return true // live again, unfinished, or taken already: its hook comes again
		}
		path, f = taken, tf
	} else {
		var err error
		if f, err = os.Open(path); err != nil {
			p.fail(fmt.Errorf("bucket publisher: %w", err))
			return true
		}
	}
	name, ok := store.TakenName(path)
	if !ok {
		_ = f.Close()
		p.fail(fmt.Errorf("bucket publisher: %s is no taken artifact", path))
		return true
	}
	wait := p.opts.MinBackoff
	for {
		r, err := p.b.put(p.ctx, f, name, p.opts.Zstd, p.ledger)
		key := r.key
		if r.noteErr != nil {
			p.fail(r.noteErr)
		}
		if err == nil {
			_ = f.Close()
			p.uploaded1(key, r.existed)
			if p.cat != nil {
				p.cat.uploaded(r, path) // removed once its row is written
				return true
			}
			if err := os.Remove(path); err != nil {
				p.fail(fmt.Errorf("bucket publisher: uploaded %s, not removed: %w", key, err))
			}
			return true
		}
		if errors.Is(err, ErrBadArtifact) {
			_ = f.Close()
			p.bad.Add(1)
			p.fail(errors.Join(err, os.Rename(path, path+".bad")))
			return true
		}
		p.failed.Add(1)
		p.fail(err)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.stop:
			t.Stop()
			_ = f.Close()
			return false
		}
		wait = min(2*wait, p.opts.MaxBackoff)
	}
}

// uploaded1 counts an upload and tells Uploaded of it.
func (p *Publisher) uploaded1(key string, existed bool) {
	if existed {
		p.existed.Add(1)
	} else {
		p.uploaded.Add(1)
	}
	if p.opts.Uploaded != nil {
		p.opts.Uploaded(key, existed)
	}
}

func (p *Publisher) fail(err error) {
	if p.opts.OnError != nil {
		p.opts.OnError(err)
	}
}

// Shutdown uploads what is queued (close the store first, so that every
// artifact is finalized and queued), and stops the workers. When ctx ends
// first, the uploads under way are cancelled and Shutdown returns ctx's
// error: the files not uploaded stay in the folder, and the next Start
// uploads them. Shutdown is idempotent.
func (p *Publisher) Shutdown(ctx context.Context) error {
	p.once.Do(func() { close(p.closing) })
	done := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("bucket publisher: %d files left for the next start: %w", p.pending.Load(), ctx.Err())
		p.halt()
		<-done
	}
	if p.cat != nil && p.isStarted() {
		err = errors.Join(err, p.cat.close(ctx))
	}
	p.mu.Lock()
	l := p.ledger
	p.mu.Unlock()
	if l != nil {
		err = errors.Join(err, l.close())
	}
	p.cancel()
	return err
}

func (p *Publisher) isStarted() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// halt stops the workers at once.
func (p *Publisher) halt() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.stop:
	default:
		close(p.stop)
		p.cancel()
	}
}

// Stats returns what the publisher did so far.
func (p *Publisher) Stats() Stats {
	st := Stats{Uploaded: p.uploaded.Load(), Existed: p.existed.Load(), Failed: p.failed.Load(),
		Bad: p.bad.Load(), Pending: p.pending.Load()}
	if p.cat != nil {
		st.CatalogRows, st.CatalogFailed, st.CatalogDropped = p.cat.rows.Load(), p.cat.failed.Load(), p.cat.dropped.Load()
	}
	return st
}
