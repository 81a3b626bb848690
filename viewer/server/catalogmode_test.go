package server_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// A folder of more runs than the index limit is listed from its run
// catalog, built on the first request: every query (filters, sorts, pages)
// lists the same runs, in the same order, with the same numbers and names,
// as the in-memory index of the same folder lists them. The folder holds
// the reference artifacts of every dialect, real records.
func TestListFromCatalogAgreesWithIndex(t *testing.T) {
	dir := t.TempDir()
	realRuns(t, dir, 130)
	index := start(t, dir) // 130 runs: the in-memory index
	fromCatalog := start(t, dir, server.WithIndexLimit(100))
	awaitCatalog(t, fromCatalog, 130)

	queries := []string{
		"", "page=2&per=50", "sort=tokens", "sort=tokens&dir=asc&per=7&page=3", "sort=cost", "sort=cost&dir=asc",
		"sort=run&dir=asc&per=20", "sort=service", "sort=records", "sort=errors", "sort=duration&dir=asc",
		"service=svc-2", "status=error", "status=open", "min_cost=0.01", "max_cost=0.01",
		"min_tokens=5000", "min_duration=10s", "q=travel", "model=gpt-4o-2024-08-06", "agent=travel-planner&sort=tokens",
	}
	for _, q := range queries {
		v, err := url.ParseQuery(q)
		require.NoError(t, err)
		want, got := index.Runs(v), fromCatalog.Runs(v)
		require.NotEmpty(t, want.Rows, "%q: the query selects runs", q)
		assert.Equal(t, want.Matched, got.Matched, "%q: matched", q)
		require.Len(t, got.Rows, len(want.Rows), q)
		for i := range want.Rows {
			w, g := want.Rows[i], got.Rows[i]
			assert.Equal(t, w.Run, g.Run, "%q row %d", q, i)
			assert.Equal(t, w.Tokens, g.Tokens, "%q %s tokens", q, w.Run)
			assert.Equal(t, w.CostUSD, g.CostUSD, "%q %s cost", q, w.Run)
			assert.Equal(t, w.CostUnknown, g.CostUnknown, "%q %s unpriced", q, w.Run)
			assert.Equal(t, w.Records, g.Records, "%q %s records", q, w.Run)
			assert.Equal(t, w.Errors, g.Errors, "%q %s errors", q, w.Run)
			assert.Equal(t, w.Budget, g.Budget, "%q %s budget", q, w.Run)
			assert.Equal(t, w.Complete, g.Complete, "%q %s complete", q, w.Run)
			assert.Equal(t, w.Name, g.Name, "%q %s name", q, w.Run)
			assert.Equal(t, w.Prompt, g.Prompt, "%q %s prompt", q, w.Run)
			assert.True(t, w.Started.Equal(g.Started), "%q %s started", q, w.Run)
		}
	}
	cat, err := filepath.Glob(filepath.Join(dir, "catalog", "dt=*", "*.parquet"))
	require.NoError(t, err)
	assert.NotEmpty(t, cat, "the catalog was written into the folder")
}

// A folder that holds a catalog is listed from it at once, whatever its
// size, and a run written afterwards is listed once the walk that follows
// the page has read it (at the next request when the walk is quick).
func TestListFromCatalogFollowsFolder(t *testing.T) {
	dir := t.TempDir()
	realRuns(t, dir, 30)
	first := start(t, dir, server.WithIndexLimit(10))
	awaitCatalog(t, first, 30)

	ts := start(t, dir) // a catalog is there: listed from it
	require.Equal(t, 30, ts.Runs(nil).Matched)
	data, err := os.ReadFile(filepath.Join(golden, "agent-run.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.jsonl"), data, 0o644))
	var l server.RunList
	require.Eventually(t, func() bool {
		l = ts.Runs(url.Values{"q": {"new.jsonl"}})
		return l.Matched == 1
	}, 10*time.Second, 10*time.Millisecond, "the new run is listed")
	assert.Equal(t, "invoke_agent travel-planner", l.Rows[0].Name)
}

// awaitCatalog waits until ts lists n runs from its catalog, the first
// build over: until then the list says it is indexing and shows what the
// catalog holds so far.
func awaitCatalog(t *testing.T, ts *testServer, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		l := ts.Runs(nil)
		return l.Matched == n && !l.Indexing
	}, 60*time.Second, 20*time.Millisecond, "the catalog of %d runs is built", n)
}
