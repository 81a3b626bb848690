package bucket

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/catalog"
)

// TestPublisherCatalog (issue 23 point 2): with a catalog, each uploaded
// run gets its row in the bucket's catalog (<prefix>/catalog/), its keys
// the run's objects; a run that got a second generation gets a newer row
// whose numbers are those of the merged run, which are those of one
// artifact of all its records (tokens --json's, through RowOf).
func TestPublisherCatalog(t *testing.T) {
	recs, _ := realRun(t, "mastra", "tool-loop")
	late := childCopy(recs[3])
	wholeRaw, err := os.ReadFile(writeArtifact(t, append(append([]artifact.Record{}, recs...), late), plog.NewLogs()))
	require.NoError(t, err)
	want := rowOf(t, wholeRaw)
	for bname, b := range backends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			var (
				mu       sync.Mutex // two workers upload
				uploaded []string
			)
			st, p := publishing(t, b, dir, PublisherOptions{Zstd: bname == "memblob",
				Catalog:  &CatalogOptions{FlushEvery: time.Millisecond},
				Uploaded: func(key string, existed bool) { mu.Lock(); uploaded = append(uploaded, key); mu.Unlock() }})
			require.NoError(t, st.Write(recs))
			require.Eventually(t, func() bool {
				page, err := catalog.Query(ctx, b.CatalogDest(), catalog.Filter{}, catalog.Sort{}, 0, 0)
				return err == nil && page.Total == 1
			}, 10*time.Second, time.Millisecond, "the first generation's row")
			require.NoError(t, st.Write([]artifact.Record{late}))
			require.NoError(t, st.Close())
			require.NoError(t, p.Shutdown(ctx))
			assert.Equal(t, int64(2), p.Stats().CatalogRows)
			assert.Empty(t, localArtifacts(t, dir), "local copies removed once their rows are written")
			require.Len(t, uploaded, 2)

			page, err := catalog.Query(ctx, b.CatalogDest(), catalog.Filter{}, catalog.Sort{}, 0, 0)
			require.NoError(t, err)
			require.Len(t, page.Rows, 1, "one row per run: the latest")
			got := page.Rows[0]
			assert.Equal(t, uploaded, got.Keys, "the row names every generation")
			assert.Equal(t, catalog.RunOf(uploaded[0]), got.Run)
			assert.Positive(t, got.Bytes)
			for _, r := range []*catalog.Row{&got, &want} {
				r.Run, r.Keys, r.Bytes, r.WrittenAt = "", nil, 0, time.Time{}
			}
			assert.Equal(t, want, got, "the merged run's numbers")
			keys := keys(t, b)
			assert.Condition(t, func() bool {
				for _, k := range keys {
					if len(k) > len("catalog/dt=") && k[:len("catalog/dt=")] == "catalog/dt=" {
						return true
					}
				}
				return false
			}, "catalog files under catalog/dt=…: %v", keys)
		})
	}
}

// TestPublisherCatalogRowFromLocal: the row of a run uploaded as one
// object, made from its local file before the file is removed, is the
// row the bucket gives for the run (RunRow: its objects listed, read
// back), its bytes the object's size, compressed or not.
func TestPublisherCatalogRowFromLocal(t *testing.T) {
	recs, _ := realRun(t, "mastra", "tool-loop")
	for bname, b := range backends(t) {
		for _, zstdOn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/zstd=%v", bname, zstdOn), func(t *testing.T) {
				ctx := context.Background()
				b := New(blobPrefixed(b, fmt.Sprintf("zstd-%v/", zstdOn)), bname)
				st, p := publishing(t, b, t.TempDir(), PublisherOptions{Zstd: zstdOn,
					Catalog: &CatalogOptions{FlushEvery: time.Millisecond}})
				require.NoError(t, st.Write(recs))
				require.NoError(t, st.Close())
				require.NoError(t, p.Shutdown(ctx))
				page, err := catalog.Query(ctx, b.CatalogDest(), catalog.Filter{}, catalog.Sort{}, 0, 0)
				require.NoError(t, err)
				require.Len(t, page.Rows, 1)
				got := page.Rows[0]
				require.Len(t, got.Keys, 1)
				want, err := b.RunRow(ctx, got.Keys[0])
				require.NoError(t, err)
				got.WrittenAt, want.WrittenAt = time.Time{}, time.Time{}
				assert.Equal(t, want, got)
			})
		}
	}
}
