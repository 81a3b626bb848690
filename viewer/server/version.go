package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// versionInline is how long a walk of the folder may take for the list
// page and /version to refresh the index (the walk, and a read of the
// files that changed) on every request, as they always did: a folder that
// walks faster shows a change at the next request. A slower one (100,000
// runs took seconds) answers from the last refresh at once and refreshes
// again in the background, so the answer's time does not grow with the
// folder.
var versionInline = 50 * time.Millisecond // a variable for the tests only

// firstWait is how long a request waits for the first walk of the folder
// before it answers with an index still being read (snapshot.indexing):
// a small folder is read within it, as before; 100,000 runs take tens of
// seconds, and the page says so and reloads when they are read, instead
// of keeping the request open. A variable for the tests only.
var firstWait = time.Second

// snapshot is the folder's index as of one refresh: every artifact's row,
// newest first, the folder's version and the filters' choices. It is
// never changed once made, so requests share it without locking.
type snapshot struct {
	runs    []*runInfo // newest first (byWhen)
	version string     // digest of names, sizes and mtimes: what /version answers
	choices listChoices
	// indexing: the first walk of the folder is still under way; runs
	// is empty and version a placeholder that the walk's end changes.
	indexing bool
}

// indexingSnapshot answers while the first walk runs.
var indexingSnapshot = &snapshot{version: "indexing", indexing: true}

// versionCache holds the folder's last snapshot. One walker makes it, for
// the list page and /version alike: there are never two walks at once.
type versionCache struct {
	mu   sync.Mutex
	snap *snapshot     // nil until the first refresh
	at   time.Time     // when the refresh that made snap ended
	cost time.Duration // how long that refresh's walk took
	took time.Duration // how long the whole refresh took
	busy bool          // a background refresh is under way
	// first is closed when the first refresh ends (made on first use).
	first chan struct{}
}

// current returns the folder's index: as of now for a small folder, as
// of the last background refresh for a large one. Background refreshes
// do not overlap and leave at least twice their own duration between
// them, so polling a huge folder from many tabs keeps at most about a
// third of a core busy.
func (s *Server) current() *snapshot {
	if s.cat.active.Load() {
		s.catalogFresh()
		defer s.catalogWalk()
		return s.catalogSnapshot()
	}
	c := &s.ver
	c.mu.Lock()
	if c.snap == nil {
		return s.first()
	}
	if c.cost < versionInline {
		c.mu.Unlock()
		return s.refresh()
	}
	snap := c.snap
	if c.busy || time.Since(c.at) < 2*c.took {
		c.mu.Unlock()
		return snap
	}
	c.busy = true
	c.mu.Unlock()
	// Counted as a request, so Shutdown waits for the refresh.
	if !s.enter() {
		c.mu.Lock()
		c.busy = false
		c.mu.Unlock()
		return snap
	}
	go func() {
		defer s.leave()
		s.refresh()
	}()
	return snap
}

// first waits up to firstWait for the folder's first walk, started in
// the background by the first request to come, and returns its snapshot,
// or indexingSnapshot while it is still under way. Called with c.mu held;
// it unlocks it.
func (s *Server) first() *snapshot {
	c := &s.ver
	if c.first == nil {
		c.first = make(chan struct{})
	}
	done := c.first
	start := !c.busy
	c.busy = true
	c.mu.Unlock()
	if start {
		// Counted as a request, so Shutdown waits for the walk.
		if !s.enter() {
			c.mu.Lock()
			c.busy = false
			c.mu.Unlock()
			return indexingSnapshot
		}
		go func() {
			defer s.leave()
			s.refresh()
		}()
	}
	if firstWait <= 0 || s.cat.active.Load() {
		// The catalog answers meanwhile, with what it holds.
		return indexingSnapshot
	}
	t := time.NewTimer(firstWait)
	defer t.Stop()
	select {
	case <-done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.snap
	case <-t.C:
		return indexingSnapshot
	}
}

// currentVersion answers the list page's poll from the shared index.
func (s *Server) currentVersion() string { return s.current().version }

// refresh walks the folder, reads the artifacts that are new or changed,
// and keeps the result as the current snapshot.
func (s *Server) refresh() *snapshot {
	start := time.Now()
	var snap *snapshot
	var walked time.Duration
	if !s.cat.active.Load() {
		var runs []*runInfo
		var version string
		var ok bool
		runs, version, walked, ok = s.list.runs()
		if ok {
			snap = &snapshot{runs: runs, version: version, choices: choicesOf(runs)}
		} else {
			s.cat.active.Store(true) // too many runs for the index
		}
	}
	if snap == nil {
		walked = s.cat.refresh(s.ctx)
		snap = &snapshot{}
	}
	end := time.Now()
	c := &s.ver
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil && c.first != nil {
		close(c.first)
	}
	c.snap, c.at, c.cost, c.took, c.busy = snap, end, walked, end.Sub(start), false
	return snap
}

// digest is a digest of the artifacts' names, sizes and modification
// times: the list page polls it and reloads when it changes, so a run
// appears when its first span is written and its row follows it.
func digest(files []found) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", f.rel, f.fi.Size(), f.fi.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// byWhen orders runs newest first, then by path.
func byWhen(runs []*runInfo) {
	slices.SortFunc(runs, func(a, b *runInfo) int {
		if c := b.when().Compare(a.when()); c != 0 {
			return c
		}
		return strings.Compare(a.Rel, b.Rel)
	})
}
