//go:build unix

package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// thousandRuns is a folder of 1,000 artifacts, the reference artifacts
// of every dialect copied round-robin, in ten subfolders.
func thousandRuns(b *testing.B) string {
	b.Helper()
	goldens, err := filepath.Glob(filepath.Join(golden, "*.jsonl"))
	if err != nil || len(goldens) == 0 {
		b.Fatalf("no reference artifacts: %v", err)
	}
	data := make([][]byte, len(goldens))
	for i, g := range goldens {
		if data[i], err = os.ReadFile(g); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	for i := range 1000 {
		sub := filepath.Join(dir, fmt.Sprintf("day-%d", i%10))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("run-%04d.jsonl", i)), data[i%len(data)], 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// getList serves the list page of h once, sorted and filtered by query.
func getList(b *testing.B, h http.Handler, query string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/?"+query, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("list: %d %s", rec.Code, rec.Body.String())
	}
}

// BenchmarkList1000 is the list page over 1,000 runs: "first" is a
// server's first listing, which reads every artifact (tokens, cost, the
// search text); "cached" a later one, the files unchanged, which only
// walks the folder, filters, sorts and renders; "sorted" the same, sorted
// by tokens with a filter on them. Besides wall time it reports the CPU
// time per listing (cpu-ns/op).
func BenchmarkList1000(b *testing.B) {
	dir := thousandRuns(b)
	b.Run("first", func(b *testing.B) {
		cpu := benchcpu.Now()
		for b.Loop() {
			s, err := server.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			getList(b, s.Handler(), "")
			if err := s.Shutdown(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		benchcpu.Report(b, cpu)
	})
	s, err := server.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	getList(b, s.Handler(), "")
	b.Run("cached", func(b *testing.B) {
		cpu := benchcpu.Now()
		for b.Loop() {
			getList(b, s.Handler(), "")
		}
		benchcpu.Report(b, cpu)
	})
	b.Run("sorted", func(b *testing.B) {
		cpu := benchcpu.Now()
		for b.Loop() {
			getList(b, s.Handler(), "sort=tokens&min_tokens=1000")
		}
		benchcpu.Report(b, cpu)
	})
}

// BenchmarkListFromCatalog is the list page of a folder listed from its
// run catalog: "first" a new server's first page (the catalog is there:
// it is read, not built), "sorted" a later page sorted by cost. The
// folder is AGENTTRACE_CATALOG_DIR when set (docs/benchmarks.md: 100,000
// runs, its catalog built by a first serve), else 2,000 generated runs
// whose catalog the benchmark builds first.
func BenchmarkListFromCatalog(b *testing.B) {
	dir := os.Getenv("AGENTTRACE_CATALOG_DIR")
	if dir == "" {
		dir = b.TempDir()
		realRuns(b, dir, 2000)
		s, err := server.New(dir, server.WithIndexLimit(1000))
		if err != nil {
			b.Fatal(err)
		}
		s.Runs(nil) // builds the catalog
		_ = s.Shutdown(context.Background())
	}
	b.Run("first", func(b *testing.B) {
		runtime.GC()
		peak := benchcpu.HeapPeak()
		cpu := benchcpu.Now()
		for b.Loop() {
			s, err := server.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			getOK(b, s.Handler(), "/")
			// The walk of the folder that the page starts, to its end:
			// its memory is the server's too.
			s.WalkNow()
			_ = s.Shutdown(context.Background())
		}
		benchcpu.Report(b, cpu)
		b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
	})
	// A new server's first page alone: the Index built, the page's rows
	// fetched; the walk it starts is stopped by the Shutdown, untimed.
	b.Run("firstpage", func(b *testing.B) {
		for b.Loop() {
			s, err := server.New(dir)
			if err != nil {
				b.Fatal(err)
			}
			getOK(b, s.Handler(), "/")
			b.StopTimer()
			_ = s.Shutdown(context.Background())
			b.StartTimer()
		}
	})
	b.Run("sorted", func(b *testing.B) {
		s, err := server.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = s.Shutdown(context.Background()) }()
		getOK(b, s.Handler(), "/")
		cpu := benchcpu.Now()
		for b.Loop() {
			getOK(b, s.Handler(), "/?sort=cost&page=7")
		}
		benchcpu.Report(b, cpu)
	})
}
