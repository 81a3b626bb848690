package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"
)

// colRow is the columns of one catalog row that an [Index] keeps in
// memory ([ListCols], each set by its columnSetters entry): what a list
// of runs filters and sorts on, and where the row is.
// Strings that repeat across runs (service, agent, models) are numbers
// into the index's tables; times are Unix milliseconds (written_at
// nanoseconds), zeroTime for a zero time.Time.
type colRow struct {
	run, key                      string // key: the first object's, run itself when equal
	started, ended, written       int64
	durationMS, records, tokens   int64
	budgetTokens                  int64
	cost, budgetUSD               float64
	errors, problems, costUnknown int32
	service, agent, models        uint32
	flags                         uint8
}

// colRow's flags.
const (
	flagRemoved uint8 = 1 << iota
	flagComplete
	flagCost // cost is known (cost_usd not null)
	flagOver
	flagOverUSD
)

// zeroTime stands for a zero time.Time in a colRow: what parquet-go writes
// for one, in milliseconds.
var zeroTime = time.Time{}.UnixMilli()

// column is how one Parquet column is set in a colRow: v is the value
// of the row's element i (0 for a column that is not a list); present is
// false for a null or an empty list.
type column struct {
	name string
	set  func(x *tables, r *colRow, i int, v parquet.Value, present bool)
}

// clamp32 is n as an int32, saturating: a count a list only compares.
func clamp32(n int64) int32 { return int32(max(min(n, math.MaxInt32), math.MinInt32)) }

// indexColumns are the columns an Index reads: [ListCols]'s, in its
// order (run before keys, whose setter compares with it), each read whole
// from its column chunks (no row reconstruction: parquet-go's rows cost
// more than the values).
var indexColumns = columnsOf(parquet.SchemaOf(ListCols{}), columnSetters)

// columnSetters are how each of ListCols' columns is kept in a colRow.
var columnSetters = map[string]func(x *tables, r *colRow, i int, v parquet.Value, present bool){
	"run": func(x *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.run = string(v.ByteArray()) },
	"keys": func(x *tables, r *colRow, i int, v parquet.Value, ok bool) {
		if i == 0 && ok {
			if b := v.ByteArray(); string(b) == r.run {
				r.key = r.run
			} else {
				r.key = string(b)
			}
		}
	},
	"service":      func(x *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.service = x.str(v.ByteArray()) },
	"agent":        func(x *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.agent = x.str(v.ByteArray()) },
	"models":       func(x *tables, r *colRow, i int, v parquet.Value, ok bool) { x.model(r, i, v, ok) },
	"started":      func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.started = v.Int64() },
	"ended":        func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.ended = v.Int64() },
	"written_at":   func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.written = v.Int64() },
	"duration_ms":  func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.durationMS = v.Int64() },
	"records":      func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.records = v.Int64() },
	"errors":       func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.errors = clamp32(v.Int64()) },
	"problems":     func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.problems = clamp32(v.Int64()) },
	"total_tokens": func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.tokens = v.Int64() },
	"cost_usd": func(_ *tables, r *colRow, _ int, v parquet.Value, ok bool) {
		if ok {
			r.cost, r.flags = v.Double(), r.flags|flagCost
		}
	},
	"cost_unknown":    func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.costUnknown = clamp32(v.Int64()) },
	"budget_tokens":   func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.budgetTokens = v.Int64() },
	"budget_usd":      func(_ *tables, r *colRow, _ int, v parquet.Value, _ bool) { r.budgetUSD = v.Double() },
	"over_budget":     boolColumn(flagOver),
	"over_budget_usd": boolColumn(flagOverUSD),
	"complete":        boolColumn(flagComplete),
	"removed":         boolColumn(flagRemoved),
}

// columnsOf pairs each column of schema with its setter. A column without
// one, or a setter without its column, is a mistake in this package
// (ListCols changed without colRow): it panics when the package loads, so
// that any test fails.
func columnsOf(schema *parquet.Schema, setters map[string]func(*tables, *colRow, int, parquet.Value, bool)) []column {
	var cols []column
	for _, f := range schema.Fields() {
		set, ok := setters[f.Name()]
		if !ok {
			panic("catalog: no index setter for the list column " + f.Name())
		}
		cols = append(cols, column{f.Name(), set})
	}
	if len(cols) != len(setters) {
		panic(fmt.Sprintf("catalog: %d index setters for %d list columns", len(setters), len(cols)))
	}
	return cols
}

func boolColumn(flag uint8) func(*tables, *colRow, int, parquet.Value, bool) {
	return func(_ *tables, r *colRow, _ int, v parquet.Value, ok bool) {
		if ok && v.Boolean() {
			r.flags |= flag
		}
	}
}

// readColumns reads the index's columns of the catalog file key, column
// by column. A column the file lacks (written by an older version) stays
// zero.
func readColumns(ctx context.Context, dest Dest, key string, x *tables) ([]colRow, error) {
	obj, err := dest.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	var f *parquet.File
	if err := guard(key, func() {
		f, err = parquet.OpenFile(obj, obj.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	}); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: %s: %w: %w", key, ErrBadFile, err)
	}
	defer func() { x.cur, x.list, x.key = nil, x.list[:0], x.key[:0] }() // a file that fails leaves no row half read
	// Every row has a name of its own, so it takes some bytes of the
	// file: a file that claims far more rows than that is refused before
	// memory is taken for them.
	if n := f.NumRows(); n < 0 || n > max(16*obj.Size(), 1<<16) {
		return nil, fmt.Errorf("catalog: %s: %w: %d rows in %d bytes", key, ErrBadFile, n, obj.Size())
	}
	rows := make([]colRow, f.NumRows())
	for i := range rows {
		rows[i].started, rows[i].ended = zeroTime, zeroTime
	}
	schema := f.Schema()
	paths := map[string][]string{}
	for _, p := range schema.Columns() {
		paths[p[0]] = p
	}
	for _, c := range indexColumns {
		p, ok := paths[c.name]
		if !ok {
			continue
		}
		leaf, _ := schema.Lookup(p...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := guard(key, func() { err = readColumn(f, leaf, rows, x, c) }); err != nil {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: %s: column %s: %w: %w", key, c.name, ErrBadFile, err)
		}
	}
	x.flushModels()
	return rows, nil
}

// readColumn reads one column of every row group into rows: a value of
// repetition level 0 starts the next row.
func readColumn(f *parquet.File, leaf parquet.LeafColumn, rows []colRow, x *tables, c column) error {
	buf := make([]parquet.Value, 256)
	row, elem := -1, 0
	for _, rg := range f.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		err := eachValue(pages, buf, func(v parquet.Value) error {
			if v.RepetitionLevel() == 0 {
				row, elem = row+1, 0
			} else {
				elem++
			}
			if row >= len(rows) {
				return errors.New("more rows than the file's metadata counts")
			}
			c.set(x, &rows[row], elem, v, !v.IsNull() && v.DefinitionLevel() == leaf.MaxDefinitionLevel)
			return nil
		})
		pages.Close()
		if err != nil {
			return err
		}
	}
	if row != len(rows)-1 {
		return fmt.Errorf("%d rows where the file's metadata counts %d", row+1, len(rows))
	}
	return nil
}

// eachValue calls fn with every value of pages, in order.
func eachValue(pages parquet.Pages, buf []parquet.Value, fn func(parquet.Value) error) error {
	for {
		page, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		vals := page.Values()
		for {
			n, err := vals.ReadValues(buf)
			for _, v := range buf[:n] {
				if ferr := fn(v); ferr != nil {
					parquet.Release(page)
					return ferr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				parquet.Release(page)
				return err
			}
		}
		parquet.Release(page)
	}
}
