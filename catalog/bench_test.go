package catalog

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchRows makes n runs spread over ten days.
func benchRows(n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		started := day(0).Add(time.Duration(i%10) * 24 * time.Hour).Add(time.Duration(i) * time.Second)
		cost := float64(i%997) / 1000
		rows[i] = Row{Run: fmt.Sprintf("%032x.jsonl", i*7919), Service: fmt.Sprintf("svc-%d", i%7), RootName: "invoke_agent planner",
			FirstPrompt: "Plan a trip to Lisbon for three days, with a budget", Started: started, Ended: started.Add(time.Minute),
			Records: 12, InputTokens: int64(i % 5000), TotalTokens: int64(i%5000 + 300), CostUSD: &cost,
			Models: []string{"gpt-4o-mini"}, Tools: []string{"search", "book"}, Keys: []string{fmt.Sprintf("%032x.jsonl", i*7919)}}
	}
	return rows
}

// BenchmarkQueryFirstPage: the first page (50 runs, newest first) of a
// catalog of 100,000 runs in compacted files, and of the same runs in
// files of 1,000 rows.
func BenchmarkQueryFirstPage(b *testing.B) {
	for _, per := range []int{100_000, 1_000} {
		b.Run(fmt.Sprintf("files-of-%d", per), func(b *testing.B) {
			dest := Dir(b.TempDir())
			w := NewWriter(dest, WriterOptions{MaxRows: per})
			for _, r := range benchRows(100_000) {
				require.NoError(b, w.Add(context.Background(), r))
			}
			require.NoError(b, w.Flush(context.Background()))
			b.ResetTimer()
			for b.Loop() {
				p, err := Query(context.Background(), dest, Filter{}, Sort{Desc: true}, 0, 50)
				require.NoError(b, err)
				require.Equal(b, 100_000, p.Total)
			}
		})
	}
}

// BenchmarkRowOfRetained reads the rows of the real payloads' artifacts
// and keeps them, as a Writer buffers a batch: retained-B/row is the heap
// a kept row holds (its strings, not the reader's 64 KiB line buffer
// they were read from).
func BenchmarkRowOfRetained(b *testing.B) {
	dir := realFolder(b)
	des, err := artifacts(dir)
	require.NoError(b, err)
	require.NotEmpty(b, des)
	const keep = 2_000
	for b.Loop() {
		kept := make([]Row, 0, keep)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		for len(kept) < keep {
			row, err := FileRow(dir, des[len(kept)%len(des)].Name())
			require.NoError(b, err)
			kept = append(kept, row)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/keep, "retained-B/row")
		runtime.KeepAlive(kept)
	}
}

// BenchmarkIndex builds an Index of a catalog of 100,000 runs (compacted:
// one file a day of starts) and reports the heap it keeps, a run
// (retained-B/run), and a pass over every run (each-ns/run).
func BenchmarkIndex(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	dest := Dir(b.TempDir())
	w := NewWriter(dest, WriterOptions{MaxRows: 10_000})
	for _, r := range benchRows(n) {
		require.NoError(b, w.Add(ctx, r))
	}
	require.NoError(b, w.Flush(ctx))
	_, err := Compact(ctx, dest, WriterOptions{})
	require.NoError(b, err)
	var x *Index
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		x = NewIndex(dest)
		require.NoError(b, x.Refresh(ctx))
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		require.Equal(b, n, x.Len())
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "retained-B/run")
	}
	start := time.Now()
	var tokens int64
	x.Each(func(r *Row, _ At) bool { tokens += r.TotalTokens; return true })
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/n, "each-ns/run")
	require.Positive(b, tokens)
}
