package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
)

// bucketDest is a catalog.Dest over a bucket prefix: the catalog of a
// bucket's runs, under <prefix>/catalog/.
type bucketDest struct{ b *blob.Bucket }

// Create implements catalog.Dest: a create-only write, aborted when ctx
// ends before Close.
func (d bucketDest) Create(ctx context.Context, key string) (io.WriteCloser, error) {
	w, err := d.b.NewWriter(ctx, key, &blob.WriterOptions{IfNotExist: true, ContentType: "application/vnd.apache.parquet"})
	if err != nil {
		return nil, bucketErr("create "+key, err)
	}
	return w, nil
}

// Open implements catalog.Dest. A catalog file is bounded (the writer's
// MaxBytes), and read whole, so that it stays readable after a compaction
// deletes it.
func (d bucketDest) Open(ctx context.Context, key string) (catalog.Object, error) {
	b, err := d.b.ReadAll(ctx, key)
	if err != nil {
		return nil, bucketErr("read "+key, err)
	}
	return memObject{bytes.NewReader(b)}, nil
}

type memObject struct{ *bytes.Reader }

func (memObject) Close() error { return nil }

// List implements catalog.Dest.
func (d bucketDest) List(ctx context.Context, prefix string) ([]catalog.ObjectInfo, error) {
	var out []catalog.ObjectInfo
	it := d.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, bucketErr("list "+prefix, err)
		}
		if !o.IsDir {
			out = append(out, catalog.ObjectInfo{Key: o.Key, Size: o.Size})
		}
	}
}

// Delete implements catalog.Dest.
func (d bucketDest) Delete(ctx context.Context, key string) error {
	if err := d.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return bucketErr("delete "+key, err)
	}
	return nil
}

// bucketErr maps gocloud's codes onto the fs errors catalog.Dest promises.
func bucketErr(op string, err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s: %w", op, fs.ErrNotExist)
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return fmt.Errorf("%s: %w", op, fs.ErrExist)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// openBucketCatalog opens the bucket of url for its catalog.
func openBucketCatalog(ctx context.Context, url string) (*bucket.Bucket, catalog.Dest, error) {
	b, err := bucket.Open(ctx, url)
	if err != nil {
		return nil, nil, ioError(err)
	}
	return b, bucketDest{b.Blob()}, nil
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
		row, err := bucketRow(ctx, b, run)
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

func bucketRow(ctx context.Context, b *bucket.Bucket, run bucket.Run) (catalog.Row, error) {
	r, err := b.OpenRun(ctx, run.Objects[0])
	if err != nil {
		return catalog.Row{}, err
	}
	defer r.Close()
	return catalog.RowOf(r, catalog.Source{Name: b.String() + "/" + run.Objects[0], Keys: run.Objects, Bytes: run.Size})
}
