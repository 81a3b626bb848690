package catalog

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/parquet-go/parquet-go"
)

// rowKey is the columns of a Row that Query filters and sorts on: read
// alone, they cost a fraction of the whole row.
type rowKey struct {
	Run           string    `parquet:"run"`
	Service       string    `parquet:"service"`
	Started       time.Time `parquet:"started,timestamp(millisecond)"`
	Ended         time.Time `parquet:"ended,timestamp(millisecond)"`
	TotalTokens   int64     `parquet:"total_tokens"`
	CostUSD       *float64  `parquet:"cost_usd,optional"`
	OverBudget    bool      `parquet:"over_budget"`
	OverBudgetUSD bool      `parquet:"over_budget_usd"`
	WrittenAt     time.Time `parquet:"written_at,timestamp(nanosecond)"`
	Removed       bool      `parquet:"removed"`
}

// facts are what a filter and an order look at.
type facts struct {
	run, service   string
	started, ended time.Time
	tokens         int64
	cost           float64 // -1: unknown
	over           bool
}

func (r *rowKey) facts() facts {
	c := -1.0
	if r.CostUSD != nil {
		c = *r.CostUSD
	}
	return facts{run: r.Run, service: r.Service, started: r.Started, ended: r.Ended, tokens: r.TotalTokens, cost: c,
		over: r.OverBudget || r.OverBudgetUSD}
}

func factsOf(r *Row) facts {
	return facts{run: r.Run, service: r.Service, started: r.Started, ended: r.Ended, tokens: r.TotalTokens, cost: r.Cost(),
		over: r.OverAnyBudget()}
}

// fetch returns the rows of entries, in their order: those read whole
// already, the others read from their files, each file opened once.
func fetch(ctx context.Context, dest Dest, entries []entry) ([]Row, error) {
	rows := make([]Row, len(entries))
	byFile := map[string][]int{}
	for i, e := range entries {
		if e.row != nil {
			rows[i] = *e.row
			continue
		}
		byFile[e.at.key] = append(byFile[e.at.key], i)
	}
	for _, key := range slices.Sorted(maps.Keys(byFile)) {
		idx := byFile[key]
		slices.SortFunc(idx, func(a, b int) int { return int(entries[a].at.index - entries[b].at.index) })
		if err := readAt(ctx, dest, key, entries, idx, rows); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// readAt reads the rows of entries idx, in file key, into rows.
func readAt(ctx context.Context, dest Dest, key string, entries []entry, idx []int, rows []Row) error {
	obj, err := dest.Open(ctx, key)
	if err != nil {
		return err
	}
	defer obj.Close()
	var f *parquet.File
	if gerr := guard(key, func() { f, err = parquet.OpenFile(obj, obj.Size()) }); gerr != nil {
		return gerr
	}
	if err != nil {
		return fmt.Errorf("catalog: %s: %w: %w", key, ErrBadFile, err)
	}
	var r *parquet.GenericReader[Row]
	if err := guard(key, func() { r = parquet.NewGenericReader[Row](f) }); err != nil {
		return err
	}
	defer r.Close()
	one := make([]Row, 1)
	for _, i := range idx {
		index := entries[i].at.index
		var n int
		var rerr error
		if err := guard(key, func() {
			if rerr = r.SeekToRow(index); rerr == nil {
				n, rerr = r.Read(one)
			}
		}); err != nil {
			return err
		}
		if n != 1 { // io.EOF may come with the last row
			if rerr == nil || rerr == io.EOF {
				rerr = fmt.Errorf("row %d missing", index)
			}
			return fmt.Errorf("catalog: %s: %w: %w", key, ErrBadFile, rerr)
		}
		rows[i], one[0] = one[0], Row{}
	}
	return nil
}
