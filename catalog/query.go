package catalog

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
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
// keeping only the best offset+limit rows in a heap: its memory does not
// grow with the number of runs.
func Query(ctx context.Context, dest Dest, f Filter, s Sort, offset, limit int) (Page, error) {
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
		err := mergePartition(ctx, dest, p, parts[p], false, func(r *Row) error {
			if m.match(r) {
				total++
				top.offer(r)
			}
			return nil
		})
		if err != nil {
			return Page{}, err
		}
	}
	rows := top.sorted()
	if offset >= len(rows) {
		return Page{Rows: []Row{}, Total: total}, nil
	}
	rows = rows[offset:]
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	return Page{Rows: rows, Total: total}, nil
}

// less orders a before b in s.
func (s Sort) less(a, b *Row) bool {
	var c int
	switch s.By {
	case ByCost:
		c = cmp.Compare(a.Cost(), b.Cost())
	case ByTokens:
		c = cmp.Compare(a.TotalTokens, b.TotalTokens)
	default:
		c = a.Started.Compare(b.Started)
	}
	if s.Desc {
		c = -c
	}
	if c == 0 {
		c = cmp.Compare(a.Run, b.Run)
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

func (m *matcher) match(r *Row) bool {
	f := &m.f
	switch {
	case !f.Since.IsZero() && r.Started.Before(f.Since),
		!f.Until.IsZero() && !r.Started.Before(f.Until),
		f.Service != "" && r.Service != f.Service,
		f.OverBudget && !r.OverAnyBudget(),
		f.MinCost > 0 && r.Cost() < f.MinCost,
		f.OlderThan > 0 && !r.Ended.Before(f.Now.Add(-f.OlderThan)):
		return false
	}
	return m.search == "" || r.contains(m.search)
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

// pageHeap keeps the keep best rows: the worst of them on top.
type pageHeap struct {
	rows []Row
	less func(a, b *Row) bool
	keep int
	all  bool
}

func (h *pageHeap) Len() int           { return len(h.rows) }
func (h *pageHeap) Less(i, j int) bool { return h.less(&h.rows[j], &h.rows[i]) }
func (h *pageHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *pageHeap) Push(x any)         { h.rows = append(h.rows, x.(Row)) }
func (h *pageHeap) Pop() any {
	r := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return r
}

// offer keeps a copy of r if it is among the best.
func (h *pageHeap) offer(r *Row) {
	if h.all || len(h.rows) < h.keep {
		heap.Push(h, *r)
		return
	}
	if h.keep == 0 || !h.less(r, &h.rows[0]) {
		return
	}
	h.rows[0] = *r
	heap.Fix(h, 0)
}

// sorted returns the kept rows, best first.
func (h *pageHeap) sorted() []Row {
	rows := h.rows
	slices.SortFunc(rows, func(a, b Row) int {
		switch {
		case h.less(&a, &b):
			return -1
		case h.less(&b, &a):
			return 1
		}
		return 0
	})
	return rows
}
