package server

import (
	"cmp"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// listQuery is what the list page was asked to show: its filters, search
// and order, all in the URL, so a filtered, sorted list is a link too.
type listQuery struct {
	Q       string // search across runs: names, tools, models, message text
	Service string
	Agent   string
	Model   string
	Status  string // "", running, stopped (without an end), done, error, over (a token or cost budget), open
	Since   string // "", 1h, 24h, 7d
	Sort    string // started, run, service, records, tokens, cost, errors, duration
	Desc    bool
	// MinTokens and MinDuration keep the runs with at least that many
	// tokens (input + output) or that long ("30s", "2m"); empty for any.
	MinTokens   string
	MinDuration string
	minTokens   int64
	minDuration time.Duration
	// MinCost and MaxCost keep the runs whose cost in dollars ("0.05",
	// "$1.20") is known to be at least, or at most, that much; empty for
	// any. A run of unknown cost passes neither; one with unpriced calls
	// (a lower bound) passes a minimum it reaches, never a maximum.
	MinCost, MaxCost string
	minCost, maxCost float64
	hasMin, hasMax   bool
	// Page (from 1) and Per (rows a page, [defaultPer] unless asked) say
	// which rows of the filtered, sorted list the page shows: a folder of
	// 100,000 runs is rendered 100 rows at a time.
	Page, Per int
	// idle is the server's idle time (WithIdle): the status filters
	// decide a run's state with it, as the run page does.
	idle time.Duration
}

// defaultPer and maxPer bound the rows of one list page.
const (
	defaultPer = 100
	maxPer     = 1000
)

// Status filters and time windows the list offers.
var (
	listStatuses = []string{"running", "stopped", "done", "error", "over", "open"}
	listSinces   = map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour}
	listSorts    = []string{"started", "run", "service", "records", "tokens", "cost", "errors", "duration"}
)

func parseListQuery(v url.Values) listQuery {
	q := listQuery{
		Q: strings.TrimSpace(v.Get("q")), Service: v.Get("service"), Agent: v.Get("agent"), Model: v.Get("model"),
		Status: v.Get("status"), Since: v.Get("since"), Sort: v.Get("sort"),
	}
	if !slices.Contains(listStatuses, q.Status) {
		q.Status = ""
	}
	if _, ok := listSinces[q.Since]; !ok {
		q.Since = ""
	}
	if n, err := strconv.ParseInt(strings.ReplaceAll(v.Get("min_tokens"), ",", ""), 10, 64); err == nil && n > 0 {
		q.MinTokens, q.minTokens = strconv.FormatInt(n, 10), n
	}
	if d, err := time.ParseDuration(strings.TrimSpace(v.Get("min_duration"))); err == nil && d > 0 {
		q.MinDuration, q.minDuration = d.String(), d
	}
	if usd, ok := parseDollars(v.Get("min_cost")); ok {
		q.MinCost, q.minCost, q.hasMin = dollarsParam(usd), usd, true
	}
	if usd, ok := parseDollars(v.Get("max_cost")); ok {
		q.MaxCost, q.maxCost, q.hasMax = dollarsParam(usd), usd, true
	}
	if !slices.Contains(listSorts, q.Sort) {
		q.Sort = "started"
	}
	q.Page, q.Per = 1, defaultPer
	if n, err := strconv.Atoi(v.Get("page")); err == nil && n > 1 {
		q.Page = n
	}
	if n, err := strconv.Atoi(v.Get("per")); err == nil && n > 0 {
		q.Per = min(n, maxPer)
	}
	// Newest, largest and longest first unless asked otherwise; names
	// in alphabetical order.
	switch v.Get("dir") {
	case "asc":
		q.Desc = false
	case "desc":
		q.Desc = true
	default:
		q.Desc = q.Sort != "run" && q.Sort != "service"
	}
	return q
}

// Filtering tells whether any filter or search is set.
func (q listQuery) Filtering() bool {
	return q.Q != "" || q.Service != "" || q.Agent != "" || q.Model != "" || q.Status != "" || q.Since != "" ||
		q.minTokens > 0 || q.minDuration > 0 || q.hasMin || q.hasMax
}

// parseDollars reads a cost filter: a number of dollars, 0 or more, with
// or without a "$" and thousands separators.
func parseDollars(s string) (float64, bool) {
	s = strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(s), "$"), ",", "")
	if s == "" {
		return 0, false
	}
	usd, err := strconv.ParseFloat(s, 64)
	if err != nil || usd < 0 || math.IsInf(usd, 0) || math.IsNaN(usd) {
		return 0, false
	}
	return usd, true
}

// dollarsParam writes a cost filter back into the URL and the form.
func dollarsParam(usd float64) string { return strconv.FormatFloat(usd, 'f', -1, 64) }

// costKnownAtLeast reports whether c is known to be usd or more: its
// known part (a lower bound when some calls are unpriced) reaches usd.
func costKnownAtLeast(c report.Cost, usd float64) bool {
	return c.CostUSD != nil && *c.CostUSD >= usd
}

// costKnownAtMost reports whether c is known to be usd or less: every
// call priced, and the sum within usd.
func costKnownAtMost(c report.Cost, usd float64) bool {
	return c.CostUSD != nil && c.CostUnknown == 0 && *c.CostUSD <= usd
}

// compareCost orders costs for the list: an unknown cost below every
// known one (below $0), then by the known dollars, a lower bound (some
// calls unpriced) just above the same exact sum.
func compareCost(a, b report.Cost) int {
	switch {
	case a.CostUSD == nil && b.CostUSD == nil:
		return 0
	case a.CostUSD == nil:
		return -1
	case b.CostUSD == nil:
		return 1
	}
	return cmp.Or(cmp.Compare(*a.CostUSD, *b.CostUSD), cmp.Compare(min(a.CostUnknown, 1), min(b.CostUnknown, 1)))
}

// keep tells whether ri passes the filters.
func (q listQuery) keep(ri *runInfo, now time.Time) bool {
	if q.Service != "" && ri.Service != q.Service {
		return false
	}
	if q.Agent != "" && !slices.Contains(ri.Agents, q.Agent) {
		return false
	}
	if q.Model != "" && !slices.Contains(ri.Models, q.Model) {
		return false
	}
	switch q.Status {
	case "running":
		if ri.state(now, q.idle) != viewer.StateRunning {
			return false
		}
	case "stopped":
		if ri.state(now, q.idle) != viewer.StateStopped {
			return false
		}
	case "done":
		if ri.state(now, q.idle) != viewer.StateDone || ri.Err != "" {
			return false
		}
	case "error":
		if ri.Errors == 0 && ri.Err == "" && ri.Problems == 0 {
			return false
		}
	case "over":
		if viewer.BudgetState(ri.Budget) != viewer.BudgetOver { // tokens or dollars
			return false
		}
	case "open":
		if ri.Complete {
			return false
		}
	}
	if q.minTokens > 0 && ri.Tokens.Total < q.minTokens {
		return false
	}
	if q.minDuration > 0 && ri.Duration < q.minDuration {
		return false
	}
	if q.hasMin && (ri.Err != "" || !costKnownAtLeast(ri.Cost, q.minCost)) {
		return false
	}
	if q.hasMax && (ri.Err != "" || !costKnownAtMost(ri.Cost, q.maxCost)) {
		return false
	}
	if d, ok := listSinces[q.Since]; ok && ri.when().Before(now.Add(-d)) {
		return false
	}
	if q.Q != "" && !strings.Contains(ri.index, strings.ToLower(q.Q)) {
		return false
	}
	return true
}

// page returns the rows of q's page among runs (newest first, as the
// snapshot holds them) and how many runs pass the filters. The default
// list, newest first and unfiltered, is the snapshot's order: its page is
// a slice, whatever the folder's size.
func (q listQuery) page(runs []*runInfo, now time.Time) (rows []*runInfo, matched int) {
	list := runs
	if q.Filtering() || q.Sort != "started" || !q.Desc {
		list = q.apply(runs, now)
	}
	from := min((q.Page-1)*q.Per, len(list))
	to := min(from+q.Per, len(list))
	return list[from:to], len(list)
}

// apply filters and sorts runs (a new slice).
func (q listQuery) apply(runs []*runInfo, now time.Time) []*runInfo {
	out := make([]*runInfo, 0, len(runs))
	for _, ri := range runs {
		if q.keep(ri, now) {
			out = append(out, ri)
		}
	}
	slices.SortStableFunc(out, q.compare)
	return out
}

// compare orders two rows as q's list shows them: by q's column, then
// by path.
func (q listQuery) compare(a, b *runInfo) int {
	var c int
	switch q.Sort {
	case "run":
		c = strings.Compare(a.Rel, b.Rel)
	case "service":
		c = strings.Compare(a.Service, b.Service)
	case "records":
		c = cmp.Compare(a.Records, b.Records)
	case "tokens":
		c = cmp.Compare(a.Tokens.Total, b.Tokens.Total)
	case "cost":
		c = compareCost(a.Cost, b.Cost)
	case "errors":
		c = cmp.Compare(a.Errors, b.Errors)
	case "duration":
		c = cmp.Compare(a.Duration, b.Duration)
	default:
		c = a.when().Compare(b.when())
	}
	if q.Desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	return strings.Compare(a.Rel, b.Rel)
}

// values are q as URL parameters, without the defaults.
func (q listQuery) values() url.Values {
	v := url.Values{}
	if q.Per != defaultPer && q.Per > 0 {
		v.Set("per", strconv.Itoa(q.Per))
	}
	for k, s := range map[string]string{"q": q.Q, "service": q.Service, "agent": q.Agent, "model": q.Model, "status": q.Status, "since": q.Since,
		"min_tokens": q.MinTokens, "min_duration": q.MinDuration, "min_cost": q.MinCost, "max_cost": q.MaxCost} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// SortURL is the list sorted by col: the other way round when it is
// sorted by col already.
func (q listQuery) SortURL(col string) string {
	v := q.values()
	v.Set("sort", col)
	desc := col != "run" && col != "service"
	if q.Sort == col {
		desc = !q.Desc
	}
	if desc {
		v.Set("dir", "desc")
	} else {
		v.Set("dir", "asc")
	}
	return "/?" + v.Encode()
}

// PageURL is page n of the list as it is filtered and sorted now.
func (q listQuery) PageURL(n int) string {
	v := q.values()
	v.Set("sort", q.Sort)
	if q.Desc {
		v.Set("dir", "desc")
	} else {
		v.Set("dir", "asc")
	}
	v.Set("page", strconv.Itoa(n))
	return "/?" + v.Encode()
}

// Arrow marks the column the list is sorted by.
func (q listQuery) Arrow(col string) string {
	if q.Sort != col {
		return ""
	}
	if q.Desc {
		return " ▼"
	}
	return " ▲"
}

// listChoices are the values the filters offer: those the runs carry.
type listChoices struct {
	Services, Agents, Models []string
}

func choicesOf(runs []*runInfo) listChoices {
	ch := newChoiceSet()
	for _, ri := range runs {
		ch.add(ri.Service, ri.Agents, ri.Models)
	}
	return ch.choices()
}

// choiceSet collects the filters' choices from the runs as they come.
type choiceSet struct{ services, agents, models map[string]bool }

func newChoiceSet() *choiceSet {
	return &choiceSet{services: map[string]bool{}, agents: map[string]bool{}, models: map[string]bool{}}
}

// add notes a run's service, agents and models; a value is copied when
// first seen, since a catalog row's strings last only during its call.
func (c *choiceSet) add(service string, agents, models []string) {
	note := func(m map[string]bool, v string) {
		if v != "" && !m[v] {
			m[strings.Clone(v)] = true
		}
	}
	note(c.services, service)
	for _, x := range agents {
		note(c.agents, x)
	}
	for _, x := range models {
		note(c.models, x)
	}
}

func (c *choiceSet) choices() listChoices {
	keys := func(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
	return listChoices{Services: keys(c.services), Agents: keys(c.agents), Models: keys(c.models)}
}

func (s *Server) serveVersion(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(s.currentVersion()))
}
