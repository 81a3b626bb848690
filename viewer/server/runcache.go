package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer"
)

// runCostFactor estimates the memory a loaded run takes from its
// artifact's size: decoded records (pdata spans, attribute maps, the
// conversation's strings) take a few times their JSON. Measured with
// BenchmarkRunPage's heap figures; an estimate, not an account.
const runCostFactor = 4

// errRunTooLarge tells that a run holds more records than the server
// loads whole: it is shown paged.
var errRunTooLarge = errors.New("run too large to load whole")

// runKey names one version of an artifact: a file that grew or was
// rewritten is another key, so a cached run is never stale.
type runKey struct {
	rel   string
	size  int64
	mtime int64
	ver   string // a bucket's run: its version (Bucket.Version)
	// stale: the file has gained nothing for the idle time, so an open
	// run in it shows as stopped: a run rendered while it was live is
	// not served once its writer went away.
	stale bool
}

func (s *Server) keyOf(a *servedRun) runKey {
	k := fileKey(a, s.cfg.idle)
	if a.imp != nil { // the converted artifact's size: the file's tells the version
		k.ver = a.imp.ver()
	}
	return k
}

// fileKey is the key of a's file as it is now, with idle as the idle
// time that decides whether it is stale: the run cache's key, and the
// import cache's for the file's conversion.
func fileKey(a *servedRun, idle time.Duration) runKey {
	return runKey{rel: a.rel, size: a.fi.Size(), mtime: a.fi.ModTime().UnixNano(),
		stale: viewer.LivenessOf(a.fi, idle).Stale()}
}

// liveness is what decides whether an open run in the file fi describes
// has stopped (viewer.StateOf): viewer.LivenessOf with serve's idle time.
func (s *Server) liveness(fi fs.FileInfo) viewer.Liveness {
	return viewer.LivenessOf(fi, s.cfg.idle)
}

// loadedRun is a run read whole and redacted, shared by the requests that
// show it: nobody changes it once cached.
type loadedRun struct {
	run    viewer.Run
	offset int64 // where a live stream goes on (loadRun)
	cost   int64 // estimated bytes (runCostFactor), and the renderings'
	// paged is how many records run holds of a run too large to load
	// whole (a bucket's, shown as servePagedRun shows a file); 0 when
	// it is whole.
	paged int

	// page and data are the run's viewer page and view model, rendered
	// at the first request for them: rendering 100,000 records takes
	// longer than reading them, so a second visit sends these bytes.
	mu         sync.Mutex
	page, data []byte
}

// rendered returns what *slot holds, rendering it with render first when
// empty, and counts the new bytes in the cache's total under k.
func (c *runCache) rendered(k runKey, lr *loadedRun, slot *[]byte, render func() ([]byte, error)) ([]byte, error) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if *slot != nil {
		return *slot, nil
	}
	b, err := render()
	if err != nil {
		return nil, err
	}
	*slot = b
	c.grow(k, lr, int64(len(b)))
	return b, nil
}

// grow counts n more bytes for lr, cached under k, evicting the least
// recently shown runs until the total fits again.
func (c *runCache) grow(k runKey, lr *loadedRun, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.lru.Peek(k); !ok || v != lr {
		return // not (or no longer) cached: its bytes go with it
	}
	lr.cost += n
	c.bytes += n
	for c.bytes > c.max {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// runCache keeps the runs last shown, bounded by their estimated bytes:
// opening a run a second time serves it from memory, and no number of
// runs opened takes more than the configured size.
type runCache struct {
	mu    sync.Mutex
	lru   *simplelru.LRU[runKey, *loadedRun]
	bytes int64 // estimated bytes held
	max   int64
	// hits and misses count lookups, for the tests and benchmarks.
	hits, misses int64
}

func newRunCache(max int64) *runCache {
	c := &runCache{max: max}
	// The count bound is the bytes bound's business: any count will do.
	c.lru, _ = simplelru.NewLRU[runKey, *loadedRun](math.MaxInt32, func(_ runKey, v *loadedRun) { c.bytes -= v.cost })
	return c
}

// fits tells whether a run of size bytes on disk may be loaded and kept.
func (c *runCache) fits(size int64) bool { return size*runCostFactor <= c.max }

func (c *runCache) get(k runKey) (*loadedRun, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.lru.Get(k)
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return v, ok
}

// add keeps v, evicting the least recently shown runs until the total
// fits. Older versions of the same file are dropped first: they are never
// asked for again.
func (c *runCache) add(k runKey, v *loadedRun) {
	if v.cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.lru.Keys() {
		if old.rel == k.rel && old != k {
			c.lru.Remove(old)
		}
	}
	if c.lru.Contains(k) {
		return
	}
	c.lru.Add(k, v)
	c.bytes += v.cost
	for c.bytes > c.max {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// stats returns the bytes held, the runs held, and the hits and misses.
func (c *runCache) stats() (bytes int64, runs int, hits, misses int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, c.lru.Len(), c.hits, c.misses
}

// run returns a's run whole, from the cache or read and redacted now; or
// errRunTooLarge when a is larger than the cache may hold or has more
// records than the configured bound, for the caller to show it paged.
func (s *Server) run(a *servedRun) (*loadedRun, error) {
	return s.runAt(s.keyOf(a), a)
}

// runAt is run with a's key computed.
func (s *Server) runAt(k runKey, a *servedRun) (*loadedRun, error) {
	if v, ok := s.cache.get(k); ok {
		return v, nil
	}
	if !s.cache.fits(a.fi.Size()) {
		return nil, errRunTooLarge
	}
	run, offset, err := loadRun(a, s.cfg.maxRecords)
	if err != nil {
		return nil, err
	}
	offset = a.importedRun(&run, offset)
	run.Live = s.liveness(a.fi)
	s.cfg.red.runs(&run)
	v := &loadedRun{run: run, offset: offset, cost: max(offset, a.fi.Size()) * runCostFactor}
	s.cache.add(k, v)
	return v, nil
}

// headRun reads the header and the first n records of a, and the trailer
// its last line holds, if any: what the page of a run too large to load
// whole shows, in memory bounded by n. skip records are passed over first
// (a range of a huge run). It returns the offset of a's end as it was
// opened, where a live stream of it goes on.
func headRun(a *servedRun, skip, n int) (viewer.Run, int64, error) {
	run := viewer.Run{Name: a.rel}
	size := a.fi.Size()
	// From the start, whatever was read of a.f before (a whole load that
	// stopped at the records bound).
	rd := artifact.NewReader(io.NewSectionReader(a.f, 0, size), artifact.WithSource(a.rel))
	if err := headRecords(rd, &run, skip, n); err != nil {
		return run, 0, err
	}
	run.Meta = rd.Meta()
	run.Summary = rd.Summary()
	if run.Summary == nil {
		sum, err := tailSummary(a, size)
		if err != nil {
			return run, 0, err
		}
		run.Summary = sum
	}
	return run, size, nil
}

// tailMax bounds the trailer line read from an artifact's end.
const tailMax = 1 << 16

// tailSummary reads the trailer on the last line of a's first size bytes,
// nil when that line is no trailer: it feeds the file's header and that
// line to a artifact.Reader, which parses them as it parses every
// artifact.
func tailSummary(a *servedRun, size int64) (*artifact.Summary, error) {
	head, last, err := headAndLast(a, size)
	if err != nil || head == nil || !bytes.Contains(last, []byte(`"summary"`)) { // a trailer's kind
		return nil, err
	}
	rd := artifact.NewReader(io.MultiReader(bytes.NewReader(head), bytes.NewReader(last), bytes.NewReader([]byte{'\n'})), artifact.WithSource(a.rel))
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
	}
	return rd.Summary(), nil
}

// headAndLast reads the first line of a's first size bytes and its last
// line (at most tailMax bytes): a nil head when the file has one line
// only.
func headAndLast(a *servedRun, size int64) (head, last []byte, err error) {
	from := max(0, size-tailMax)
	tail := make([]byte, size-from)
	if _, err := a.f.ReadAt(tail, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read %s: %w", a.rel, err)
	}
	tail = bytes.TrimRight(tail, "\n")
	last = tail[bytes.LastIndexByte(tail, '\n')+1:]
	head, err = bufio.NewReader(io.NewSectionReader(a.f, 0, size)).ReadBytes('\n')
	if err != nil {
		return nil, last, nil // one line only
	}
	return head, last, nil
}
