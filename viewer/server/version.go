package server

import (
	"sync"
	"time"
)

// versionInline is how long a walk of the folder may take for /version
// to walk it on every poll, as it always did: a folder that walks faster
// shows a change at the next poll. A slower one (100,000 runs took
// seconds) answers from the last walk at once and walks again in the
// background, so the answer's time does not grow with the folder.
var versionInline = 50 * time.Millisecond // a variable for the tests only

// versionCache is the folder's last version for /version.
type versionCache struct {
	mu   sync.Mutex
	ver  string        // "" until the first walk
	at   time.Time     // when the walk that made ver ended
	cost time.Duration // how long that walk took
	busy bool          // a background walk is under way
}

// currentVersion answers the list page's poll: the folder's version, as
// of now for a small folder, as of the last background walk for a large
// one. Background walks do not overlap and leave at least twice their
// own duration between them, so polling a huge folder from many tabs
// keeps at most about a third of a core busy.
func (s *Server) currentVersion() string {
	c := &s.ver
	c.mu.Lock()
	if c.ver == "" || c.cost < versionInline {
		c.mu.Unlock()
		return s.walkVersion()
	}
	v := c.ver
	if c.busy || time.Since(c.at) < 2*c.cost {
		c.mu.Unlock()
		return v
	}
	c.busy = true
	c.mu.Unlock()
	// Counted as a request, so Shutdown waits for the walk.
	if !s.enter() {
		c.mu.Lock()
		c.busy = false
		c.mu.Unlock()
		return v
	}
	go func() {
		defer s.leave()
		s.walkVersion()
	}()
	return v
}

// walkVersion walks the folder for its version and keeps it.
func (s *Server) walkVersion() string {
	start := time.Now()
	v := s.list.version()
	end := time.Now()
	c := &s.ver
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ver, c.at, c.cost, c.busy = v, end, end.Sub(start), false
	return v
}
