package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// get fetches path from srv and returns the status and body.
func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestServeBucket serves a file:// bucket of real runs uploaded with
// bucket.Put (checkServeBucket).
func TestServeBucket(t *testing.T) {
	checkServeBucket(t, "file://"+filepath.ToSlash(t.TempDir()))
}

// checkServeBucket uploads real runs to the bucket prefix loc with
// bucket.Put and serves it: without a catalog the list says how to build
// one; with it, the list pages through every run with the numbers of
// tokens --json, and a run page, fetched from the bucket, shows the run
// as the folder's server shows its local copy. It returns the bucket's
// server and the runs uploaded (key -> file name).
func checkServeBucket(t *testing.T, loc string) (*httptest.Server, map[string]string) {
	dir := runsFolder(t)
	b, err := bucket.Open(t.Context(), loc)
	require.NoError(t, err)
	local := map[string]string{} // key -> file name in dir
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	for _, f := range files {
		key, _, err := b.Put(t.Context(), f, filepath.Base(f), false)
		require.NoError(t, err)
		local[key] = filepath.Base(f)
	}
	require.NoError(t, b.Close())

	s, err := newViewer(t.Context(), loc, false)
	require.NoError(t, err)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, s.Shutdown(context.Background()))
	})
	code, body := get(t, srv, "/")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "No run catalog")
	assert.Contains(t, body, "agenttrace catalog build")

	r := agenttrace(t, "", "catalog", "build", loc)
	require.Equal(t, 0, r.code, r.stderr)
	code, body = get(t, srv, "/") // a reload reads the catalog again
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "no live tail for a bucket")

	const per = 4
	seen := map[string]bool{}
	for page := 1; ; page++ {
		l := s.Runs(url.Values{"per": {strconv.Itoa(per)}, "page": {strconv.Itoa(page)}, "sort": {"name"}})
		require.Equal(t, len(local), l.Matched)
		for _, row := range l.Rows {
			require.False(t, seen[row.Run], "%s on two pages", row.Run)
			seen[row.Run] = true
			name, ok := local[row.Run]
			require.True(t, ok, "%s: not a key uploaded", row.Run)
			tr := agenttrace(t, "", "tokens", filepath.Join(dir, name), "--json")
			require.Contains(t, []int{0, 1}, tr.code, tr.stderr)
			var want runTokens
			require.NoError(t, json.Unmarshal([]byte(tr.stdout), &want))
			assert.Equal(t, want.Tokens, row.Tokens, name)
			assert.Equal(t, want.Records.Total(), row.Records, name)
			assert.Equal(t, want.Errors, row.Errors, name)
			assert.Equal(t, want.CostUSD, row.CostUSD, name)
		}
		if len(l.Rows) < per {
			break
		}
	}
	assert.Len(t, seen, len(local))

	folder, err := server.New(dir)
	require.NoError(t, err)
	fsrv := httptest.NewServer(folder.Handler())
	t.Cleanup(func() {
		fsrv.Close()
		require.NoError(t, folder.Shutdown(context.Background()))
	})
	for key, name := range local {
		code, page := get(t, srv, "/run/"+key)
		require.Equal(t, http.StatusOK, code, key)
		assert.Contains(t, page, "no live tail", key)
		code, got := get(t, srv, "/data/"+key)
		require.Equal(t, http.StatusOK, code, key)
		code, want := get(t, fsrv, "/data/"+name)
		require.Equal(t, http.StatusOK, code, name)
		assert.JSONEq(t, want, strings.ReplaceAll(got, strconv.Quote(key), strconv.Quote(name)), key)
		code, raw := get(t, srv, "/raw/"+key)
		require.Equal(t, http.StatusOK, code, key)
		assert.NotEmpty(t, raw)
	}
	keys := slices.Collect(maps.Keys(local))
	code, cmp := get(t, srv, "/compare?c="+url.QueryEscape(keys[0])+"&c="+url.QueryEscape(keys[1]))
	require.Equal(t, http.StatusOK, code, "compare two runs of a bucket")
	assert.Contains(t, cmp, html.EscapeString(keys[0]))
	code, _ = get(t, srv, "/events/"+mapKey(local))
	assert.Equal(t, http.StatusNotFound, code, "no live tail")
	code, _ = get(t, srv, "/run/dt=2026-01-01/service=x/missing.jsonl")
	assert.Equal(t, http.StatusNotFound, code)
	code, _ = get(t, srv, "/run/../x.jsonl")
	assert.Equal(t, http.StatusBadRequest, code)
	return srv, local
}

// mapKey is one key of m.
func mapKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// countingBucket counts the runs fetched from the bucket.
type countingBucket struct {
	viewerBucket
	mu     sync.Mutex
	opened int
}

func (c *countingBucket) OpenRun(ctx context.Context, key string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.opened++
	c.mu.Unlock()
	return c.viewerBucket.OpenRun(ctx, key)
}

func (c *countingBucket) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened
}

// TestServeBucketCachesRunPage: a run's page is fetched from the bucket
// once, then served from the cache, the same bytes; a next generation of
// the run is a new version, fetched again.
func TestServeBucketCachesRunPage(t *testing.T) {
	loc := "file://" + filepath.ToSlash(t.TempDir())
	b, err := bucket.Open(t.Context(), loc)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	key, _, err := b.Put(t.Context(), filepath.Join("..", "..", "testdata", "golden", "agent-run.jsonl"), "agent-run.jsonl", false)
	require.NoError(t, err)
	cb := &countingBucket{viewerBucket: viewerBucket{b}}
	s, err := server.NewBucket(cb, b.CatalogDest())
	require.NoError(t, err)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, s.Shutdown(context.Background()))
	})

	code, first := get(t, srv, "/run/"+key)
	require.Equal(t, http.StatusOK, code)
	code, second := get(t, srv, "/run/"+key)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, first, second)
	code, _ = get(t, srv, "/data/"+key)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 1, cb.count(), "fetched once, then from the cache")

	// The same records again as generation 2 (a collector sending a run
	// again): merged, they are the run; its version is new.
	data, err := b.Blob().ReadAll(t.Context(), key)
	require.NoError(t, err)
	require.NoError(t, b.Blob().WriteAll(t.Context(), strings.TrimSuffix(key, ".jsonl")+".g2.jsonl", data, nil))
	code, third := get(t, srv, "/run/"+key)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 2, cb.count(), "a new generation is fetched again")
	assert.Equal(t, first, third, "records two generations hold come once")
}

// A bucket's run of more records than --max-run-records, or too large for
// the cache, is shown paged, as the folder's server shows the same file:
// its first records and the totals of its trailer with the note saying
// where the rest is, the rest by range; the page, its data and every
// range equal the folder's.
func TestServeBucketRunPaged(t *testing.T) {
	for name, opts := range map[string][]server.Option{
		"records": {server.WithMaxRunRecords(5), server.WithPageRecords(4)},
		"bytes":   {server.WithCacheSize(1000), server.WithPageRecords(4)},
	} {
		t.Run(name, func(t *testing.T) { checkBucketRunPaged(t, opts) })
	}
}

func checkBucketRunPaged(t *testing.T, opts []server.Option) {
	src := filepath.Join("..", "..", "testdata", "golden", "agent-run.jsonl")
	dir := t.TempDir()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agent-run.jsonl"), data, 0o644))
	loc := "file://" + filepath.ToSlash(t.TempDir())
	b, err := bucket.Open(t.Context(), loc)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	key, _, err := b.Put(t.Context(), src, "agent-run.jsonl", false)
	require.NoError(t, err)

	bs, err := server.NewBucket(viewerBucket{b}, b.CatalogDest(), opts...)
	require.NoError(t, err)
	fs, err := server.New(dir, opts...)
	require.NoError(t, err)
	bsrv, fsrv := httptest.NewServer(bs.Handler()), httptest.NewServer(fs.Handler())
	t.Cleanup(func() {
		bsrv.Close()
		fsrv.Close()
		require.NoError(t, bs.Shutdown(context.Background()))
		require.NoError(t, fs.Shutdown(context.Background()))
	})
	// The folder's names in the bucket's answers, to compare them.
	local := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, url.PathEscape(key), "agent-run.jsonl"), key, "agent-run.jsonl")
	}

	resp, err := bsrv.Client().Get(bsrv.URL + "/run/" + key)
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(page))
	assert.Equal(t, "4", resp.Header.Get("X-Agenttrace-Paged"))
	assert.Contains(t, string(page), "too large to load whole here")
	assert.Contains(t, string(page), "/records/"+key+"?offset=4&amp;limit=4")

	code, got := get(t, bsrv, "/data/"+key)
	require.Equal(t, http.StatusOK, code, got)
	code, want := get(t, fsrv, "/data/agent-run.jsonl")
	require.Equal(t, http.StatusOK, code, want)
	assert.JSONEq(t, want, local(got), "the paged run's data, as the folder's")
	for off := 0; off <= 12; off += 4 {
		q := "?offset=" + strconv.Itoa(off) + "&limit=100"
		code, got := get(t, bsrv, "/records/"+key+q)
		require.Equal(t, http.StatusOK, code, got)
		code, want := get(t, fsrv, "/records/agent-run.jsonl"+q)
		require.Equal(t, http.StatusOK, code, want)
		assert.JSONEq(t, want, local(got), "records from %d", off)
	}
	code, _ = get(t, bsrv, "/records/"+key+"?offset=-1")
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = get(t, bsrv, "/records/dt=2026-01-01/service=x/missing.jsonl")
	assert.Equal(t, http.StatusNotFound, code)
}
