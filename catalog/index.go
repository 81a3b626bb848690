package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Index keeps the columns of a catalog that a list of runs filters and
// sorts on in memory, so that a page of a list of 100,000 runs costs a
// pass over memory, not a read of the catalog: per run its name and first
// key, service, agent and models (numbers into tables of the distinct
// values), start, end, duration, records, errors, problems, total tokens,
// cost, budgets and flags, about 150 bytes a run plus its name (see
// docs/benchmarks.md). [Index.Refresh] lists the catalog's files and
// reads only those it has not read (a new file of rows, a tombstone, a
// compaction's output), column by column; the files gone are dropped.
// Runs are merged as [Scan] merges them: the latest row of each run of a
// partition, none of a run a tombstone removed. An Index is safe for
// concurrent use: a page reads the state of the last Refresh while the
// next is under way.
type Index struct {
	dest Dest
	mu   sync.Mutex // one Refresh at a time; guards x
	x    tables
	cur  atomic.Pointer[indexView]
}

// NewIndex returns an empty Index of the catalog at dest: call Refresh.
func NewIndex(dest Dest) *Index {
	return &Index{dest: dest, x: newTables()}
}

// indexView is the state of an Index after one Refresh; never changed.
type indexView struct {
	files   []*indexFile // sorted by key
	refs    []ref        // the latest row of every run not removed
	strs    []string     // the tables the rows' numbers point into
	models  [][]string
	version string
}

// indexFile is one catalog file's rows, as read.
type indexFile struct {
	key  string
	size int64
	rows []colRow
}

// ref points at a row of a view's file.
type ref struct{ file, row uint32 }

// Refresh lists the catalog's files and reads those not read yet. A file
// a compaction removed between the listing and its read makes it list
// again.
func (x *Index) Refresh(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for attempt := 0; ; attempt++ {
		err := x.refresh(ctx)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || attempt == 3 {
			return err
		}
	}
}

func (x *Index) refresh(ctx context.Context) error {
	objs, err := x.dest.List(ctx, "catalog/")
	if err != nil {
		return err
	}
	objs = slices.DeleteFunc(objs, func(o ObjectInfo) bool { return !strings.HasSuffix(o.Key, ".parquet") })
	slices.SortFunc(objs, func(a, b ObjectInfo) int { return strings.Compare(a.Key, b.Key) })
	old := x.cur.Load()
	have := map[string]*indexFile{}
	if old != nil {
		if sameFiles(old.files, objs) {
			return nil
		}
		for _, f := range old.files {
			have[f.key] = f
		}
	}
	files := make([]*indexFile, 0, len(objs))
	for _, o := range objs {
		if f := have[o.Key]; f != nil && f.size == o.Size {
			files = append(files, f)
			continue
		}
		rows, err := readColumns(ctx, x.dest, o.Key, &x.x)
		if err != nil {
			return err
		}
		files = append(files, &indexFile{key: o.Key, size: o.Size, rows: rows})
	}
	v := &indexView{files: files, refs: merge(files), strs: x.x.strs, models: x.x.models, version: digest(objs)}
	x.cur.Store(v)
	return nil
}

// sameFiles reports whether files are objs, by key and size.
func sameFiles(files []*indexFile, objs []ObjectInfo) bool {
	return slices.EqualFunc(files, objs, func(f *indexFile, o ObjectInfo) bool { return f.key == o.Key && f.size == o.Size })
}

// digest names a listing of the catalog's files (keys and sizes): a new
// or changed run is a new file, so a list that polls it reloads.
func digest(objs []ObjectInfo) string {
	h := sha256.New()
	for _, o := range objs {
		fmt.Fprintf(h, "%s\x00%d\n", o.Key, o.Size)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// merge returns the latest row of every run of each partition (a file's
// folder), none of a run whose latest row is a tombstone; of two rows
// written at the same time, the later file's.
func merge(files []*indexFile) []ref {
	var refs []ref
	pos := map[string]int{}
	part := ""
	for fi, f := range files {
		if p := path.Dir(f.key); p != part {
			clear(pos)
			part = p
		}
		for ri := range f.rows {
			r := &f.rows[ri]
			at := ref{uint32(fi), uint32(ri)}
			p, ok := pos[r.run]
			if !ok {
				pos[r.run] = len(refs)
				refs = append(refs, at)
				continue
			}
			if o := refs[p]; files[o.file].rows[o.row].written <= r.written {
				refs[p] = at
			}
		}
	}
	return slices.DeleteFunc(refs, func(rf ref) bool { return files[rf.file].rows[rf.row].flags&flagRemoved != 0 })
}

// Each calls fn with every run of the catalog as of the last Refresh,
// until fn returns false, and where its row is (for [Fetch]). The Row
// holds only the columns the Index keeps: Run, Keys (the first), Service,
// Agent, Models, Started, Ended, DurationMS, Records, Errors, Problems,
// Complete, TotalTokens, CostUSD, CostUnknown, BudgetTokens, BudgetUSD,
// OverBudget, OverBudgetUSD and WrittenAt. It is valid only during the
// call; its strings and Models may be kept, not changed.
func (x *Index) Each(fn func(r *Row, at At) bool) {
	v := x.cur.Load()
	if v == nil {
		return
	}
	var r Row
	var keys [1]string
	var cost float64
	for _, rf := range v.refs {
		f := v.files[rf.file]
		v.fill(&f.rows[rf.row], &r, &keys, &cost)
		if !fn(&r, At{f.key, int64(rf.row)}) {
			return
		}
	}
}

// fill sets r to c's columns; keys and cost are the storage r's Keys and
// CostUSD point to.
func (v *indexView) fill(c *colRow, r *Row, keys *[1]string, cost *float64) {
	*r = Row{Run: c.run, Service: v.strs[c.service], Agent: v.strs[c.agent], Models: v.models[c.models],
		Started: msTime(c.started), Ended: msTime(c.ended), DurationMS: c.durationMS, Records: c.records,
		Errors: int64(c.errors), Problems: int64(c.problems), Complete: c.flags&flagComplete != 0,
		TotalTokens: c.tokens, CostUnknown: int64(c.costUnknown), BudgetTokens: c.budgetTokens, BudgetUSD: c.budgetUSD,
		OverBudget: c.flags&flagOver != 0, OverBudgetUSD: c.flags&flagOverUSD != 0, WrittenAt: time.Unix(0, c.written).UTC()}
	if c.key != "" {
		keys[0] = c.key
		r.Keys = keys[:]
	}
	if c.flags&flagCost != 0 {
		*cost = c.cost
		r.CostUSD = cost
	}
}

// msTime is the time of Unix milliseconds ms, as parquet-go reads a
// timestamp(millisecond) column.
func msTime(ms int64) time.Time {
	if ms == zeroTime {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// Len is how many runs Each calls its function with.
func (x *Index) Len() int {
	if v := x.cur.Load(); v != nil {
		return len(v.refs)
	}
	return 0
}

// Files is how many catalog files the last Refresh found: none, no
// catalog.
func (x *Index) Files() int {
	if v := x.cur.Load(); v != nil {
		return len(v.files)
	}
	return 0
}

// Version names the catalog's files as of the last Refresh (their keys
// and sizes): it changes when a run's row is written, a run removed, the
// catalog compacted. Empty before the first Refresh.
func (x *Index) Version() string {
	if v := x.cur.Load(); v != nil {
		return v.version
	}
	return ""
}

// tables are the distinct strings and model lists of an Index's rows;
// they only grow (a view holds them as they were), written under the
// Index's lock.
type tables struct {
	strs     []string
	strIdx   map[string]uint32
	models   [][]string
	modelIdx map[string]uint32
	// cur is the row whose models are being read, its list so far in
	// list, its key in key.
	cur  *colRow
	list []string
	key  []byte
}

func newTables() tables {
	return tables{strs: []string{""}, strIdx: map[string]uint32{"": 0}, models: [][]string{nil}, modelIdx: map[string]uint32{"": 0}}
}

// str is the number of the string b.
func (x *tables) str(b []byte) uint32 {
	if i, ok := x.strIdx[string(b)]; ok {
		return i
	}
	s := string(b)
	i := uint32(len(x.strs))
	x.strs = append(x.strs, s)
	x.strIdx[s] = i
	return i
}

// model adds the models column's value v, element i of row r's list.
func (x *tables) model(r *colRow, _ int, v parquet.Value, ok bool) {
	if r != x.cur {
		x.flushModels()
		x.cur = r
	}
	if ok {
		s := x.strs[x.str(v.ByteArray())]
		x.list = append(x.list, s)
		x.key = append(append(x.key, s...), 0)
	}
}

// flushModels sets the list of the row being read.
func (x *tables) flushModels() {
	if x.cur == nil {
		return
	}
	i, ok := x.modelIdx[string(x.key)]
	if !ok {
		i = uint32(len(x.models))
		x.models = append(x.models, slices.Clone(x.list))
		x.modelIdx[string(x.key)] = i
	}
	x.cur.models = i
	x.cur, x.list, x.key = nil, x.list[:0], x.key[:0]
}
