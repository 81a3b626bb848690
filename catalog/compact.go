package catalog

import (
	"context"
	"errors"
)

// DefaultSmallFile is the size under which [Compact] merges a file with
// the other small files of its partition.
const DefaultSmallFile = 8 << 20

// CompactStats says what [Compact] did.
type CompactStats struct {
	// Merged counts the files merged, Written the files written in
	// their place, Rows the rows written (a run's older rows dropped).
	Merged, Written, Rows int
}

// Compact merges, in each partition of the catalog at dest, the files
// smaller than DefaultSmallFile into files bounded by opts, keeping the
// latest row of each run (and the tombstones, so that a removed run's
// older rows elsewhere stay hidden). It writes the merged files before it
// deletes the ones they replace: a Query meanwhile sees each run in both,
// which it dedupes, and never in neither.
func Compact(ctx context.Context, dest Dest, opts WriterOptions) (CompactStats, error) {
	var st CompactStats
	opts = opts.withDefaults()
	objs, err := dest.List(ctx, "catalog/")
	if err != nil {
		return st, err
	}
	sizes := make(map[string]int64, len(objs))
	for _, o := range objs {
		sizes[o.Key] = o.Size
	}
	parts, names, err := partitions(ctx, dest)
	if err != nil {
		return st, err
	}
	for _, p := range names {
		var small []string
		for _, k := range parts[p] {
			if sizes[k] < DefaultSmallFile {
				small = append(small, k)
			}
		}
		if len(small) < 2 {
			continue
		}
		n, rows, err := compactPartition(ctx, dest, p, small, opts)
		st.Written += n
		st.Rows += rows
		if err != nil {
			return st, err
		}
		var errs []error
		for _, k := range small {
			errs = append(errs, dest.Delete(ctx, k))
		}
		if err := errors.Join(errs...); err != nil {
			return st, err
		}
		st.Merged += len(small)
	}
	return st, nil
}

// compactPartition writes the merge of keys in files of part, streaming:
// rows come sorted, so each file is written as soon as it is full.
func compactPartition(ctx context.Context, dest Dest, part string, keys []string, opts WriterOptions) (files, rows int, err error) {
	var buf []Row
	var size int64
	write := func() error {
		if len(buf) == 0 {
			return nil
		}
		if err := writeFile(ctx, dest, part+fileName(), buf); err != nil {
			return err
		}
		files++
		rows += len(buf)
		buf, size = buf[:0], 0
		return nil
	}
	err = mergePartition(ctx, dest, part, keys, true, func(r *Row, _ At) error {
		n := rowBytes(r)
		if len(buf) >= opts.MaxRows || (len(buf) > 0 && size+n > opts.MaxBytes) {
			if err := write(); err != nil {
				return err
			}
		}
		buf = append(buf, *r)
		size += n
		return nil
	})
	if err != nil {
		return files, rows, err
	}
	return files, rows, write()
}
