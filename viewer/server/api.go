package server

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer"
)

// This file is the Server as a library, for a front end other than its
// own pages (agenttrace mcp): the list of runs from the same index, filters
// and order as the list page, and a run loaded through the same confined,
// redacted, bounded path as a run page.

// ErrBadPath is returned by [Server.LoadRun] for a name that could reach
// outside the directory or names something the list never shows: "..",
// an absolute path, a hidden name, a file not named *.jsonl (or .json or
// .pb, served when of a shape agenttrace reads).
var ErrBadPath = errBadPath

// ErrRunTooLarge is returned by [Server.LoadRun] for a run larger than the
// cache may hold (WithCacheSize) or of more records than WithMaxRunRecords.
var ErrRunTooLarge = errRunTooLarge

// RunRow is one run of [Server.Runs]: a row of the list page.
type RunRow struct {
	// Run is the artifact's path relative to the directory, slash
	// separated: the name [Server.LoadRun] takes.
	Run string `json:"run"`
	// Name and Prompt name the run for people: its root span's or
	// agent's name and its first prompt (catalog.RowOf's rule), empty
	// when unknown.
	Name    string    `json:"name,omitempty"`
	Prompt  string    `json:"first_prompt,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Service string    `json:"service,omitempty"`
	Records int64     `json:"records"`
	Errors  int64     `json:"errors"`
	// Tokens are the run's totals, as "agenttrace tokens" counts them.
	Tokens artifact.Tokens `json:"tokens"`
	// CostUSD is the known cost in dollars (nil: unknown); CostUnknown
	// counts the model calls of unknown cost (CostUSD is a lower bound).
	CostUSD     *float64 `json:"cost_usd"`
	CostUnknown int64    `json:"cost_unknown_calls,omitempty"`
	// DurationMS is from the start to the latest span end, -1 unknown.
	DurationMS int64                  `json:"duration_ms"`
	Budget     *artifact.BudgetStatus `json:"budget,omitempty"`
	// State is viewer.StateOf's: running (spans open, no trailer),
	// stopped (open, and its file idle for the idle time: its writer
	// went away), or done; Running tells it is running. Complete: closed
	// by its writer.
	State    string `json:"state"`
	Running  bool   `json:"running"`
	Complete bool   `json:"complete"`
	// Problems counts lines that could not be read; Dropped the records
	// the trailer accounts for that the file does not hold.
	Problems int64    `json:"problems,omitempty"`
	Dropped  int64    `json:"dropped,omitempty"`
	Err      string   `json:"error,omitempty"`
	Agents   []string `json:"agents,omitempty"`
	Models   []string `json:"models,omitempty"`
	Tools    []string `json:"tools,omitempty"`
}

// RunList is a page of [Server.Runs].
type RunList struct {
	Rows []RunRow
	// Matched counts the runs that pass the filters, on every page.
	Matched int
	// Page (from 1) and Per are the page shown, as settled (a Per above
	// the list page's maximum is lowered to it).
	Page, Per int
	// Indexing tells that the first walk of the folder is still under
	// way: the list is empty for now.
	Indexing bool
}

// Runs lists the runs as the list page does, from the same index, with
// the same query parameters (q, service, agent, model, status, since,
// min_tokens, min_duration, min_cost, max_cost, sort, dir, page, per; see
// "agenttrace serve"). Unknown or malformed values are ignored, as the
// page ignores them.
func (s *Server) Runs(query url.Values) RunList {
	q := parseListQuery(query)
	l, err := s.listPage(s.ctx, q, time.Now())
	if err != nil {
		s.cfg.log.Error("cannot list the runs", "err", err)
	}
	out := RunList{Matched: l.matched, Page: q.Page, Per: q.Per, Indexing: l.snap != nil && l.snap.indexing, Rows: make([]RunRow, len(l.rows))}
	now := time.Now()
	for i, ri := range l.rows {
		out.Rows[i] = ri.row(ri.state(now, s.cfg.idle))
	}
	return out
}

func (ri *runInfo) row(state string) RunRow {
	r := RunRow{Run: ri.Rel, Name: ri.Name(), Prompt: ri.Prompt(), Started: ri.Started, Service: ri.Service, Records: ri.Records, Errors: ri.Errors,
		Tokens: ri.Tokens, CostUSD: ri.Cost.CostUSD, CostUnknown: ri.Cost.CostUnknown, DurationMS: -1, Budget: ri.Budget,
		State: state, Running: state == viewer.StateRunning, Complete: ri.Complete, Problems: ri.Problems, Dropped: ri.Dropped, Err: ri.Err,
		Agents: ri.Agents, Models: ri.Models, Tools: ri.Tools}
	if ri.Duration >= 0 {
		r.DurationMS = ri.Duration.Milliseconds()
	}
	return r
}

// LoadRun returns the run in the artifact named rel (a path relative to
// the directory, as [RunRow] names it), read whole and redacted as a run
// page shows it (its log records as the events of their spans), from the
// cache when it was read already. A name that could lead outside the
// directory is refused with [ErrBadPath] (no "..", no absolute path, no
// symbolic link leading out); a run too large to load whole with
// [ErrRunTooLarge]. The Run is shared with the cache: do not change it.
func (s *Server) LoadRun(rel string) (viewer.Run, error) {
	clean, err := cleanRel(escapeRel(rel))
	if err != nil {
		return viewer.Run{}, err
	}
	if !s.enter() {
		return viewer.Run{}, fmt.Errorf("load %s: %w", clean, errClosed)
	}
	defer s.leave()
	if s.bkt != nil {
		_, lr, err := s.bucketRun(s.ctx, clean)
		if err != nil {
			return viewer.Run{}, err
		}
		return lr.run, nil
	}
	a, err := s.openRun(clean)
	if err != nil {
		return viewer.Run{}, err
	}
	defer a.f.Close()
	lr, err := s.run(a)
	if err != nil {
		if errors.Is(err, errRunTooLarge) {
			return viewer.Run{}, fmt.Errorf("%s: %w", clean, err)
		}
		return viewer.Run{}, err
	}
	return lr.run, nil
}

// errClosed is LoadRun after Shutdown.
var errClosed = errors.New("server shut down")
