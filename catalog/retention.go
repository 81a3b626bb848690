package catalog

import (
	"container/heap"
	"errors"
	"fmt"
	"time"
)

// ErrBadRetention is wrapped by [Retention.Validate]'s errors.
var ErrBadRetention = errors.New("invalid retention")

// Retention bounds a folder of artifacts: the runs that ended longer ago
// than MaxAge, and the oldest runs while the finalized artifacts hold more
// than MaxBytes, are removed, oldest first, each with its catalog row
// (a tombstone is written before the file goes, so the catalog never
// lists a removed run). Zero fields bound nothing. Only finalized runs are
// removed: a run being written counts once it is finalized.
type Retention struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// Validate reports a negative bound.
func (r Retention) Validate() error {
	if r.MaxAge < 0 {
		return fmt.Errorf("%w: max_age %s is negative", ErrBadRetention, r.MaxAge)
	}
	if r.MaxBytes < 0 {
		return fmt.Errorf("%w: max_bytes %d is negative", ErrBadRetention, r.MaxBytes)
	}
	return nil
}

// Enabled reports whether r bounds anything.
func (r Retention) Enabled() bool { return r.MaxAge > 0 || r.MaxBytes > 0 }

// kept is a finalized artifact a Keeper holds a row of.
type kept struct {
	run     string
	size    int64
	ended   time.Time // what retention orders by: the run's end
	started time.Time // where its tombstone goes
	gen     int
}

// byAge is a heap of artifacts, the run that ended first on top; an
// entry whose gen is no longer its artifact's is stale and skipped.
type byAge []ageItem

type ageItem struct {
	name  string
	ended time.Time
	gen   int
}

func (h byAge) Len() int           { return len(h) }
func (h byAge) Less(i, j int) bool { return h[i].ended.Before(h[j].ended) }
func (h byAge) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byAge) Push(x any)        { *h = append(*h, x.(ageItem)) }
func (h *byAge) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// folder is what a Keeper knows of its folder's finalized artifacts.
type folder struct {
	files map[string]*kept
	ages  byAge
	total int64 // their bytes
	gen   int
}

func newFolder() *folder { return &folder{files: map[string]*kept{}} }

// track notes that name is finalized as row says.
func (f *folder) track(name string, row *Row, size int64) {
	f.forget(name)
	f.gen++
	ended := row.Ended
	if ended.IsZero() {
		ended = row.Started
	}
	f.files[name] = &kept{run: row.Run, size: size, ended: ended, started: row.Started, gen: f.gen}
	f.total += size
	heap.Push(&f.ages, ageItem{name: name, ended: ended, gen: f.gen})
}

// forget drops name (its heap entry goes stale).
func (f *folder) forget(name string) {
	if k := f.files[name]; k != nil {
		f.total -= k.size
		delete(f.files, name)
	}
}

// victim is an artifact retention removes.
type victim struct {
	name string
	kept
}

// expired takes out of f the artifacts r removes at now, oldest first.
func (f *folder) expired(r Retention, now time.Time) []victim {
	var out []victim
	for f.ages.Len() > 0 {
		top := f.ages[0]
		k := f.files[top.name]
		if k == nil || k.gen != top.gen {
			heap.Pop(&f.ages)
			continue
		}
		over := r.MaxBytes > 0 && f.total > r.MaxBytes
		old := r.MaxAge > 0 && top.ended.Before(now.Add(-r.MaxAge))
		if !over && !old {
			break
		}
		heap.Pop(&f.ages)
		out = append(out, victim{name: top.name, kept: *k})
		f.forget(top.name)
	}
	return out
}
