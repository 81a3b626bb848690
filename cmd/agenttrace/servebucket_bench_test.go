package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/internal/seaweedtest"
)

// BenchmarkListFromBucketCatalog is serve URL's list page over a file://
// bucket whose catalog holds N runs' rows (AGENTTRACE_BUCKET_RUNS, default
// 2,000; docs/benchmarks.md gives 100,000): "first" a new server's first
// page, "sorted" a later page sorted by cost. The rows are generated,
// spread over 70 days and 7 services, and written through the bucket's
// catalog.Dest in compacted files, as "catalog build URL" leaves them.
// With AGENTTRACE_BUCKET_S3=1 the bucket is an s3:// one on SeaweedFS
// (AGENTTRACE_SEAWEEDFS, see internal/seaweedtest): every catalog file and
// listing a round trip to a real S3 server on loopback.
func BenchmarkListFromBucketCatalog(b *testing.B) {
	n := 2000
	if v := os.Getenv("AGENTTRACE_BUCKET_RUNS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err)
	}
	ctx := context.Background()
	loc := "file://" + filepath.ToSlash(b.TempDir())
	if os.Getenv("AGENTTRACE_BUCKET_S3") == "1" {
		s3 := seaweedtest.Start(b, "runs")
		for _, kv := range seaweedtest.ClientEnv() {
			k, v, _ := strings.Cut(kv, "=")
			b.Setenv(k, v)
		}
		loc = s3.URL("bench")
	}
	bk, dest, err := openBucketCatalog(ctx, loc)
	require.NoError(b, err)
	w := catalog.NewWriter(dest, catalog.WriterOptions{MaxRows: 10_000})
	day0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		started := day0.Add(time.Duration(i%70) * 24 * time.Hour).Add(time.Duration(i) * time.Second)
		cost := float64(i%997) / 1000
		svc := fmt.Sprintf("svc-%d", i%7)
		key := bucket.KeyOf(fmt.Sprintf("%032x.jsonl", i*7919), started, svc, false).String()
		require.NoError(b, w.Add(ctx, catalog.Row{Run: loc + "/" + key, Service: svc, RootName: "invoke_agent planner",
			FirstPrompt: "Plan a trip to Lisbon for three days, with a budget", Started: started, Ended: started.Add(time.Minute),
			DurationMS: 60_000, Records: 12, InputTokens: int64(i % 5000), TotalTokens: int64(i%5000 + 300), CostUSD: &cost,
			Models: []string{"gpt-4o-mini"}, Tools: []string{"search", "book"}, Keys: []string{key}, Complete: true}))
	}
	require.NoError(b, w.Flush(ctx))
	_, err = catalog.Compact(ctx, dest, catalog.WriterOptions{})
	require.NoError(b, err)
	require.NoError(b, bk.Close())

	page := func(b *testing.B, h http.Handler, target string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil))
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			b.Fatalf("%s: %d", target, rec.Code)
		}
	}
	b.Run(fmt.Sprintf("first/runs=%d", n), func(b *testing.B) {
		runtime.GC()
		peak := benchcpu.HeapPeak()
		cpu := benchcpu.Now()
		for b.Loop() {
			s, err := newViewer(ctx, loc, false)
			require.NoError(b, err)
			page(b, s.Handler(), "/")
			require.NoError(b, s.Shutdown(ctx))
		}
		benchcpu.Report(b, cpu)
		b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
	})
	b.Run(fmt.Sprintf("sorted/runs=%d", n), func(b *testing.B) {
		s, err := newViewer(ctx, loc, false)
		require.NoError(b, err)
		defer func() { require.NoError(b, s.Shutdown(ctx)) }()
		rows := s.Runs(nil)
		require.Equal(b, n, rows.Matched)
		cpu := benchcpu.Now()
		for b.Loop() {
			page(b, s.Handler(), "/?sort=cost&page=7")
		}
		benchcpu.Report(b, cpu)
	})
}
