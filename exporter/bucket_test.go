package agenttraceexporter

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
)

// TestBucketUploads (issue 23 point 1): with bucket set, a trace finalized
// at shutdown is uploaded, laid out by day and service (zstd with
// compression: zstd), and leaves nothing in the directory, its staging
// area.
func TestBucketUploads(t *testing.T) {
	for _, compression := range []string{CompressionNone, CompressionZstd} {
		t.Run(compression, func(t *testing.T) {
			dir, objects := t.TempDir(), t.TempDir()
			url := "file://" + filepath.ToSlash(objects) + "?prefix=runs/"
			cfg := createDefaultConfig().(*Config)
			cfg.Directory, cfg.Bucket, cfg.Compression = dir, url, compression
			require.NoError(t, cfg.Validate())
			e := newExporter(cfg, zap.NewNop(), nil)
			require.NoError(t, e.start(context.Background(), nil))
			push(t, e, spec{tid: 1, sid: 2, parent: 1}, spec{tid: 1, sid: 1})
			require.NoError(t, e.shutdown(context.Background()))

			left, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
			require.NoError(t, err)
			assert.Empty(t, left)
			b, err := bucket.Open(context.Background(), url)
			require.NoError(t, err)
			defer b.Close()
			var runs []bucket.Run
			for r, err := range b.Runs(context.Background(), "") {
				require.NoError(t, err)
				runs = append(runs, r)
			}
			require.Len(t, runs, 1)
			want := "dt=2026-05-04/service=svc/" + tid(1).String() + ".jsonl"
			if compression == CompressionZstd {
				want += ".zst"
			}
			assert.Equal(t, []string{want}, runs[0].Objects)
			_, err = os.Stat(filepath.Join(objects, "runs", filepath.FromSlash(want)))
			require.NoError(t, err, "under the URL's prefix")
			rc, err := b.OpenRun(context.Background(), want)
			require.NoError(t, err)
			defer rc.Close()
			f, err := os.CreateTemp(t.TempDir(), "*.jsonl")
			require.NoError(t, err)
			_, err = f.ReadFrom(rc)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			a := readArtifact(t, f.Name())
			assert.Len(t, a.recs, 2)
		})
	}
}

// TestBucketCatalog (issue 23 point 2): with a bucket and catalog.enabled,
// the run's row goes to the bucket's catalog (after its upload, naming
// its object), and the directory, a staging area, keeps no catalog.
func TestBucketCatalog(t *testing.T) {
	ctx := context.Background()
	dir, objects := t.TempDir(), t.TempDir()
	url := "file://" + filepath.ToSlash(objects) + "?prefix=runs/"
	cfg := createDefaultConfig().(*Config)
	cfg.Directory, cfg.Bucket, cfg.Catalog.Enabled = dir, url, true
	require.NoError(t, cfg.Validate())
	e := newExporter(cfg, zap.NewNop(), nil)
	require.NoError(t, e.start(ctx, nil))
	push(t, e, spec{tid: 1, sid: 2, parent: 1}, spec{tid: 1, sid: 1})
	require.NoError(t, e.shutdown(ctx))

	_, err := os.Stat(filepath.Join(dir, "catalog"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no catalog in the staging directory")
	b, err := bucket.Open(ctx, url)
	require.NoError(t, err)
	defer b.Close()
	page, err := catalog.Query(ctx, b.CatalogDest(), catalog.Filter{}, catalog.Sort{}, 0, 0)
	require.NoError(t, err)
	require.Len(t, page.Rows, 1)
	obj := "dt=2026-05-04/service=svc/" + tid(1).String() + ".jsonl"
	assert.Equal(t, []string{obj}, page.Rows[0].Keys)
	assert.Equal(t, int64(2), page.Rows[0].Records, "the two spans pushed")
}
