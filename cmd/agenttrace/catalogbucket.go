package main

import (
	"context"

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

// buildBucketCatalog rebuilds the bucket's catalog (catalog.Rebuild): a
// row for every run of the bucket, its generations merged.
func buildBucketCatalog(ctx context.Context, b *bucket.Bucket, dest catalog.Dest) (catalog.BuildStats, error) {
	return catalog.Rebuild(ctx, dest, catalog.WriterOptions{}, func(yield func(catalog.Row, error) bool) error {
		for run, err := range b.Runs(ctx, "") {
			if err != nil {
				return err
			}
			if !yield(b.RowOfRun(ctx, run)) {
				break
			}
		}
		return nil
	})
}
