package catalog

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Filter selects runs; its zero value selects every run.
type Filter struct {
	// Since and Until bound when a run started: Since ≤ started < Until
	// (either zero: no bound). Partitions outside them are not read.
	Since, Until time.Time
	// Service keeps the runs of this service.name.
	Service string
	// OverBudget keeps the runs over their token or cost budget.
	OverBudget bool
	// MinCost keeps the runs whose known cost is at least this many
	// dollars (when > 0).
	MinCost float64
	// OlderThan keeps the runs that ended more than this long before Now:
	// what a retention of that max age removes (when > 0).
	OlderThan time.Duration
	// Search keeps the runs whose run, ids, service, names, first prompt,
	// models or tools hold it, ignoring case.
	Search string
	// Now is the time OlderThan counts back from; zero is time.Now().
	Now time.Time
}

// SortBy names the order of a page.
type SortBy uint8

const (
	// ByStarted orders runs by when they started (the default).
	ByStarted SortBy = iota
	// ByCost orders them by known cost; a run of no known cost sorts
	// below every priced run.
	ByCost
	// ByTokens orders them by total tokens.
	ByTokens
)

// ErrBadSort is returned by [ParseSort] for an unknown order.
var ErrBadSort = errors.New("unknown sort: want cost, tokens or started")

// ParseSort parses "cost", "tokens" or "started".
func ParseSort(s string) (SortBy, error) {
	switch s {
	case "started", "":
		return ByStarted, nil
	case "cost":
		return ByCost, nil
	case "tokens":
		return ByTokens, nil
	}
	return 0, fmt.Errorf("%q: %w", s, ErrBadSort)
}

// Sort is a page's order; ties go by run, ascending.
type Sort struct {
	By   SortBy
	Desc bool
}

// Page is what [Query] returns.
type Page struct {
	// Rows are the page's runs, in order.
	Rows []Row
	// Total counts every run the filter selects.
	Total int
}

// Query returns the runs of the catalog at dest that f selects, in order
// s, from offset, at most limit of them (limit ≤ 0: all), with the count
// of all it selects. It reads the catalog as a stream (see [Scan]),
// keeping only the best offset+limit runs in a heap: its memory does not
// grow with the number of runs. Without a Search it reads only the
// columns it filters and sorts on, then the page's rows whole.
func Query(ctx context.Context, dest Dest, f Filter, s Sort, offset, limit int) (Page, error) {
	var p Page
	var err error
	for range 3 { // a compaction may remove a page's file before it is read
		p, err = query(ctx, dest, f, s, offset, limit)
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return p, err
}

func query(ctx context.Context, dest Dest, f Filter, s Sort, offset, limit int) (Page, error) {
	offset = max(offset, 0)
	m := matcher{f: f, search: strings.ToLower(f.Search)}
	if m.f.Now.IsZero() {
		m.f.Now = time.Now()
	}
	parts, names, err := partitions(ctx, dest)
	if err != nil {
		return Page{}, err
	}
	top := &pageHeap{less: s.less, keep: offset + limit, all: limit <= 0}
	var total int
	for _, p := range names {
		if !m.day(p) {
			continue
		}
		if m.search != "" {
			err = mergePartition(ctx, dest, p, parts[p], false, func(r *Row, where At) error {
				if fc := factsOf(r); m.match(&fc) && r.contains(m.search) {
					total++
					top.offer(fc, where, r)
				}
				return nil
			})
		} else {
			err = mergePartition(ctx, dest, p, parts[p], false, func(r *rowKey, where At) error {
				if fc := r.facts(); m.match(&fc) {
					total++
					top.offer(fc, where, nil)
				}
				return nil
			})
		}
		if err != nil {
			return Page{}, err
		}
	}
	entries := top.sorted()
	if offset >= len(entries) {
		return Page{Rows: []Row{}, Total: total}, nil
	}
	entries = entries[offset:]
	if limit > 0 && len(entries) > limit {
		entries = entries[:limit]
	}
	rows, err := fetch(ctx, dest, entries)
	return Page{Rows: rows, Total: total}, err
}

// less orders a before b in s.
func (s Sort) less(a, b *facts) bool {
	var c int
	switch s.By {
	case ByCost:
		c = cmp.Compare(a.cost, b.cost)
	case ByTokens:
		c = cmp.Compare(a.tokens, b.tokens)
	default:
		c = a.started.Compare(b.started)
	}
	if s.Desc {
		c = -c
	}
	if c == 0 {
		c = cmp.Compare(a.run, b.run)
	}
	return c < 0
}

type matcher struct {
	f      Filter
	search string
}

// day reports whether partition p may hold runs f selects.
func (m *matcher) day(p string) bool {
	d, ok := partitionDay(p)
	if !ok {
		return true
	}
	if !m.f.Since.IsZero() && !d.AddDate(0, 0, 1).After(m.f.Since) {
		return false
	}
	return m.f.Until.IsZero() || d.Before(m.f.Until)
}

func (m *matcher) match(r *facts) bool {
	f := &m.f
	switch {
	case !f.Since.IsZero() && r.started.Before(f.Since),
		!f.Until.IsZero() && !r.started.Before(f.Until),
		f.Service != "" && r.service != f.Service,
		f.OverBudget && !r.over,
		f.MinCost > 0 && r.cost < f.MinCost,
		f.OlderThan > 0 && !r.ended.Before(f.Now.Add(-f.OlderThan)):
		return false
	}
	return true
}

// contains reports whether the row's words hold s, lower case.
func (r *Row) contains(s string) bool {
	for _, w := range []string{r.Run, r.TraceID, r.ConversationID, r.Service, r.RootName, r.Agent, r.FirstPrompt} {
		if strings.Contains(strings.ToLower(w), s) {
			return true
		}
	}
	for _, l := range [][]string{r.Models, r.Tools} {
		for _, w := range l {
			if strings.Contains(strings.ToLower(w), s) {
				return true
			}
		}
	}
	return false
}

// entry is a run the page may hold: what it sorts by, where its row is,
// and the row when it was read whole.
type entry struct {
	facts
	at  At
	row *Row
}

// pageHeap keeps the keep best entries: the worst of them on top.
type pageHeap struct {
	es   []entry
	less func(a, b *facts) bool
	keep int
	all  bool
}

func (h *pageHeap) Len() int           { return len(h.es) }
func (h *pageHeap) Less(i, j int) bool { return h.less(&h.es[j].facts, &h.es[i].facts) }
func (h *pageHeap) Swap(i, j int)      { h.es[i], h.es[j] = h.es[j], h.es[i] }
func (h *pageHeap) Push(x any)         { h.es = append(h.es, x.(entry)) }
func (h *pageHeap) Pop() any {
	e := h.es[len(h.es)-1]
	h.es = h.es[:len(h.es)-1]
	return e
}

// offer keeps the run if it is among the best; row, when not nil, is
// copied.
func (h *pageHeap) offer(fc facts, where At, row *Row) {
	if !h.all && (h.keep == 0 || (len(h.es) == h.keep && !h.less(&fc, &h.es[0].facts))) {
		return
	}
	e := entry{facts: fc, at: where}
	if row != nil {
		r := *row
		e.row = &r
	}
	if h.all || len(h.es) < h.keep {
		heap.Push(h, e)
		return
	}
	h.es[0] = e
	heap.Fix(h, 0)
}

// sorted returns the kept entries, best first.
func (h *pageHeap) sorted() []entry {
	es := h.es
	slices.SortFunc(es, func(a, b entry) int {
		switch {
		case h.less(&a.facts, &b.facts):
			return -1
		case h.less(&b.facts, &a.facts):
			return 1
		}
		return 0
	})
	return es
}
