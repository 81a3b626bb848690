package store

import (
	"sync"
	"sync/atomic"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// openFiles bounds the artifact files held open at once. Its order is
// hashicorp's LRU, under a mutex of its own (a list threaded through the
// artifacts instead saved an allocation per file but no measurable CPU,
// 6.36 -> 6.33 us/span, so the maintained one stays); but the write path does not
// take that mutex for every write (writes to different artifacts must not
// wait for each other): an artifact touches its entry only when files have
// been opened since its last touch, so many that it is near eviction. An
// artifact written to without such churn never takes the lock.
//
// Lock order: an artifact's mutex, then the LRU's; never the other way.
// Evicted files are closed by closeEvicted, after the writer has let go
// of its own artifact's mutex, so that no goroutine ever holds two.
type openFiles struct {
	max   int
	opens atomic.Int64 // files opened so far: the LRU's clock

	mu      sync.Mutex
	lru     *simplelru.LRU[*runFile, struct{}]
	evicted []*runFile
	// nEvicted is len(evicted), for takeEvicted to see without the lock
	// that there is nothing to take: the case after nearly every write.
	nEvicted atomic.Int32
}

func newOpenFiles(max int) *openFiles {
	o := &openFiles{max: max}
	// Eviction is done by hand (see add), so the LRU's own size never
	// bites; it is not 0 only because simplelru refuses 0.
	o.lru, _ = simplelru.NewLRU[*runFile, struct{}](max+1<<20, nil)
	return o
}

// add records a newly opened file of a (whose mutex the caller holds) and
// marks the least recently used others past max for closing.
func (o *openFiles) add(a *runFile) {
	a.touched = o.opens.Add(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lru.Add(a, struct{}{})
	a.inLRU = true
	o.evictLocked()
}

// evictLocked marks the least recently used files past max for closing.
// o.mu is held.
func (o *openFiles) evictLocked() {
	for o.lru.Len() > o.max {
		v, _, ok := o.lru.RemoveOldest()
		if !ok {
			break
		}
		v.inLRU = false
		o.evicted = append(o.evicted, v)
		o.nEvicted.Store(int32(len(o.evicted)))
	}
}

// touch marks a (whose mutex the caller holds) used, when it has aged.
func (o *openFiles) touch(a *runFile) {
	now := o.opens.Load()
	if now-a.touched < int64(o.max/2)+1 {
		return
	}
	a.touched = now
	o.mu.Lock()
	defer o.mu.Unlock()
	if a.inLRU {
		o.lru.Get(a)
	} else {
		// Evicted but not closed yet: keep it open after all, and another
		// one closes in its place.
		o.lru.Add(a, struct{}{})
		a.inLRU = true
		o.evictLocked()
	}
}

// remove takes a (whose mutex the caller holds) out, as its file closes.
func (o *openFiles) remove(a *runFile) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if a.inLRU {
		o.lru.Remove(a)
		a.inLRU = false
	}
}

// takeEvicted returns the artifacts marked for closing. The marks go into
// to (the caller's, mostly on its stack) and the table keeps its own
// array: a file is evicted for nearly every trace with one artifact per
// trace, and a fresh array for each would be an allocation per trace.
func (o *openFiles) takeEvicted(to []*runFile) []*runFile {
	if o.nEvicted.Load() == 0 {
		// Whoever marks one next stores a count the next call sees;
		// one marked meanwhile waits for the next call, as it would
		// have had it come a moment later.
		return to
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	to = append(to, o.evicted...)
	clear(o.evicted)
	o.evicted = o.evicted[:0]
	o.nEvicted.Store(0)
	return to
}

// stillEvicted reports whether a (whose mutex the caller holds) is still
// out of the LRU, so its file may close.
func (o *openFiles) stillEvicted(a *runFile) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !a.inLRU
}
