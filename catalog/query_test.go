package catalog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is five runs over two days.
func fixture() []Row {
	return []Row{
		{Run: "a.jsonl", Service: "shop", RootName: "plan trip", Started: day(1), Ended: day(2), TotalTokens: 100, CostUSD: usd(0.5), Models: []string{"gpt-4o"}, Tools: []string{"search"}, Keys: []string{"a.jsonl"}},
		{Run: "b.jsonl", Service: "shop", Started: day(3), Ended: day(4), TotalTokens: 900, CostUSD: usd(0.1), OverBudget: true, Keys: []string{"b.jsonl"}},
		{Run: "c.jsonl", Service: "bank", FirstPrompt: "What is my Balance?", Started: day(5), Ended: day(6), TotalTokens: 50, Keys: []string{"c.jsonl"}},
		{Run: "d.jsonl", Service: "bank", Started: day(27), Ended: day(28), TotalTokens: 300, CostUSD: usd(2), OverBudgetUSD: true, Keys: []string{"d.jsonl"}},
		{Run: "e.jsonl", Service: "shop", Started: day(30), Ended: day(31), TotalTokens: 10, CostUSD: usd(0), Keys: []string{"e.jsonl"}},
	}
}

func writeRows(t *testing.T, dest Dest, opts WriterOptions, rows ...Row) {
	t.Helper()
	w := NewWriter(dest, opts)
	for _, r := range rows {
		require.NoError(t, w.Add(context.Background(), r))
	}
	require.NoError(t, w.Flush(context.Background()))
}

func runs(p Page) []string {
	out := make([]string, len(p.Rows))
	for i, r := range p.Rows {
		out[i] = r.Run
	}
	return out
}

func TestQueryFiltersSortsAndPages(t *testing.T) {
	dest := Dir(t.TempDir())
	writeRows(t, dest, WriterOptions{MaxRows: 2}, fixture()...)
	now := day(48)
	tests := []struct {
		name          string
		f             Filter
		s             Sort
		offset, limit int
		want          []string
		total         int
	}{
		{"all, by start", Filter{}, Sort{}, 0, 0, []string{"a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl", "e.jsonl"}, 5},
		{"newest first, a page of 2", Filter{}, Sort{Desc: true}, 0, 2, []string{"e.jsonl", "d.jsonl"}, 5},
		{"second page", Filter{}, Sort{Desc: true}, 2, 2, []string{"c.jsonl", "b.jsonl"}, 5},
		{"past the end", Filter{}, Sort{}, 9, 2, []string{}, 5},
		{"cost, unknown last", Filter{}, Sort{By: ByCost, Desc: true}, 0, 0, []string{"d.jsonl", "a.jsonl", "b.jsonl", "e.jsonl", "c.jsonl"}, 5},
		{"tokens", Filter{}, Sort{By: ByTokens, Desc: true}, 0, 3, []string{"b.jsonl", "d.jsonl", "a.jsonl"}, 5},
		{"service", Filter{Service: "bank"}, Sort{}, 0, 0, []string{"c.jsonl", "d.jsonl"}, 2},
		{"over a token or cost budget", Filter{OverBudget: true}, Sort{}, 0, 0, []string{"b.jsonl", "d.jsonl"}, 2},
		{"min cost", Filter{MinCost: 0.4}, Sort{}, 0, 0, []string{"a.jsonl", "d.jsonl"}, 2},
		{"since the second day", Filter{Since: day(24)}, Sort{}, 0, 0, []string{"d.jsonl", "e.jsonl"}, 2},
		{"until the fourth hour", Filter{Until: day(4)}, Sort{}, 0, 0, []string{"a.jsonl", "b.jsonl"}, 2},
		{"older than a day", Filter{OlderThan: 24 * time.Hour, Now: now}, Sort{}, 0, 0, []string{"a.jsonl", "b.jsonl", "c.jsonl"}, 3},
		{"search a prompt, any case", Filter{Search: "BALANCE"}, Sort{}, 0, 0, []string{"c.jsonl"}, 1},
		{"search a tool", Filter{Search: "sear"}, Sort{}, 0, 0, []string{"a.jsonl"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Query(context.Background(), dest, tt.f, tt.s, tt.offset, tt.limit)
			require.NoError(t, err)
			assert.Equal(t, tt.want, runs(p))
			assert.Equal(t, tt.total, p.Total)
		})
	}
}

func TestRowsRoundTripThroughParquet(t *testing.T) {
	dest := Dir(t.TempDir())
	in := fixture()
	in[0].FirstPrompt = strings.Repeat("é", PromptChars)
	in[0].Version, in[0].Complete, in[0].Bytes = 1, true, 1234
	writeRows(t, dest, WriterOptions{}, in...)
	p, err := Query(context.Background(), dest, Filter{}, Sort{}, 0, 0)
	require.NoError(t, err)
	require.Len(t, p.Rows, len(in))
	for i := range in {
		got := p.Rows[i]
		assert.False(t, got.WrittenAt.IsZero())
		got.WrittenAt = time.Time{}
		got.Started, got.Ended = got.Started.UTC(), got.Ended.UTC()
		want := in[i]
		if want.Models == nil {
			want.Models = []string{}
		}
		if want.Tools == nil {
			want.Tools = []string{}
		}
		if len(got.Models) == 0 {
			got.Models = []string{}
		}
		if len(got.Tools) == 0 {
			got.Tools = []string{}
		}
		assert.Equal(t, want, got)
	}
}

// A run's newest row wins over its older ones wherever they are, and a
// tombstone hides the run; rows kept from one batch stay intact while the
// next batches are read.
func TestQueryKeepsTheLatestRowOfARun(t *testing.T) {
	dest := Dir(t.TempDir())
	var rows []Row
	for i := range 3 * batch {
		rows = append(rows, Row{Run: fmt.Sprintf("run-%03d.jsonl", i), Started: day(1), TotalTokens: 1, WrittenAt: day(2)})
	}
	writeRows(t, dest, WriterOptions{MaxRows: 50}, rows...)
	writeRows(t, dest, WriterOptions{}, // a next generation, and a removal
		Row{Run: "run-007.jsonl", Started: day(1), TotalTokens: 7, WrittenAt: day(3)},
		Row{Run: "run-009.jsonl", Started: day(1), Removed: true, WrittenAt: day(3)})
	writeRows(t, dest, WriterOptions{}, // older than what is there: loses
		Row{Run: "run-007.jsonl", Started: day(1), TotalTokens: 5, WrittenAt: day(2).Add(time.Minute)})

	p, err := Query(context.Background(), dest, Filter{}, Sort{By: ByTokens, Desc: true}, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 3*batch-1, p.Total)
	assert.Equal(t, "run-007.jsonl", p.Rows[0].Run)
	assert.Equal(t, int64(7), p.Rows[0].TotalTokens)
	seen := map[string]int{}
	for _, r := range p.Rows {
		seen[r.Run]++
		assert.True(t, strings.HasPrefix(r.Run, "run-"), r.Run)
	}
	assert.NotContains(t, seen, "run-009.jsonl")
	for run, n := range seen {
		assert.Equal(t, 1, n, run)
	}
}

func TestWriterBoundsFiles(t *testing.T) {
	dest := Dir(t.TempDir())
	var rows []Row
	for i := range 25 {
		rows = append(rows, Row{Run: fmt.Sprintf("r%02d", i), Started: day(1), FirstPrompt: strings.Repeat("x", 1000)})
	}
	writeRows(t, dest, WriterOptions{MaxRows: 10}, rows...)
	objs, err := dest.List(context.Background(), "catalog/")
	require.NoError(t, err)
	assert.Len(t, objs, 3, "25 rows in files of 10")
	for _, o := range objs {
		assert.True(t, strings.HasPrefix(o.Key, "catalog/dt=2026-12-05/"), o.Key)
	}

	dest = Dir(t.TempDir())
	writeRows(t, dest, WriterOptions{MaxBytes: 5 * 1300}, rows...) // about 5 rows a file
	objs, err = dest.List(context.Background(), "catalog/")
	require.NoError(t, err)
	assert.Len(t, objs, 5)
}

func TestParseSort(t *testing.T) {
	for in, want := range map[string]SortBy{"": ByStarted, "started": ByStarted, "cost": ByCost, "tokens": ByTokens} {
		got, err := ParseSort(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseSort("price")
	assert.ErrorIs(t, err, ErrBadSort)
}

func TestQueryNamesABadFile(t *testing.T) {
	dest := Dir(t.TempDir())
	w, err := dest.Create(context.Background(), "catalog/dt=2026-12-05/bad.parquet")
	require.NoError(t, err)
	_, err = w.Write([]byte("not parquet at all"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = Query(context.Background(), dest, Filter{}, Sort{}, 0, 10)
	require.ErrorIs(t, err, ErrBadFile)
	assert.Contains(t, err.Error(), "bad.parquet")
}
