package main

import (
	"context"
	"errors"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
)

// openBucketCatalog opens the bucket of url for its catalog.
func openBucketCatalog(ctx context.Context, url string) (*bucket.Bucket, catalog.Dest, error) {
	b, err := bucket.Open(ctx, url)
	if err != nil {
		return nil, nil, ioError(err)
	}
	return b, b.CatalogDest(), nil
}

// buildBucketCatalog writes a row for every run of the bucket, its
// generations merged, then deletes the catalog files there were before.
func buildBucketCatalog(ctx context.Context, b *bucket.Bucket, dest catalog.Dest) (catalog.BuildStats, error) {
	var st catalog.BuildStats
	old, err := dest.List(ctx, "catalog/")
	if err != nil {
		return st, err
	}
	w := catalog.NewWriter(dest, catalog.WriterOptions{})
	for run, err := range b.Runs(ctx, "") {
		if err != nil {
			return st, err
		}
		row, err := b.RowOfRun(ctx, run)
		if err != nil {
			st.Failed = append(st.Failed, err)
			continue
		}
		if err := w.Add(ctx, row); err != nil {
			return st, err
		}
		st.Runs++
	}
	if err := w.Flush(ctx); err != nil {
		return st, err
	}
	var errs []error
	for _, o := range old {
		errs = append(errs, dest.Delete(ctx, o.Key))
		st.Removed++
	}
	return st, errors.Join(errs...)
}
