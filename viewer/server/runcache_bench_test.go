package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/viewer/server"
)

var (
	spanIDRe  = regexp.MustCompile(`"span_id":"[0-9a-f]{16}"`)
	recordsRe = regexp.MustCompile(`"records":\d+`)
)

// writeBigRun writes an artifact of n records to path: the header and
// trailer of the reference artifact agent-run.jsonl (testdata/golden),
// its three smallest record lines repeated, each with a span id of its
// own, and the trailer's record count set to n. A run's size, not its
// realism, is what the cache and the paged page are measured on.
func writeBigRun(tb testing.TB, path string, n int) {
	tb.Helper()
	lines := strings.Split(strings.TrimSpace(string(readGolden(tb, "agent-run.jsonl"))), "\n")
	head, trailer, recs := lines[0], lines[len(lines)-1], lines[1:len(lines)-1]
	small := make([]string, 0, 3)
	for len(small) < 3 {
		best := -1
		for i, r := range recs {
			if strings.Contains(r, `"kind":"log"`) || containsStr(small, r) {
				continue
			}
			if best < 0 || len(r) < len(recs[best]) {
				best = i
			}
		}
		small = append(small, recs[best])
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, head)
	for i := range n {
		fmt.Fprintln(w, spanIDRe.ReplaceAllLiteralString(small[i%3], fmt.Sprintf(`"span_id":"%016x"`, i+1)))
	}
	fmt.Fprintln(w, recordsRe.ReplaceAllLiteralString(trailer, `"records":`+strconv.Itoa(n)))
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestWriteBigRun writes the artifact writeBigRun makes to
// AGENTTRACE_BIG_RUN=PATH:RECORDS, for measuring a real serve process
// (docs/benchmarks.md); opt-in.
func TestWriteBigRun(t *testing.T) {
	spec := os.Getenv("AGENTTRACE_BIG_RUN")
	path, count, ok := strings.Cut(spec, ":")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n <= 0 {
		t.Skip("AGENTTRACE_BIG_RUN=PATH:RECORDS writes a generated run")
	}
	writeBigRun(t, path, n)
}

// discard is a ResponseWriter that keeps the status and counts the body:
// the benchmark measures the server's work, not a copy of a 200 MB page
// into a recorder's buffer.
type discard struct {
	h    http.Header
	code int
	n    int
}

func (d *discard) Header() http.Header { return d.h }
func (d *discard) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}
func (d *discard) Write(p []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	d.n += len(p)
	return len(p), nil
}

// getOK serves target from h once.
func getOK(b *testing.B, h http.Handler, target string) {
	d := &discard{h: http.Header{}}
	h.ServeHTTP(d, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil))
	if d.code != http.StatusOK || d.n == 0 {
		b.Fatalf("%s: %d, %d bytes", target, d.code, d.n)
	}
}

// BenchmarkRunPage is a run page of 100,000 records (1,000 with -short):
// "first" a visit that reads the artifact (a server with an empty cache),
// "second" a later visit, served from the cache; "paged" the page of the
// same run over the records bound: its first 1,000 records and trailer;
// bucket-first, bucket-second and bucket-paged the same in bucket mode.
func BenchmarkRunPage(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 1000
	}
	dir := b.TempDir()
	writeBigRun(b, filepath.Join(dir, "big.jsonl"), n)
	newServer := func(opts ...server.Option) *server.Server {
		s, err := server.New(dir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		return s
	}
	big := server.WithCacheSize(8 << 30)
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			getOK(b, newServer(big).Handler(), "/run/big.jsonl")
		}
	})
	b.Run("second", func(b *testing.B) {
		h := newServer(big).Handler()
		getOK(b, h, "/run/big.jsonl")
		for b.Loop() {
			getOK(b, h, "/run/big.jsonl")
		}
	})
	b.Run("paged", func(b *testing.B) {
		h := newServer(server.WithMaxRunRecords(1000)).Handler()
		for b.Loop() {
			getOK(b, h, "/run/big.jsonl")
		}
	})
	// The same in bucket mode (server.NewBucket over a Bucket reading the
	// folder's file: the server's fetch, cache and pages, not a cloud
	// SDK's transfer).
	newBucketServer := func(opts ...server.Option) *server.Server {
		s, err := server.NewBucket(dirBucket(dir), catalog.Dir(dir), opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		return s
	}
	b.Run("bucket-first", func(b *testing.B) {
		for b.Loop() {
			getOK(b, newBucketServer(big).Handler(), "/run/big.jsonl")
		}
	})
	b.Run("bucket-second", func(b *testing.B) {
		h := newBucketServer(big).Handler()
		getOK(b, h, "/run/big.jsonl")
		for b.Loop() {
			getOK(b, h, "/run/big.jsonl")
		}
	})
	b.Run("bucket-paged", func(b *testing.B) {
		for b.Loop() { // a new server each time: the paged view is cached too
			getOK(b, newBucketServer(server.WithMaxRunRecords(1000)).Handler(), "/run/big.jsonl")
		}
	})
}

// dirBucket is a server.Bucket over the files of a folder: a run's
// version is its file's size and modification time.
type dirBucket string

func (d dirBucket) String() string { return "dir://" + string(d) }

func (d dirBucket) OpenRun(_ context.Context, key string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(string(d), filepath.FromSlash(key)))
}

func (d dirBucket) Version(_ context.Context, key string) (string, error) {
	fi, err := os.Stat(filepath.Join(string(d), filepath.FromSlash(key)))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano()), nil
}

// BenchmarkListRuns is the list page's first page over 10,000 generated
// runs (100,000 with AGENTTRACE_LIST_RUNS=100000): "first" a server's
// first request, which walks the folder and reads every artifact;
// "next" a later one, answered from the index.
func BenchmarkListRuns(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("AGENTTRACE_LIST_RUNS")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	smallRuns(b, dir, n)
	b.Run(fmt.Sprintf("first-%d", n), func(b *testing.B) {
		for b.Loop() {
			s, err := server.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			getOK(b, s.Handler(), "/")
			_ = s.Shutdown(context.Background())
		}
	})
	b.Run(fmt.Sprintf("next-%d", n), func(b *testing.B) {
		s, err := server.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = s.Shutdown(context.Background()) }()
		getOK(b, s.Handler(), "/")
		for b.Loop() {
			getOK(b, s.Handler(), "/?page=7")
		}
	})
}
