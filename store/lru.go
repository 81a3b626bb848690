package store

import (
	"sync"
	"sync/atomic"
)

// openFiles bounds the artifact files held open at once. Its order is a
// list threaded through the artifacts themselves (no entry to allocate
// and no map to keep per file: with one artifact per trace a file opens
// for every trace), under a mutex of its own; but the write path does not
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
	lru     lruList
	evicted []*artifact
}

func newOpenFiles(max int) *openFiles {
	o := &openFiles{max: max}
	o.lru.root.lruNext, o.lru.root.lruPrev = &o.lru.root, &o.lru.root
	return o
}

// lruList is a doubly linked list of artifacts through their lruPrev and
// lruNext, the most recently used first; root is its sentinel.
type lruList struct {
	root artifact
	n    int
}

func (l *lruList) pushFront(a *artifact) {
	a.lruPrev, a.lruNext = &l.root, l.root.lruNext
	a.lruNext.lruPrev = a
	l.root.lruNext = a
	l.n++
}

func (l *lruList) remove(a *artifact) {
	a.lruPrev.lruNext, a.lruNext.lruPrev = a.lruNext, a.lruPrev
	a.lruPrev, a.lruNext = nil, nil
	l.n--
}

func (l *lruList) moveToFront(a *artifact) {
	l.remove(a)
	l.pushFront(a)
}

// oldest is the least recently used artifact, or nil.
func (l *lruList) oldest() *artifact {
	if l.n == 0 {
		return nil
	}
	return l.root.lruPrev
}

// add records a newly opened file of a (whose mutex the caller holds) and
// marks the least recently used others past max for closing.
func (o *openFiles) add(a *artifact) {
	a.touched = o.opens.Add(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	if a.inLRU {
		o.lru.moveToFront(a)
	} else {
		o.lru.pushFront(a)
	}
	a.inLRU = true
	o.evictLocked()
}

// evictLocked marks the least recently used files past max for closing.
// o.mu is held.
func (o *openFiles) evictLocked() {
	for o.lru.n > o.max {
		v := o.lru.oldest()
		o.lru.remove(v)
		v.inLRU = false
		o.evicted = append(o.evicted, v)
	}
}

// touch marks a (whose mutex the caller holds) used, when it has aged.
func (o *openFiles) touch(a *artifact) {
	now := o.opens.Load()
	if now-a.touched < int64(o.max/2)+1 {
		return
	}
	a.touched = now
	o.mu.Lock()
	defer o.mu.Unlock()
	if a.inLRU {
		o.lru.moveToFront(a)
	} else {
		// Evicted but not closed yet: keep it open after all, and another
		// one closes in its place.
		o.lru.pushFront(a)
		a.inLRU = true
		o.evictLocked()
	}
}

// remove takes a (whose mutex the caller holds) out, as its file closes.
func (o *openFiles) remove(a *artifact) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if a.inLRU {
		o.lru.remove(a)
		a.inLRU = false
	}
}

// takeEvicted returns the artifacts marked for closing. The marks go into
// to (the caller's, mostly on its stack) and the table keeps its own
// array: a file is evicted for nearly every trace with one artifact per
// trace, and a fresh array for each would be an allocation per trace.
func (o *openFiles) takeEvicted(to []*artifact) []*artifact {
	o.mu.Lock()
	defer o.mu.Unlock()
	to = append(to, o.evicted...)
	clear(o.evicted)
	o.evicted = o.evicted[:0]
	return to
}

// stillEvicted reports whether a (whose mutex the caller holds) is still
// out of the LRU, so its file may close.
func (o *openFiles) stillEvicted(a *artifact) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !a.inLRU
}
