package server

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/report"
)

// A folder of more runs than the in-memory index holds (WithIndexLimit),
// or one that has a run catalog already, is listed from its catalog
// (package catalog): every list request streams the catalog's rows
// (catalog.Scan), filters them with the list's own rules and keeps the
// page's rows in a bounded heap, so the server's memory does not grow with
// the number of runs. The catalog is built once when absent, and kept
// current by the walker: a file new or modified since the last walk gets
// a new row (the latest row of a run wins). What the catalog does not
// hold, the list does without: the search looks in names, first prompt,
// service, models, tools and path (not in every message), and a run
// still being written shows as open, not running.

// newCatalogList returns the catalog list of s's runs, its catalog in dest.
func newCatalogList(s *Server, dest catalog.Dest) *catalogList {
	return &catalogList{s: s, dest: dest, idx: catalog.NewIndex(dest)}
}

// warm reads the catalog's columns into the Index in the background, so
// that a new server's first page finds them read, or being read. An error
// is the page's to report: it refreshes the Index again.
func (c *catalogList) warm() {
	if !c.s.enter() { // counted as a request, so Shutdown waits for it
		return
	}
	go func() {
		defer c.s.leave()
		_ = c.idx.Refresh(c.s.ctx)
	}()
}

// catalogBatch is how many rows a walk writes per catalog file at most: a
// first build of 100,000 runs shows its rows as they are read, 10,000 at
// a time, and is compacted at its end.
const catalogBatch = 10_000

// catalogList lists a folder from its run catalog.
type catalogList struct {
	s    *Server
	dest catalog.Dest
	// idx holds the columns a page filters and sorts on, of every run,
	// in memory (about 150 bytes a run): a page without a search reads
	// them, then its own rows whole.
	idx    *catalog.Index
	active atomic.Bool // the folder is listed from its catalog

	mu sync.Mutex // one walk at a time; guards since and writes
	// since: files modified at or after it are read again at the next
	// walk (zero: every file, which builds the catalog).
	since time.Time
	// recent are the files modified at or after since whose rows the
	// last walk read: unchanged, they are not read again.
	recent map[string]stamp
	// written counts catalog files written since the last compaction.
	written int
}

// hasCatalog reports whether dir holds a run catalog already, and the
// time its newest file was written (its name's first part), from which
// the walker reads the files modified since.
func hasCatalog(ctx context.Context, dest catalog.Dest) (bool, time.Time) {
	objs, err := dest.List(ctx, "catalog/")
	if err != nil {
		return false, time.Time{}
	}
	var newest int64
	found := false
	for _, o := range objs {
		if !strings.HasSuffix(o.Key, ".parquet") {
			continue
		}
		found = true
		stamp, _, _ := strings.Cut(path.Base(o.Key), "-")
		if n, err := strconv.ParseInt(stamp, 10, 64); err == nil {
			newest = max(newest, n)
		}
	}
	if !found {
		return false, time.Time{}
	}
	// A margin for files written while that catalog file was being
	// made: reading a file again costs a row, missing it a wrong row.
	return true, time.Unix(0, newest).Add(-time.Minute)
}

// refresh walks the folder and writes rows for the artifacts new or
// changed since the last walk, as the walk finds them, and returns how
// long the walk took. Memory is bounded by a batch of rows and the files
// modified in the last seconds, not by the folder: nothing keeps a list
// of the files walked.
func (c *catalogList) refresh(ctx context.Context) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	// Files are looked at again from a little before this walk (mtimes
	// are coarse on some file systems), those unchanged since they were
	// read left out: recent are the files modified since then.
	since := start.Add(-2 * time.Second)
	recent := map[string]stamp{}
	var walked time.Duration
	err := c.write(ctx, func(yield func(rel string) bool) {
		c.s.list.each(ctx, func(rel string, fi fs.FileInfo) bool {
			if fi.ModTime().Before(c.since) {
				return true
			}
			st := stamp{fi.Size(), fi.ModTime().UnixNano()}
			if st.mtime >= since.UnixNano() {
				recent[rel] = st
			}
			return c.recent[rel] == st || yield(rel) // read unless read as it is now
		})
		walked = time.Since(start)
	})
	if ctx.Err() != nil {
		return walked // shut down: the next server walks again
	}
	if err != nil {
		c.s.cfg.log.Warn("cannot write the run catalog", "err", err)
		return walked
	}
	c.since, c.recent = since, recent
	return walked
}

// stamp is a file's size and modification time when its row was read.
type stamp struct{ size, mtime int64 }

// version names the catalog's files, names and sizes (catalog.Index's
// Version): a new or changed run is a new file, so the list page, which
// polls it, reloads. It costs a listing of the catalog folder and a read
// of its new files, which the next page needs anyway, not a walk of the
// runs.
func (c *catalogList) version(ctx context.Context) string {
	if err := c.idx.Refresh(ctx); err != nil {
		return "catalog: " + err.Error()
	}
	return c.idx.Version()
}

// catalogFresh walks the folder before a catalog page is read when its
// last walk was quick (a folder that walks in under versionInline shows a
// new run at the next request, as the index does); a slower one is walked
// in the background afterwards (catalogWalk), so the page is answered
// from the catalog at once, its first request included.
func (s *Server) catalogFresh() {
	c := &s.ver
	c.mu.Lock()
	quick := c.snap != nil && c.cost < versionInline
	c.mu.Unlock()
	if quick {
		s.refresh()
	}
}

// catalogWalk starts a background walk of the folder when none is under
// way and the last ended at least twice its duration ago.
func (s *Server) catalogWalk() {
	c := &s.ver
	c.mu.Lock()
	if c.busy || (c.snap != nil && time.Since(c.at) < 2*c.took) {
		c.mu.Unlock()
		return
	}
	c.busy = true
	c.mu.Unlock()
	if !s.enter() { // counted as a request, so Shutdown waits for it
		c.mu.Lock()
		c.busy = false
		c.mu.Unlock()
		return
	}
	go func() {
		defer s.leave()
		s.refresh()
	}()
}

// catalogSnapshot is the list's snapshot in catalog mode: the catalog's
// version; indexing while the folder's first walk (a first build) runs.
func (s *Server) catalogSnapshot() *snapshot {
	c := &s.ver
	c.mu.Lock()
	indexing := c.snap == nil && c.busy
	c.mu.Unlock()
	return &snapshot{version: s.cat.version(s.ctx), indexing: indexing}
}

// write reads the rows of the artifacts walk yields, in parallel as it
// yields them (yield returns false when ctx ends), and adds them to the
// catalog, catalogBatch rows a file at most; a build of many files is
// compacted at its end.
func (c *catalogList) write(ctx context.Context, walk func(yield func(rel string) bool)) error {
	rows := make(chan catalog.Row, runtime.GOMAXPROCS(0))
	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for rel := range work {
				row, err := c.s.rowOf(rel)
				if errors.Is(err, errNotArtifact) {
					continue // a .json or .pb file of no shape agenttrace reads: no run
				}
				if err != nil {
					c.s.cfg.log.Warn("cannot list artifact", "path", rel, "err", err)
					continue
				}
				rows <- row
			}
		})
	}
	go func() {
		defer close(rows)
		defer wg.Wait()
		defer close(work)
		walk(func(rel string) bool {
			select {
			case work <- rel:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	w := catalog.NewWriter(c.dest, catalog.WriterOptions{MaxRows: catalogBatch})
	var errs []error
	n := 0
	for row := range rows {
		if err := w.Add(ctx, row); err != nil {
			errs = append(errs, err)
		}
		n++
	}
	if n == 0 {
		return errors.Join(errs...)
	}
	errs = append(errs, w.Flush(ctx))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.written += n/catalogBatch + 1
	if c.written >= 64 || n >= catalogBatch {
		if _, err := catalog.Compact(ctx, c.dest, catalog.WriterOptions{}); err != nil {
			return err
		}
		c.written = 0
	}
	return nil
}

// rowOf reads the catalog row of the artifact rel, redacted as the run
// page shows it: the names and first prompt the list shows come from it.
func (s *Server) rowOf(rel string) (catalog.Row, error) {
	a, err := s.openRun(rel)
	if err != nil {
		return catalog.Row{}, err
	}
	defer a.f.Close()
	at := catalog.Source{Name: rel, Keys: []string{rel}, Bytes: a.fi.Size()}
	if a.fi.Size() > nameMax && a.imp == nil { // a conversion is in memory already, whatever its size
		return s.largeRowOf(a, at)
	}
	src, err := s.redactedSource(a)
	if err != nil {
		return catalog.Row{}, err
	}
	row, err := catalog.RowOf(src, at)
	if a.imp != nil { // a converted file's row: its own size, the lines its importer skipped
		row.Bytes = a.imp.size
		row.Problems += a.imp.skipped
	}
	return row, err
}

// largeRowOf is the row of an artifact too large to read whole for it
// (catalog.RowOf holds a run's records): made of its header and its last
// line, so its numbers are its trailer's, as the paged run page shows
// them, in memory bounded by two lines.
func (s *Server) largeRowOf(a *servedRun, at catalog.Source) (catalog.Row, error) {
	head, last, err := headAndLast(a, a.fi.Size())
	if err != nil {
		return catalog.Row{}, err
	}
	data := slices.Concat(head, last, []byte{'\n'})
	if s.cfg.red.linesNeeded(a) {
		data = redactLines(s.cfg.red, data)
	}
	row, err := catalog.RowOf(bytes.NewReader(data), at)
	// The records are in the file, not dropped: the trailer counts them.
	row.Dropped = 0
	return row, err
}

// page is the page q asks for, from the catalog: the rows, how many pass
// the filters, how many there are, and the filters' choices, all from one
// pass over the columns they need (the Index's in memory, or with a
// search those of catalogcols.go read from the catalog), then the page's
// rows read whole. A catalog file compacted away between the two is read again.
func (c *catalogList) page(ctx context.Context, q listQuery, now time.Time) (rows []*runInfo, matched, total int, ch listChoices, err error) {
	for range 3 {
		rows, matched, total, ch, err = c.pageOnce(ctx, q, now)
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return rows, matched, total, ch, err
}

func (c *catalogList) pageOnce(ctx context.Context, q listQuery, now time.Time) ([]*runInfo, int, int, listChoices, error) {
	top := &rowHeap{cmp: q.compare, keep: q.Page * q.Per}
	var total, matched int
	ch := newChoiceSet()
	var scratch runInfo // each row in turn: a row is allocated only when kept
	offer := func(r *catalog.Row, where catalog.At) {
		total++
		ch.add(r.Service, []string{r.Agent}, r.Models)
		rowInfo(r, q.Q != "", &scratch)
		if !q.keep(&scratch, now) {
			return
		}
		matched++
		scratch.at = where
		top.offer(&scratch)
	}
	err := c.idx.Refresh(ctx)    // also tells a bucket without a catalog (bucketList)
	if err == nil && q.Q != "" { // the words a search looks in are not kept in memory
		var row catalog.Row
		err = catalog.ScanAs(ctx, c.dest, func(sc *searchCols, where catalog.At) error {
			sc.row(&row)
			offer(&row, where)
			return nil
		})
	} else if err == nil {
		c.idx.Each(func(r *catalog.Row, where catalog.At) bool {
			offer(r, where)
			return true
		})
	}
	if err != nil {
		return nil, 0, 0, listChoices{}, fmt.Errorf("read the run catalog: %w", err)
	}
	kept := top.sorted()
	kept = kept[min((q.Page-1)*q.Per, len(kept)):]
	ats := make([]catalog.At, len(kept))
	for i, ri := range kept {
		ats[i] = ri.at
	}
	whole, err := catalog.Fetch(ctx, c.dest, ats)
	if err != nil {
		return nil, 0, 0, listChoices{}, fmt.Errorf("read the run catalog: %w", err)
	}
	for i, ri := range kept {
		rowInfo(&whole[i], false, ri)
		ri.setCost(ri.Cost)
		// A row written from an artifact no writer scanned (catalog
		// build) holds its names as the file does.
		ri.names.name = c.s.cfg.red.text(ri.names.name)
		ri.names.prompt = c.s.cfg.red.text(ri.names.prompt)
	}
	return kept, matched, total, ch.choices(), nil
}

// rowInfo sets ri to a catalog row as a row of the list; with search,
// its search text (the row's words, lower case) too. ri shares the row's
// strings until own copies them.
func rowInfo(r *catalog.Row, search bool, ri *runInfo) {
	*ri = runInfo{
		Rel: r.Run, Size: r.Bytes, Started: r.Started, Service: r.Service,
		Records: r.Records, Errors: r.Errors, Problems: r.Problems, Dropped: r.Dropped, Complete: r.Complete,
		Duration: -1, Models: r.Models, Tools: r.Tools,
	}
	if len(r.Keys) > 0 {
		ri.Rel = r.Keys[0]
	}
	if !r.Ended.IsZero() && !r.Started.IsZero() {
		ri.Duration = time.Duration(r.DurationMS) * time.Millisecond
	}
	if r.Agent != "" {
		ri.Agents = []string{r.Agent}
	}
	ri.Tokens.Input, ri.Tokens.Output, ri.Tokens.Total = r.InputTokens, r.OutputTokens, r.TotalTokens
	ri.Tokens.CacheRead, ri.Tokens.CacheCreation, ri.Tokens.Reasoning = r.CacheReadTokens, r.CacheCreationTokens, r.ReasoningTokens
	ri.Budget = rowBudget(r)
	ri.names.name, ri.names.prompt = r.RootName, r.FirstPrompt
	if ri.names.name == "" {
		ri.names.name = r.Agent
	}
	ri.Cost = rowCost(r) // its cell is written for the page's rows only
	if search {
		var b strings.Builder
		for _, l := range [][]string{{r.Run, r.TraceID, r.ConversationID, r.Service, r.RootName, r.Agent, r.FirstPrompt}, r.Models, r.Tools} {
			for _, w := range l {
				b.WriteString(strings.ToLower(w))
				b.WriteByte('\n')
			}
		}
		ri.index = b.String()
	}
}

// rowHeap keeps the keep first rows in cmp's order: the last of them on
// top, so a better row replaces it.
type rowHeap struct {
	rows []*runInfo
	cmp  func(a, b *runInfo) int
	keep int
}

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return h.cmp(h.rows[i], h.rows[j]) > 0 }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(*runInfo)) }
func (h *rowHeap) Pop() any {
	r := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return r
}

// offer keeps a copy of ri if it is among the first keep rows, with its
// own copy of what it shares with the catalog's row (valid only during
// the scan's call).
func (h *rowHeap) offer(ri *runInfo) {
	if len(h.rows) < h.keep {
		heap.Push(h, ri.own())
		return
	}
	if h.keep == 0 || h.cmp(ri, h.rows[0]) >= 0 {
		return
	}
	h.rows[0] = ri.own()
	heap.Fix(h, 0)
}

// own returns a copy of ri, its strings and lists copied too, so that it
// outlives the catalog row it was made from.
func (ri *runInfo) own() *runInfo {
	c := *ri
	ri = &c
	for _, p := range []*string{&ri.Rel, &ri.Service, &ri.names.name, &ri.names.prompt} {
		*p = strings.Clone(*p)
	}
	for _, l := range []*[]string{&ri.Agents, &ri.Models, &ri.Tools} {
		*l = slices.Clone(*l)
		for i := range *l {
			(*l)[i] = strings.Clone((*l)[i])
		}
	}
	if c := ri.Cost.CostUSD; c != nil {
		usd := *c
		ri.Cost.CostUSD = &usd
	}
	return ri
}

// sorted returns the kept rows in order.
func (h *rowHeap) sorted() []*runInfo {
	out := make([]*runInfo, len(h.rows))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(*runInfo)
	}
	return out
}

// rowCost is a row's cost as the list's cost cell takes it.
func rowCost(r *catalog.Row) report.Cost {
	return report.Cost{CostUSD: r.CostUSD, CostUnknown: r.CostUnknown}
}

// rowBudget is a row's budget as the list's budget cell takes it; nil
// when the run had none.
func rowBudget(r *catalog.Row) *artifact.BudgetStatus {
	if r.BudgetTokens == 0 && r.BudgetUSD == 0 {
		return nil
	}
	b := &artifact.BudgetStatus{BudgetTokens: r.BudgetTokens, Spent: r.BudgetSpent, Remaining: r.BudgetTokens - r.BudgetSpent,
		OverBudget: r.OverBudget, NearBudget: r.NearBudget}
	if r.BudgetUSD > 0 {
		b.CostBudget = &artifact.CostBudget{BudgetUSD: r.BudgetUSD, SpentUSD: r.SpentUSD, RemainingUSD: r.BudgetUSD - r.SpentUSD,
			OverBudgetUSD: r.OverBudgetUSD, NearBudgetUSD: r.NearBudgetUSD, UnpricedCalls: r.CostUnknown}
	}
	return b
}

// listed is one page of the list, from the in-memory index or the catalog.
type listed struct {
	snap           *snapshot
	rows           []*runInfo
	matched, total int
	choices        listChoices
	noCatalog      bool // a bucket without a run catalog
}

// listPage returns the page q asks for, named for people: from the
// in-memory index, or from the catalog when the folder is listed from it.
func (s *Server) listPage(ctx context.Context, q listQuery, now time.Time) (listed, error) {
	q.idle = s.cfg.idle
	if s.bkt != nil {
		return s.bucketList(ctx, q, now)
	}
	if !s.cat.active.Load() {
		snap := s.current()
		if !s.cat.active.Load() { // still: the walk may have found too many runs
			rows, matched := q.page(snap.runs, now)
			s.nameRows(rows)
			return listed{snap: snap, rows: rows, matched: matched, total: len(snap.runs), choices: snap.choices}, nil
		}
	}
	// The catalog first, then the walk that keeps it current: a slow
	// walk does not hold the page up, nor share the cores with its read.
	s.catalogFresh()
	rows, matched, total, choices, err := s.cat.page(ctx, q, now)
	s.catalogWalk()
	return listed{snap: s.catalogSnapshot(), rows: rows, matched: matched, total: total, choices: choices}, err
}
