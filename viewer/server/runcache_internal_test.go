package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cache holds runs up to its bytes: the least recently shown go
// first, a run larger than the whole cache is never kept, and a newer
// version of a file replaces the older.
func TestRunCacheEvictsByBytes(t *testing.T) {
	c := newRunCache(100)
	k := func(rel string, size int64) runKey { return runKey{rel: rel, size: size, mtime: 1} }
	c.add(k("a", 1), &loadedRun{cost: 60})
	c.add(k("b", 1), &loadedRun{cost: 30})
	_, ok := c.get(k("a", 1)) // a is now the most recently shown
	require.True(t, ok)
	c.add(k("c", 1), &loadedRun{cost: 30}) // 120 > 100: b goes, not a
	_, ok = c.get(k("b", 1))
	assert.False(t, ok, "least recently shown evicted")
	_, ok = c.get(k("a", 1))
	assert.True(t, ok)
	c.add(k("huge", 1), &loadedRun{cost: 101})
	_, ok = c.get(k("huge", 1))
	assert.False(t, ok, "larger than the cache: not kept")
	c.add(k("a", 2), &loadedRun{cost: 10}) // a grew
	_, ok = c.get(k("a", 1))
	assert.False(t, ok, "the older version is dropped")
	bytes, runs, hits, misses := c.stats()
	assert.Equal(t, int64(40), bytes, "c (30) and a's new version (10)")
	assert.Equal(t, 2, runs)
	assert.Equal(t, int64(2), hits)
	assert.Equal(t, int64(3), misses)
	assert.False(t, c.fits(26), "26 bytes on disk estimate to more than 100")
	assert.True(t, c.fits(25))
}

// get asks s's handler for target.
func get(t *testing.T, s *Server, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil))
	return rec
}

// goldenCopy copies testdata/golden/agent-run.jsonl (a reference
// artifact: 12 records and a trailer) into a new folder.
func goldenCopy(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "agent-run.jsonl"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.jsonl"), data, 0o644))
	return dir
}

// A run's page is read once: the second visit, and its /data, are served
// from the cache; a change of the file is read again.
func TestRunPageFromCache(t *testing.T) {
	dir := goldenCopy(t)
	s, err := New(dir)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Shutdown(context.Background())) })

	first := get(t, s, "/run/run.jsonl")
	require.Equal(t, http.StatusOK, first.Code, first.Body.String())
	second := get(t, s, "/run/run.jsonl")
	require.Equal(t, http.StatusOK, second.Code)
	assert.Equal(t, first.Body.String(), second.Body.String())
	require.Equal(t, http.StatusOK, get(t, s, "/data/run.jsonl").Code)
	_, runs, hits, misses := s.cache.stats()
	assert.Equal(t, [3]int64{1, 2, 1}, [3]int64{int64(runs), hits, misses})

	f, err := os.OpenFile(filepath.Join(dir, "run.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, http.StatusOK, get(t, s, "/run/run.jsonl").Code)
	_, runs, _, misses = s.cache.stats()
	assert.Equal(t, 1, runs, "the older version dropped")
	assert.Equal(t, int64(2), misses, "the changed file read again")
}

// runView is what /data and /records send: the records and the trailer.
type runView struct {
	Records []json.RawMessage `json:"records"`
	Trailer json.RawMessage   `json:"trailer"`
}

// A run of more records than the bound, or too large for the cache, is
// shown paged: its first records and its trailer, never loaded whole
// (nothing cached), the rest by range.
func TestRunPaged(t *testing.T) {
	for name, opts := range map[string][]Option{
		"records": {WithMaxRunRecords(5), WithPageRecords(4)},
		"bytes":   {WithCacheSize(1000), WithPageRecords(4)},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := New(goldenCopy(t), opts...)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, s.Shutdown(context.Background())) })

			page := get(t, s, "/run/run.jsonl")
			require.Equal(t, http.StatusOK, page.Code, page.Body.String())
			assert.Equal(t, "4", page.Header().Get("X-Agenttrace-Paged"))
			assert.Contains(t, page.Body.String(), "too large to load whole here")
			_, runs, _, _ := s.cache.stats()
			assert.Equal(t, 0, runs)

			var all []json.RawMessage
			for off := 0; ; off += 4 {
				rec := get(t, s, "/records/run.jsonl?offset="+strconv.Itoa(off)+"&limit=100")
				require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				var r runView
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
				assert.Contains(t, string(r.Trailer), `"records":12`, "the trailer with every range")
				all = append(all, r.Records...)
				if len(r.Records) < 4 {
					break
				}
				assert.Len(t, r.Records, 4, "limit bounded by the page size")
			}
			assert.Len(t, all, 12, "the ranges together hold every record of the reference artifact")

			data := get(t, s, "/data/run.jsonl")
			require.Equal(t, http.StatusOK, data.Code)
			var r runView
			require.NoError(t, json.Unmarshal(data.Body.Bytes(), &r))
			assert.Len(t, r.Records, 4, "/data of a paged run is its first page")

			assert.Equal(t, http.StatusBadRequest, get(t, s, "/records/run.jsonl?offset=-1").Code)
			assert.Equal(t, http.StatusBadRequest, get(t, s, "/records/run.jsonl?limit=x").Code)
		})
	}
}
