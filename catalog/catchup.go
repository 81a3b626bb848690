package catalog

import (
	"context"
	"time"
)

// catchUp brings the catalog and the Keeper's view in line with the
// folder as it is at Start: the catalog's rows of artifacts that are
// there, unchanged, are taken as they are; an artifact finalized while
// no Keeper ran (or changed since its row) gets a row; a row whose
// artifact is gone gets a tombstone. An artifact whose last trailer does
// not say complete is left to the store, which finalizes it (and the
// hook tells).
func (k *Keeper) catchUp(ctx context.Context) {
	des, err := artifacts(k.dir)
	if err != nil {
		k.fail(err)
		return
	}
	sizes := make(map[string]int64, len(des))
	for _, de := range des {
		if fi, err := de.Info(); err == nil {
			sizes[de.Name()] = fi.Size()
		}
	}
	now := time.Now().UTC()
	err = Scan(ctx, Dir(k.dir), func(r *Row) error {
		if len(r.Keys) != 1 {
			return nil // not a folder's row
		}
		name := r.Keys[0]
		size, ok := sizes[name]
		switch {
		case !ok:
			k.buffer(ctx, Row{Run: r.Run, Started: r.Started, Keys: []string{name}, Removed: true, WrittenAt: now})
		case r.Complete && r.Bytes == size:
			k.f.track(name, r, size)
			delete(sizes, name)
		}
		return nil
	})
	if err != nil {
		k.fail(err)
	}
	for name := range sizes {
		if ctx.Err() != nil {
			return
		}
		row, err := FileRow(k.dir, name)
		if err != nil || !row.Complete {
			continue // being written, or left for the store to finalize
		}
		k.buffer(ctx, row)
		k.f.track(name, &row, row.Bytes)
	}
	if k.w.Buffered() > 0 {
		k.flush(ctx)
	}
}
