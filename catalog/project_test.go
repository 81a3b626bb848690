package catalog

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// costCols is a projection: the key, a run's service and cost.
type costCols struct {
	Key
	Service string   `parquet:"service"`
	CostUSD *float64 `parquet:"cost_usd,optional"`
}

// ScanAs reads a catalog's runs as a projection of their columns, the
// latest row of each and no removed run, as Scan reads them whole; Fetch
// reads the rows it points at whole, equal to Scan's.
func TestScanAsProjectsAndFetches(t *testing.T) {
	ctx := context.Background()
	dir := realFolder(t)
	_, err := Build(ctx, dir, WriterOptions{MaxRows: 5})
	require.NoError(t, err)
	dest := Dir(dir)
	// A later row of one run, and a run removed.
	var whole []Row
	require.NoError(t, Scan(ctx, dest, func(r *Row) error { whole = append(whole, *r); return nil }))
	require.Greater(t, len(whole), 2)
	w := NewWriter(dest, WriterOptions{})
	later := whole[0]
	later.Service, later.WrittenAt = "renamed", time.Now().Add(time.Hour)
	require.NoError(t, w.Add(ctx, later))
	gone := whole[1]
	require.NoError(t, w.Add(ctx, Row{Run: gone.Run, Started: gone.Started, Keys: gone.Keys, Removed: true, WrittenAt: time.Now().Add(time.Hour)}))
	require.NoError(t, w.Flush(ctx))
	whole = whole[:0]
	require.NoError(t, Scan(ctx, dest, func(r *Row) error { whole = append(whole, *r); return nil }))

	var got []costCols
	var ats []At
	require.NoError(t, ScanAs(ctx, dest, func(c *costCols, where At) error {
		got = append(got, *c)
		ats = append(ats, where)
		return nil
	}))
	require.Len(t, got, len(whole))
	for i, r := range whole {
		assert.Equal(t, costCols{Key: Key{Run: r.Run, WrittenAt: r.WrittenAt}, Service: r.Service, CostUSD: r.CostUSD}, got[i], r.Run)
	}
	assert.Equal(t, "renamed", got[0].Service)
	for _, c := range got {
		assert.NotEqual(t, gone.Run, c.Run, "a removed run")
	}
	rows, err := Fetch(ctx, dest, ats)
	require.NoError(t, err)
	assert.Equal(t, whole, rows)

	type noKey struct {
		Run string `parquet:"run"`
	}
	require.ErrorIs(t, ScanAs(ctx, dest, func(*noKey, At) error { return nil }), ErrNotProjection)
}
