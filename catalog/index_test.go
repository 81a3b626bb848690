package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexRow is the row of the Index's columns (ListCols) that ScanAs
// read: what Each must give, which keeps a run's first key alone and no
// empty list of models.
func indexRow(c *ListCols) Row {
	var r Row
	c.SetRow(&r)
	if len(r.Keys) > 0 {
		r.Keys = r.Keys[:1]
	} else {
		r.Keys = nil
	}
	if len(r.Models) == 0 {
		r.Models = nil
	}
	return r
}

// scanIndexCols is what ScanAs reads of the Index's columns, by run, and
// where each row is.
func scanIndexCols(t *testing.T, dest Dest) (map[string]Row, map[string]At) {
	t.Helper()
	rows, ats := map[string]Row{}, map[string]At{}
	require.NoError(t, ScanAs(context.Background(), dest, func(c *ListCols, at At) error {
		rows[c.Run], ats[c.Run] = indexRow(c), at
		return nil
	}))
	return rows, ats
}

// indexRows is what Each gives, by run, its rows copied.
func indexRows(x *Index) (map[string]Row, map[string]At) {
	rows, ats := map[string]Row{}, map[string]At{}
	x.Each(func(r *Row, at At) bool {
		c := *r
		c.Keys = append([]string(nil), r.Keys...)
		if r.CostUSD != nil {
			c.CostUSD = usd(*r.CostUSD)
		}
		if len(c.Keys) == 0 {
			c.Keys = nil
		}
		rows[r.Run], ats[r.Run] = c, at
		return true
	})
	return rows, ats
}

// An Index gives the runs Scan gives, with the columns ScanAs reads of
// them and where they are, and follows the catalog: a later row of a run,
// a tombstone, a new run, a compaction; reading again only the new files.
func TestIndexFollowsTheCatalog(t *testing.T) {
	ctx := context.Background()
	dir := realFolder(t)
	_, err := Build(ctx, dir, WriterOptions{MaxRows: 5})
	require.NoError(t, err)
	dest := Dir(dir)
	x := NewIndex(dest)
	assert.Zero(t, x.Files())
	assert.Empty(t, x.Version())
	require.NoError(t, x.Refresh(ctx))

	check := func(step string) {
		t.Helper()
		want, wantAt := scanIndexCols(t, dest)
		got, gotAt := indexRows(x)
		require.Equal(t, want, got, step)
		assert.Equal(t, len(want), x.Len(), step)
		for run, at := range gotAt {
			whole, err := Fetch(ctx, dest, []At{at})
			require.NoError(t, err, step)
			assert.Equal(t, run, whole[0].Run, step)
			if wantAt[run] == at {
				continue
			}
			// Two files may hold the same row (written at the same
			// time): the same row either way.
			other, err := Fetch(ctx, dest, []At{wantAt[run]})
			require.NoError(t, err, step)
			assert.Equal(t, other, whole, step)
		}
	}
	check("built")
	v0 := x.Version()
	require.NotEmpty(t, v0)

	var whole []Row
	require.NoError(t, Scan(ctx, dest, func(r *Row) error { whole = append(whole, *r); return nil }))
	require.Greater(t, len(whole), 3)
	w := NewWriter(dest, WriterOptions{})
	later := whole[0]
	later.Service, later.Errors, later.WrittenAt = "renamed", 7, time.Now().Add(time.Hour)
	require.NoError(t, w.Add(ctx, later))
	gone := whole[1]
	require.NoError(t, w.Add(ctx, Row{Run: gone.Run, Started: gone.Started, Keys: gone.Keys, Removed: true, WrittenAt: time.Now().Add(time.Hour)}))
	fresh := Row{Run: "new/run.jsonl", Keys: []string{"new/run.jsonl"}, Service: "svc", Started: day(3), Ended: day(4),
		DurationMS: 3_600_000, Records: 3, TotalTokens: 40, CostUSD: usd(0.25), Models: []string{"m1", "m2"}, Complete: true,
		BudgetTokens: 30, OverBudget: true, WrittenAt: time.Now()}
	require.NoError(t, w.Add(ctx, fresh))
	require.NoError(t, w.Flush(ctx))
	require.NoError(t, x.Refresh(ctx))
	check("a later row, a tombstone, a new run")
	got, _ := indexRows(x)
	assert.Equal(t, "renamed", got[later.Run].Service)
	assert.NotContains(t, got, gone.Run)
	assert.Equal(t, []string{"m1", "m2"}, got[fresh.Run].Models)
	assert.NotEqual(t, v0, x.Version())

	_, err = Compact(ctx, dest, WriterOptions{})
	require.NoError(t, err)
	require.NoError(t, x.Refresh(ctx))
	check("compacted")
}

// A file that is not Parquet is an error naming it, not a panic; the
// Index keeps what it had.
func TestIndexBadFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dest := Dir(dir)
	x := NewIndex(dest)
	require.NoError(t, x.Refresh(ctx))
	assert.Zero(t, x.Len())
	w, err := dest.Create(ctx, "catalog/dt=2026-12-05/bad.parquet")
	require.NoError(t, err)
	_, err = w.Write([]byte("not parquet"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	err = x.Refresh(ctx)
	require.ErrorIs(t, err, ErrBadFile)
	assert.Contains(t, err.Error(), "bad.parquet")
	assert.Zero(t, x.Files())
}

// FuzzIndexFile: whatever a catalog file holds, an Index reads it or
// says it cannot (ErrBadFile, or a missing file), never panics, and what
// it reads is what Scan reads of it.
func FuzzIndexFile(f *testing.F) {
	ctx := context.Background()
	seed := Dir(f.TempDir())
	w := NewWriter(seed, WriterOptions{})
	for i, r := range benchRows(20) {
		r.Models = append(r.Models, fmt.Sprintf("m%d", i%3))
		r.Agent = fmt.Sprintf("agent-%d", i%2)
		if i%4 == 0 {
			r.CostUSD, r.Removed = nil, i%8 == 0
		}
		r.WrittenAt = day(1)
		require.NoError(f, w.Add(ctx, r))
	}
	require.NoError(f, w.Flush(ctx))
	objs, err := seed.List(ctx, "catalog/")
	require.NoError(f, err)
	for _, o := range objs {
		b, err := os.ReadFile(filepath.Join(string(seed), filepath.FromSlash(o.Key)))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		name := filepath.Join(dir, "catalog", "dt=2026-12-05", "x.parquet")
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, data, 0o644))
		x := NewIndex(Dir(dir))
		if err := x.Refresh(ctx); err != nil {
			require.ErrorIs(t, err, ErrBadFile)
			return
		}
		var scanned int
		if err := Scan(ctx, Dir(dir), func(*Row) error { scanned++; return nil }); err == nil {
			assert.Equal(t, scanned, x.Len(), "the runs Scan reads")
		}
	})
}
