package store

import (
	"cmp"
	"io/fs"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// resumeMinRecords is the fewest records an artifact holds for its state
// to be kept when it is finalized: reading back a file of fewer costs
// less than a millisecond, and most artifacts (one per trace) are small
// and never reopened.
const resumeMinRecords = 2048

// maxResumeIDs bounds the span ids the kept states hold together (each
// some 30 bytes in its table): the most recently finalized come first.
const maxResumeIDs = 1 << 19

// resumeState is what a finalized artifact knew of its file, kept so
// that a later record reopening it (a long trace written in many
// requests, each ending with a local root) resumes from the file's known
// end instead of reading it all back: the header, the tally the last
// trailer counts, and the span ids that skip redelivered spans. It holds
// only while the file is the one the store left (same file, size and
// modification time); anything else reads the file back as before.
type resumeState struct {
	key       Key
	meta      *artifact.Meta
	tally     artifact.Tally
	seen      spanSet
	traces    map[pcommon.TraceID]struct{}
	size      int64
	rootEnded bool
	ids       int // span ids in seen
	fi        fs.FileInfo
	mtime     time.Time
}

// resumeCache holds the kept states, by key, the oldest first out.
type resumeCache struct {
	mu    sync.Mutex
	by    map[Key]*resumeState
	order []Key // insertion order; may hold keys taken since
	ids   int
	max   int // bound on ids; 0: maxResumeIDs (tests set less)
	hits  int // states taken back: artifacts reopened without reading
}

// keep keeps the state of a, just finalized and forgotten (file closed,
// trailer last), when it is large enough to be worth it. a.mu is held.
func (s *Store) keepResume(a *runFile) {
	if !a.loaded() || a.path == "" || a.tally.Records() < resumeMinRecords || !a.trailerLast() || a.f != nil {
		return
	}
	if len(a.ids.fps) > 0 && len(a.seen.cur.fps) > 0 && &a.seen.cur.fps[0] == &a.ids.fps[0] {
		return // its span ids live in the artifact itself
	}
	fi, err := os.Lstat(a.path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != a.size {
		return
	}
	st := &resumeState{key: a.key, meta: a.meta, tally: a.tally, seen: a.seen, traces: a.traces,
		size: a.size, rootEnded: a.rootEnded.Load(), ids: a.seen.cur.n + a.seen.old.n, fi: fi, mtime: fi.ModTime()}
	a.seen = spanSet{} // the state's now: a is forgotten
	c := &s.resume
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = make(map[Key]*resumeState)
	}
	if old := c.by[a.key]; old != nil {
		c.ids -= old.ids
	}
	c.by[a.key] = st
	c.order = append(c.order, a.key)
	c.ids += st.ids
	limit := cmp.Or(c.max, maxResumeIDs)
	for c.ids > limit && len(c.order) > 0 {
		k := c.order[0]
		c.order = c.order[1:]
		if old := c.by[k]; old != nil && (k != a.key || old != st) {
			c.ids -= old.ids
			delete(c.by, k)
		}
	}
	if len(c.order) > 2*len(c.by)+64 {
		// Compact: keys taken back since left stale entries.
		live := c.order[:0]
		for _, k := range c.order {
			if c.by[k] != nil {
				live = append(live, k)
			}
		}
		c.order = live
	}
}

// takeResume returns the kept state of a's artifact and forgets it, when
// its file is still the one the store left; nil otherwise. a.mu is held.
func (s *Store) takeResume(a *runFile) *resumeState {
	c := &s.resume
	c.mu.Lock()
	st := c.by[a.key]
	if st != nil {
		delete(c.by, a.key)
		c.ids -= st.ids
	}
	c.mu.Unlock()
	if st == nil {
		return nil
	}
	fi, err := os.Lstat(a.path)
	if err != nil || !os.SameFile(fi, st.fi) || fi.Size() != st.size || !fi.ModTime().Equal(st.mtime) {
		return nil // changed since (another writer, a rotation, a hand): read it back
	}
	c.mu.Lock()
	c.hits++
	c.mu.Unlock()
	return st
}
