package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Key is the columns of a Row that a merge of a partition's files needs:
// every projection [ScanAs] reads embeds it.
type Key struct {
	Run       string    `parquet:"run"`
	WrittenAt time.Time `parquet:"written_at,timestamp(nanosecond)"`
	Removed   bool      `parquet:"removed"`
}

func (k *Key) catalogKey() *Key { return k }

// keyer is a projection of Row's columns: a struct embedding Key.
type keyer interface{ catalogKey() *Key }

// ErrNotProjection is returned by [ScanAs] for a type that does not
// embed [Key].
var ErrNotProjection = errors.New("catalog: a projection must embed catalog.Key")

// ScanAs is [Scan] reading only some columns: T is a struct that embeds
// [Key] and whose other fields are fields of [Row], with their parquet
// tags; Parquet reads only T's columns (a list page's filter and sort
// columns cost a fraction of the whole row). fn is called with the latest
// row of every run no tombstone removed, as T, and where the row is, for
// [Fetch]. The row is valid only during the call.
func ScanAs[T any](ctx context.Context, dest Dest, fn func(*T, At) error) error {
	if _, ok := any(new(T)).(keyer); !ok {
		return fmt.Errorf("%w: %T", ErrNotProjection, *new(T))
	}
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

// Fetch returns the whole rows at ats, in their order, each file opened
// once. A file a compaction removed since it was scanned wraps
// fs.ErrNotExist: scan again.
func Fetch(ctx context.Context, dest Dest, ats []At) ([]Row, error) {
	entries := make([]entry, len(ats))
	for i, a := range ats {
		entries[i].at = a
	}
	return fetch(ctx, dest, entries)
}
