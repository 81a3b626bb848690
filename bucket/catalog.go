package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/agenttrace/agenttrace/catalog"
)

// CatalogDest returns the catalog of the bucket's runs as a catalog.Dest:
// its files are the objects under <prefix>/catalog/, written create-only.
func (b *Bucket) CatalogDest() catalog.Dest { return catalogDest{b.b} }

// catalogDest is a catalog.Dest over a bucket prefix.
type catalogDest struct{ b *blob.Bucket }

// Create implements catalog.Dest: a create-only write, aborted when ctx
// ends before Close.
func (d catalogDest) Create(ctx context.Context, key string) (io.WriteCloser, error) {
	w, err := d.b.NewWriter(ctx, key, &blob.WriterOptions{IfNotExist: true, ContentType: "application/vnd.apache.parquet"})
	if err != nil {
		return nil, FSError("create "+key, err)
	}
	return w, nil
}

// Open implements catalog.Dest. A catalog file is bounded (the writer's
// MaxBytes), and read whole, so that it stays readable after a compaction
// deletes it.
func (d catalogDest) Open(ctx context.Context, key string) (catalog.Object, error) {
	b, err := d.b.ReadAll(ctx, key)
	if err != nil {
		return nil, FSError("read "+key, err)
	}
	return memObject{bytes.NewReader(b)}, nil
}

type memObject struct{ *bytes.Reader }

func (memObject) Close() error { return nil }

// List implements catalog.Dest.
func (d catalogDest) List(ctx context.Context, prefix string) ([]catalog.ObjectInfo, error) {
	var out []catalog.ObjectInfo
	it := d.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, FSError("list "+prefix, err)
		}
		if !o.IsDir {
			out = append(out, catalog.ObjectInfo{Key: o.Key, Size: o.Size})
		}
	}
}

// Delete implements catalog.Dest.
func (d catalogDest) Delete(ctx context.Context, key string) error {
	if err := d.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return FSError("delete "+key, err)
	}
	return nil
}

// FSError wraps err of op, mapping gocloud's codes onto the fs errors
// callers branch on (catalog.Dest promises them): NotFound wraps
// fs.ErrNotExist, FailedPrecondition and AlreadyExists fs.ErrExist.
func FSError(op string, err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s: %w", op, fs.ErrNotExist)
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return fmt.Errorf("%s: %w", op, fs.ErrExist)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// RunRow returns the catalog row of the run key names (any of its
// generations' keys): its generations merged (OpenRun), its keys all of
// theirs, its bytes their summed size.
func (b *Bucket) RunRow(ctx context.Context, key string) (catalog.Row, error) {
	dir, name := path.Split(key)
	k, err := parseName(name)
	if err != nil {
		return catalog.Row{}, fmt.Errorf("%w: %q: %w", ErrNotArtifactKey, key, err)
	}
	gens, err := b.generations(ctx, dir, k.ID)
	if err != nil {
		return catalog.Row{}, err
	}
	if len(gens) == 0 {
		return catalog.Row{}, fmt.Errorf("bucket %s: %s: %w", b.name, key, fs.ErrNotExist)
	}
	run := Run{Key: gens[0].Name.Run()}
	for _, g := range gens {
		run.Objects = append(run.Objects, g.Key)
		run.Size += g.Size
	}
	return b.RowOfRun(ctx, run)
}

// RowOfRun returns the catalog row of a run of a listing (Runs): its
// generations merged, its keys all of theirs.
func (b *Bucket) RowOfRun(ctx context.Context, run Run) (catalog.Row, error) {
	if len(run.Objects) == 0 {
		return catalog.Row{}, fmt.Errorf("bucket %s: %s: %w", b.name, run.Key, fs.ErrNotExist)
	}
	r, err := b.OpenRun(ctx, run.Objects[0])
	if err != nil {
		return catalog.Row{}, err
	}
	defer r.Close()
	return catalog.RowOf(r, catalog.Source{Name: b.name + "/" + run.Objects[0], Keys: run.Objects, Bytes: run.Size})
}
