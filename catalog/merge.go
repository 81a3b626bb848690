package catalog

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// ErrBadFile is wrapped by the errors of a catalog file that cannot be
// read as one.
var ErrBadFile = errors.New("not a readable catalog file")

// batch is how many rows a cursor reads at a time.
const batch = 64

// partitions lists the catalog's files by partition folder, both sorted.
func partitions(ctx context.Context, dest Dest) (map[string][]string, []string, error) {
	objs, err := dest.List(ctx, "catalog/")
	if err != nil {
		return nil, nil, err
	}
	parts := map[string][]string{}
	for _, o := range objs {
		if !strings.HasSuffix(o.Key, ".parquet") {
			continue
		}
		dir := path.Dir(o.Key) + "/"
		parts[dir] = append(parts[dir], o.Key)
	}
	names := make([]string, 0, len(parts))
	for p, keys := range parts {
		slices.Sort(keys)
		names = append(names, p)
	}
	slices.Sort(names)
	return parts, names, nil
}

// cursor reads one file's rows in order.
type cursor struct {
	key  string
	obj  Object
	r    *parquet.GenericReader[Row]
	buf  []Row
	i, n int
	eof  bool
}

func openCursor(ctx context.Context, dest Dest, key string) (*cursor, error) {
	obj, err := dest.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(obj, obj.Size())
	if err != nil {
		obj.Close()
		return nil, fmt.Errorf("catalog: %s: %w: %w", key, ErrBadFile, err)
	}
	c := &cursor{key: key, obj: obj, buf: make([]Row, batch)}
	if err := guard(key, func() { c.r = parquet.NewGenericReader[Row](f) }); err != nil {
		obj.Close()
		return nil, err
	}
	return c, nil
}

// guard turns a panic of the Parquet library on a malformed file into an
// error naming the file.
func guard(key string, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("catalog: %s: %w: %v", key, ErrBadFile, p)
		}
	}()
	f()
	return nil
}

// row returns the current row, or nil at the end.
func (c *cursor) row() (*Row, error) {
	if c.i < c.n {
		return &c.buf[c.i], nil
	}
	if c.eof {
		return nil, nil
	}
	clear(c.buf) // fresh slices: a row kept by the caller must not change
	var n int
	var err error
	if gerr := guard(c.key, func() { n, err = c.r.Read(c.buf) }); gerr != nil {
		return nil, gerr
	}
	c.i, c.n = 0, n
	if err == io.EOF {
		c.eof = true
	} else if err != nil {
		return nil, fmt.Errorf("catalog: %s: %w: %w", c.key, ErrBadFile, err)
	}
	if n == 0 {
		c.eof = true
		return nil, nil
	}
	return &c.buf[0], nil
}

func (c *cursor) close() {
	if c.r != nil {
		c.r.Close()
	}
	c.obj.Close()
}

// cursors is a heap of cursors by their current row's run.
type cursors []*cursor

func (h cursors) Len() int { return len(h) }
func (h cursors) Less(i, j int) bool {
	a, b := &h[i].buf[h[i].i], &h[j].buf[h[j].i]
	if c := cmp.Compare(a.Run, b.Run); c != 0 {
		return c < 0
	}
	return a.WrittenAt.After(b.WrittenAt)
}
func (h cursors) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// openAll opens keys; a file deleted since it was listed (a compaction
// finished) makes it list the partition again, since the file that
// replaced it holds its rows.
func openAll(ctx context.Context, dest Dest, part string, keys []string) ([]*cursor, error) {
	for attempt := 0; ; attempt++ {
		var cs []*cursor
		var err error
		for _, k := range keys {
			var c *cursor
			if c, err = openCursor(ctx, dest, k); err != nil {
				break
			}
			cs = append(cs, c)
		}
		if err == nil {
			return cs, nil
		}
		for _, c := range cs {
			c.close()
		}
		if !errors.Is(err, fs.ErrNotExist) || attempt == 3 {
			return nil, err
		}
		objs, lerr := dest.List(ctx, part)
		if lerr != nil {
			return nil, lerr
		}
		keys = keys[:0]
		for _, o := range objs {
			if strings.HasSuffix(o.Key, ".parquet") && path.Dir(o.Key)+"/" == part {
				keys = append(keys, o.Key)
			}
		}
	}
}

// mergePartition calls fn with the latest row of every run in the files
// keys of partition part, in run order; with tombstones when all is set
// (a compaction keeps them), else without the runs they remove. A row
// passed to fn is valid only during the call.
func mergePartition(ctx context.Context, dest Dest, part string, keys []string, all bool, fn func(*Row) error) error {
	cs, err := openAll(ctx, dest, part, keys)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range cs {
			c.close()
		}
	}()
	h := make(cursors, 0, len(cs))
	for _, c := range cs {
		r, err := c.row()
		if err != nil {
			return err
		}
		if r != nil {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	var latest Row
	have := false
	emit := func() error {
		if !have || (latest.Removed && !all) {
			return nil
		}
		return fn(&latest)
	}
	for h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := h[0]
		r := &c.buf[c.i]
		if !have || r.Run != latest.Run {
			if err := emit(); err != nil {
				return err
			}
			latest, have = *r, true
		} else if r.WrittenAt.After(latest.WrittenAt) {
			latest = *r
		}
		c.i++
		next, err := c.row()
		if err != nil {
			return err
		}
		if next == nil {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return emit()
}

// Scan calls fn with the latest row of every run of the catalog at dest
// that no tombstone removed, partition by partition (oldest day first),
// in run order within one. Memory is bounded by the files of one
// partition. The row is valid only during the call.
func Scan(ctx context.Context, dest Dest, fn func(*Row) error) error {
	parts, names, err := partitions(ctx, dest)
	if err != nil {
		return err
	}
	for _, p := range names {
		if err := mergePartition(ctx, dest, p, parts[p], false, fn); err != nil {
			return err
		}
	}
	return nil
}
