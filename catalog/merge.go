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
	"time"

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

// ident is what a merge needs of a row: its run, when it was written,
// and whether it is a tombstone.
type ident struct {
	run     string
	written time.Time
	removed bool
}

// keyed is a type of rows read from catalog files: a Row, or a
// projection of its columns (rowKey, or a struct embedding Key).
type keyed any

func identOf[T keyed](r *T) ident {
	switch r := any(r).(type) {
	case *Row:
		return ident{r.Run, r.WrittenAt, r.Removed}
	case *rowKey:
		return ident{r.Run, r.WrittenAt, r.Removed}
	case keyer:
		k := r.catalogKey()
		return ident{k.Run, k.WrittenAt, k.Removed}
	}
	panic("catalog: a projection that does not embed catalog.Key")
}

// cursor reads one file's rows in order.
type cursor[T keyed] struct {
	key  string
	obj  Object
	r    *parquet.GenericReader[T]
	buf  []T
	i, n int
	base int64 // the index in the file of buf[0]
	eof  bool
}

func openCursor[T keyed](ctx context.Context, dest Dest, key string) (*cursor[T], error) {
	obj, err := dest.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	var f *parquet.File
	if gerr := guard(key, func() { f, err = parquet.OpenFile(obj, obj.Size()) }); gerr != nil {
		obj.Close()
		return nil, gerr
	}
	if err != nil {
		obj.Close()
		return nil, fmt.Errorf("catalog: %s: %w: %w", key, ErrBadFile, err)
	}
	c := &cursor[T]{key: key, obj: obj, buf: make([]T, batch)}
	if err := guard(key, func() { c.r = parquet.NewGenericReader[T](f) }); err != nil {
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
func (c *cursor[T]) row() (*T, error) {
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
	c.base += int64(c.n)
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

func (c *cursor[T]) close() {
	if c.r != nil {
		c.r.Close()
	}
	c.obj.Close()
}

// cursors is a heap of cursors by their current row's run, the latest
// row first.
type cursors[T keyed] []*cursor[T]

func (h cursors[T]) Len() int { return len(h) }
func (h cursors[T]) Less(i, j int) bool {
	a, b := identOf(&h[i].buf[h[i].i]), identOf(&h[j].buf[h[j].i])
	if c := cmp.Compare(a.run, b.run); c != 0 {
		return c < 0
	}
	return a.written.After(b.written)
}
func (h cursors[T]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursors[T]) Push(x any)   { *h = append(*h, x.(*cursor[T])) }
func (h *cursors[T]) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// openAll opens keys; a file deleted since it was listed (a compaction
// finished) makes it list the partition again, since the file that
// replaced it holds its rows.
func openAll[T keyed](ctx context.Context, dest Dest, part string, keys []string) ([]*cursor[T], error) {
	for attempt := 0; ; attempt++ {
		var cs []*cursor[T]
		var err error
		for _, k := range keys {
			var c *cursor[T]
			if c, err = openCursor[T](ctx, dest, k); err != nil {
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

// At is where a row is in a catalog: its file and its index there, for
// [Fetch] to read the row whole after a [ScanAs] of a few columns.
type At struct {
	key   string
	index int64
}

// mergePartition calls fn with the latest row of every run in the files
// keys of partition part, in run order, and where it is; with tombstones
// when all is set (a compaction keeps them), else without the runs they
// remove. A row passed to fn is valid only during the call.
func mergePartition[T keyed](ctx context.Context, dest Dest, part string, keys []string, all bool, fn func(*T, At) error) error {
	cs, err := openAll[T](ctx, dest, part, keys)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range cs {
			c.close()
		}
	}()
	h := make(cursors[T], 0, len(cs))
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
	var latest T
	var where At
	var id ident
	have := false
	emit := func() error {
		if !have || (id.removed && !all) {
			return nil
		}
		return fn(&latest, where)
	}
	for h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := h[0]
		r := &c.buf[c.i]
		rid := identOf(r)
		if !have || rid.run != id.run {
			if err := emit(); err != nil {
				return err
			}
			latest, where, id, have = *r, At{c.key, c.base + int64(c.i)}, rid, true
		} else if rid.written.After(id.written) {
			latest, where, id = *r, At{c.key, c.base + int64(c.i)}, rid
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
		err := mergePartition(ctx, dest, p, parts[p], false, func(r *Row, _ At) error { return fn(r) })
		if err != nil {
			return err
		}
	}
	return nil
}
