package bucket

import (
	"context"
	"errors"
	"io"
	"iter"
	"path"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"
)

// Run is one run of a bucket: its generations' objects, grouped.
type Run struct {
	// Key is the run's key: its first generation's, uncompressed (what
	// OpenRun takes, as it takes any of Objects).
	Key Key
	// Objects are the keys of its generations' objects, in order.
	Objects []string
	// Size is the bytes of all its objects (compressed, as stored).
	Size int64
	// Modified is when its last object was written.
	Modified time.Time
}

// Runs lists the runs whose keys start with prefix (relative to the
// bucket's prefix: "" for all, "dt=2026-12-05/" for a day), by partition
// and id. Objects that are not laid out as Key says (a catalog's files)
// are skipped. A partition's runs are held in memory while it is listed;
// nothing else is.
func (b *Bucket) Runs(ctx context.Context, prefix string) iter.Seq2[Run, error] {
	return func(yield func(Run, error) bool) {
		it := b.b.List(&blob.ListOptions{Prefix: prefix})
		var dir string
		part := map[string]*Run{}
		flush := func() bool {
			runs := make([]*Run, 0, len(part))
			for _, r := range part {
				runs = append(runs, r)
			}
			clear(part)
			slices.SortFunc(runs, func(a, c *Run) int { return strings.Compare(a.Key.ID, c.Key.ID) })
			for _, r := range runs {
				if !yield(*r, nil) {
					return false
				}
			}
			return true
		}
		var objs []object // of the run being filled, to order its generations
		for {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				yield(Run{}, b.wrap("list "+prefix, err))
				return
			}
			k, err := ParseKey(obj.Key)
			if err != nil || obj.IsDir {
				continue
			}
			if d, _ := path.Split(obj.Key); d != dir {
				if !flush() {
					return
				}
				dir = d
			}
			r := part[k.ID]
			if r == nil {
				r = &Run{Key: k.Run()}
				part[k.ID] = r
			}
			objs = objs[:0]
			for _, key := range r.Objects {
				kk, _ := ParseKey(key)
				objs = append(objs, object{Key: key, Name: kk})
			}
			objs = append(objs, object{Key: obj.Key, Name: k})
			sortGenerations(objs)
			r.Objects = r.Objects[:0]
			for _, o := range objs {
				r.Objects = append(r.Objects, o.Key)
			}
			r.Size += obj.Size
			if obj.ModTime.After(r.Modified) {
				r.Modified = obj.ModTime
			}
		}
		flush()
	}
}
