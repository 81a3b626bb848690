package bucket

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttrace/agenttrace/catalog"
)

// CatalogOptions turn on a Publisher's catalog: the bucket's run
// catalog (<prefix>/catalog/dt=…/…parquet, docs/catalog.md), a row per
// run written after its upload is confirmed.
type CatalogOptions struct {
	// FlushEvery is how long rows wait to be written together, in one
	// file per partition (default DefaultCatalogFlushEvery): fewer,
	// larger files; `agenttrace catalog compact` merges them.
	FlushEvery time.Duration
	// MaxPending bounds the runs waiting for their row (default
	// catalog.DefaultMaxPending); past it, rows are dropped and counted
	// (Stats.CatalogDropped): `agenttrace catalog build` makes them again.
	MaxPending int
	// Writer bounds the catalog's files.
	Writer catalog.WriterOptions
}

// DefaultCatalogFlushEvery is CatalogOptions.FlushEvery's default.
const DefaultCatalogFlushEvery = 10 * time.Second

// cataloger writes the rows of the runs a Publisher uploaded, on a
// goroutine of its own, batched, written by a catalog.Writer. A run this
// publisher just uploaded as its first generation, and nothing else of
// since, is one object whose bytes are the local file's (OpenRun of one
// generation is its object as it is): its row is made from the local
// file, still there. Any other run's (a next generation, an object found
// there already) is made from the bucket (RunRow: all its generations
// merged, so that a run that got a next generation gets a newer row of
// the merged run).
type cataloger struct {
	b    *Bucket
	opts CatalogOptions
	fail func(error)

	mu      sync.Mutex
	pending map[string]*pendingRun // by run (partition + id)
	order   []string
	wake    chan struct{}
	stop    chan context.Context
	done    chan struct{}
	closed  sync.Once

	w                     *catalog.Writer
	written               []string // local files of rows added, removed once flushed
	rows, failed, dropped atomic.Int64
}

func newCataloger(b *Bucket, opts CatalogOptions, fail func(error)) *cataloger {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = DefaultCatalogFlushEvery
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = catalog.DefaultMaxPending
	}
	return &cataloger{b: b, opts: opts, fail: fail, pending: map[string]*pendingRun{},
		wake: make(chan struct{}, 1), stop: make(chan context.Context, 1), done: make(chan struct{}),
		w: catalog.NewWriter(b.CatalogDest(), opts.Writer)}
}

// uploaded queues the row of the run of key, an object just uploaded
// from the local file, which is removed once the row is written: a
// crash before leaves the file, which the next start uploads again
// (found there already) and catalogs, so every uploaded run gets its row.
func (c *cataloger) uploaded(r putResult, file string) {
	key := r.key
	dir, name := path.Split(key)
	k, err := parseName(name)
	if err != nil {
		c.remove([]string{file})
		return
	}
	run := dir + k.ID
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.pending[run]; ok {
		e.paths = append(e.paths, file) // its row is to be made: of all its generations
		e.local = ""
		return
	}
	if len(c.pending) >= c.opts.MaxPending {
		c.dropped.Add(1)
		c.fail(fmt.Errorf("bucket catalog: %d runs wait for their rows: no row for %s", len(c.pending), key))
		c.remove([]string{file})
		return
	}
	e := &pendingRun{key: key, paths: []string{file}}
	if k.Gen == 1 && !r.existed && r.size >= 0 {
		e.local, e.size = file, r.size
	}
	c.pending[run] = e
	c.order = append(c.order, run)
}

// pendingRun is a run waiting for its row: an uploaded key of it, the
// local files to remove once the row is written, the attempts made.
type pendingRun struct {
	key      string
	paths    []string
	attempts int
	// local is the run's one file when its row can be made from it (the
	// run's one object, of size bytes), "" for the bucket's merged run.
	local string
	size  int64
}

// row makes the run's row: from its local file when it is the run's one
// object, else from the bucket.
func (c *cataloger) row(ctx context.Context, e *pendingRun) (catalog.Row, error) {
	if e.local == "" {
		return c.b.RunRow(ctx, e.key)
	}
	f, err := os.Open(e.local)
	if err != nil {
		return catalog.Row{}, err
	}
	defer f.Close()
	src := catalog.Source{Name: c.b.name + "/" + e.key, Keys: []string{e.key}, Bytes: e.size}
	if fi, err := f.Stat(); err == nil {
		src.Size = fi.Size() // the local file is the run's bytes uncompressed
	}
	return catalog.RowOf(f, src)
}

// maxRowAttempts is how many times a run's row is tried (the bucket may be
// down) before the run is given up (counted in CatalogFailed: `catalog
// build` makes its row).
const maxRowAttempts = 5

// run writes the rows every FlushEvery, and what is pending when
// stopped, as the stop's context allows.
func (c *cataloger) run() {
	defer close(c.done)
	tick := time.NewTicker(c.opts.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			c.write(context.Background())
		case ctx := <-c.stop:
			c.write(ctx)
			return
		}
	}
}

// write makes the pending runs' rows and writes them, then removes the
// local files of the runs whose rows are written.
func (c *cataloger) write(ctx context.Context) {
	c.mu.Lock()
	order, pending := c.order, c.pending
	c.order, c.pending = nil, map[string]*pendingRun{}
	c.mu.Unlock()
	var again []string
	for _, run := range order {
		e := pending[run]
		row, err := c.row(ctx, e)
		if err != nil {
			if e.attempts++; e.attempts < maxRowAttempts && ctx.Err() == nil {
				again = append(again, run)
			} else {
				c.failed.Add(1)
				c.remove(e.paths)
			}
			c.fail(fmt.Errorf("bucket catalog: row of %s (attempt %d): %w", e.key, e.attempts, err))
			continue
		}
		c.rows.Add(1)
		c.written = append(c.written, e.paths...)
		if err := c.w.Add(ctx, row); err != nil {
			c.fail(fmt.Errorf("bucket catalog: %w", err)) // the rows stay buffered
		}
	}
	if err := c.w.Flush(ctx); err != nil {
		c.fail(fmt.Errorf("bucket catalog: %d rows not written yet: %w", c.w.Buffered(), err))
	} else {
		c.remove(c.written)
		c.written = nil
	}
	c.mu.Lock()
	for _, run := range again {
		if e, ok := c.pending[run]; ok {
			e.paths = append(e.paths, pending[run].paths...)
			continue
		}
		c.pending[run] = pending[run]
		c.order = append(c.order, run)
	}
	c.mu.Unlock()
}

// remove removes the local copies of uploaded runs.
func (c *cataloger) remove(paths []string) {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.fail(fmt.Errorf("bucket catalog: uploaded, not removed: %w", err))
		}
	}
}

// close writes what is pending, as ctx allows, and stops.
func (c *cataloger) close(ctx context.Context) error {
	c.closed.Do(func() { c.stop <- ctx })
	<-c.done
	if n := c.w.Buffered(); n > 0 {
		return fmt.Errorf("bucket catalog: %d rows not written (agenttrace catalog build makes them): %w", n, context.Cause(ctx))
	}
	return nil
}
