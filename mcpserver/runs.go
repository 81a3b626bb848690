package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// Bounds of list_runs' pages and of the names a row lists.
const (
	defaultRunsPer = 20
	maxRunsPer     = 50
	maxRowNames    = 10
	maxErrText     = 300
)

// ListRunsArgs are list_runs' arguments: the filters, order and pages of
// the list of "agenttrace serve".
type ListRunsArgs struct {
	Query       string  `json:"query,omitempty" jsonschema:"search across runs: names, tools, models, message text"`
	Service     string  `json:"service,omitempty" jsonschema:"only runs of this service"`
	Agent       string  `json:"agent,omitempty" jsonschema:"only runs with this agent"`
	Model       string  `json:"model,omitempty" jsonschema:"only runs that called this model"`
	Status      string  `json:"status,omitempty" jsonschema:"running, stopped (not ended, and no new data for the idle time: its writer went away), done, error (failed spans or unreadable lines), over (over a token or cost budget) or open (not closed by its writer)"`
	Since       string  `json:"since,omitempty" jsonschema:"only runs started within 1h, 24h or 7d"`
	MinTokens   int64   `json:"min_tokens,omitempty" jsonschema:"only runs of at least this many tokens"`
	MinDuration string  `json:"min_duration,omitempty" jsonschema:"only runs at least this long (a Go duration: 30s, 2m)"`
	MinCostUSD  float64 `json:"min_cost_usd,omitempty" jsonschema:"only runs known to cost at least this many dollars"`
	MaxCostUSD  float64 `json:"max_cost_usd,omitempty" jsonschema:"only runs known to cost at most this many dollars"`
	Sort        string  `json:"sort,omitempty" jsonschema:"started (default), run, service, records, tokens, cost, errors or duration"`
	Ascending   bool    `json:"ascending,omitempty" jsonschema:"smallest or oldest first (default: newest, largest first; names A to Z)"`
	Page        int     `json:"page,omitempty" jsonschema:"page of the list, from 1"`
	Per         int     `json:"per,omitempty" jsonschema:"runs a page (default 20, at most 50)"`
}

// RunList is list_runs' answer.
type RunList struct {
	Runs []server.RunRow `json:"runs"`
	// Matched counts the runs that pass the filters; Page and Per say
	// which of them are listed.
	Matched int `json:"matched"`
	Page    int `json:"page"`
	Per     int `json:"per"`
	// NextPage is the page to ask for next; absent on the last page.
	NextPage int `json:"next_page,omitempty"`
	// Indexing: the folder's first walk is under way, the list is not
	// complete yet; ask again.
	Indexing bool   `json:"indexing,omitempty"`
	Note     string `json:"note,omitempty"`
}

func (a ListRunsArgs) values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("q", a.Query)
	set("service", a.Service)
	set("agent", a.Agent)
	set("model", a.Model)
	set("status", a.Status)
	set("since", a.Since)
	set("min_duration", a.MinDuration)
	set("sort", a.Sort)
	if a.MinTokens > 0 {
		v.Set("min_tokens", strconv.FormatInt(a.MinTokens, 10))
	}
	if a.MinCostUSD > 0 {
		v.Set("min_cost", strconv.FormatFloat(a.MinCostUSD, 'f', -1, 64))
	}
	if a.MaxCostUSD > 0 {
		v.Set("max_cost", strconv.FormatFloat(a.MaxCostUSD, 'f', -1, 64))
	}
	if a.Ascending {
		v.Set("dir", "asc")
	}
	if a.Page > 0 {
		v.Set("page", strconv.Itoa(a.Page))
	}
	v.Set("per", strconv.Itoa(min(cmpOr(a.Per, defaultRunsPer), maxRunsPer)))
	return v
}

func cmpOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

func (s *Server) listRuns(_ context.Context, _ *mcp.CallToolRequest, a ListRunsArgs) (*mcp.CallToolResult, RunList, error) {
	if a.Page < 0 || a.Per < 0 {
		return nil, RunList{}, fmt.Errorf("page %d, per %d: want 0 or more", a.Page, a.Per)
	}
	l := s.view.Runs(a.values())
	for i := range l.Rows {
		r := &l.Rows[i]
		r.Agents, r.Models, r.Tools = clipList(r.Agents, maxRowNames), clipList(r.Models, maxRowNames), clipList(r.Tools, maxRowNames)
		r.Err, _ = clip(r.Err, maxErrText)
	}
	from := (l.Page - 1) * l.Per
	out, err := fit(s.max, l.Rows, from, l.Matched, func(rows []server.RunRow, pg Page) RunList {
		rl := RunList{Runs: rows, Matched: l.Matched, Page: l.Page, Per: l.Per, Indexing: l.Indexing}
		if rows == nil {
			rl.Runs = []server.RunRow{}
		}
		switch {
		case len(rows) < len(l.Rows):
			rl.Note = fmt.Sprintf("cut to %d runs to keep the answer within %d bytes; ask with per=%d", len(rows), s.max, len(rows))
		case from+len(rows) < l.Matched:
			rl.NextPage = l.Page + 1
			rl.Note = fmt.Sprintf("%d of %d runs listed; call again with page=%d for more", from+len(rows), l.Matched, rl.NextPage)
		}
		if l.Indexing {
			rl.Note = "the folder is still being indexed; ask again for the complete list"
		}
		return rl
	}, nil)
	return nil, out, err
}

// SummaryArgs name one run.
type SummaryArgs struct {
	Run string `json:"run" jsonschema:"the run: its path relative to the served directory, as list_runs names it"`
}

// RunSummary is run_summary's answer: the numbers of "agenttrace tokens
// --json", with its lists cut to their largest entries.
type RunSummary struct {
	Run     string    `json:"run"`
	Service string    `json:"service,omitempty"`
	Started time.Time `json:"started,omitzero"`
	// State is "running", "stopped" (open, its file idle: its writer went
	// away) or "done" (viewer.RunState).
	State   string              `json:"state"`
	Records report.RecordCounts `json:"records"`
	// Errors counts failed spans (artifact.Failed); BudgetStopped those
	// the budget stopped.
	Errors        int64           `json:"errors"`
	BudgetStopped int64           `json:"budget_stopped,omitempty"`
	Tokens        artifact.Tokens `json:"tokens"`
	report.Cost
	CostUnknownModels []string               `json:"cost_unknown_models,omitempty"`
	Budget            *artifact.BudgetStatus `json:"budget,omitempty"`
	FromTrailer       bool                   `json:"from_trailer,omitempty"`
	Dropped           int64                  `json:"dropped,omitempty"`
	Truncated         int64                  `json:"truncated,omitempty"`
	Notes             []string               `json:"notes,omitempty"`
	Models            []report.ModelUsage    `json:"models"`
	Agents            []report.AgentUsage    `json:"agents"`
	Tools             []report.ToolUsage     `json:"tools"`
	FinishReasons     map[string]int64       `json:"finish_reasons,omitempty"`
	// Largest are the largest model outputs and tool results.
	Largest []report.Response `json:"largest"`
	// Failures are the first failed spans; find_errors lists them all.
	Failures []report.Failure `json:"failures"`
	// Problems are lines of the file that could not be read.
	Problems []viewer.Problem `json:"problems,omitempty"`
	// Omitted says which lists were cut, and where the rest is.
	Omitted []string `json:"omitted,omitempty"`
}

// Bounds of run_summary's lists.
const (
	summaryTop      = 10
	summaryFailures = 5
)

func (s *Server) runSummary(_ context.Context, _ *mcp.CallToolRequest, a SummaryArgs) (*mcp.CallToolResult, RunSummary, error) {
	run, err := s.load(a.Run)
	if err != nil {
		return nil, RunSummary{}, err
	}
	rep := report.Tokens(run.Records, run.Meta, report.WithTop(summaryTop), report.WithTrailer(run.Summary, run.Records))
	state, _ := viewer.RunState(run.Records, run.InFlight, run.Summary, run.Live)
	out := RunSummary{Run: run.Name, State: state, Records: rep.Records, Errors: rep.Errors, BudgetStopped: rep.BudgetStopped,
		Tokens: rep.Tokens, Cost: rep.Cost, Budget: rep.Budget, FromTrailer: rep.FromTrailer, Dropped: rep.Dropped,
		Truncated: rep.Truncated, Notes: rep.Notes, FinishReasons: rep.FinishReasons, Largest: rep.Largest}
	if run.Meta != nil {
		out.Service, out.Started = run.Meta.Service, run.Meta.StartedAt
	}
	keep := func(name string, n, limit int, more string) int {
		if n > limit {
			out.Omitted = append(out.Omitted, fmt.Sprintf("%s: %d more%s", name, n-limit, more))
			return limit
		}
		return n
	}
	out.CostUnknownModels = clipList(rep.CostUnknownModels, summaryTop)
	out.Models = rep.ByModel[:keep("models", len(rep.ByModel), summaryTop, "")]
	out.Agents = rep.ByAgent[:keep("agents", len(rep.ByAgent), summaryTop, "")]
	out.Tools = rep.ByTool[:keep("tools", len(rep.ByTool), 2*summaryTop, "")]
	out.Failures = rep.Failures[:keep("failures", len(rep.Failures), summaryFailures, " (find_errors lists them all)")]
	for i := range out.Failures {
		out.Failures[i].Message, _ = clip(out.Failures[i].Message, maxErrText)
	}
	out.Problems = slices.Clone(run.Problems[:keep("unreadable lines", len(run.Problems), summaryFailures, " (find_errors lists them all)")])
	for i := range out.Problems {
		out.Problems[i].Message, _ = clip(out.Problems[i].Message, maxErrText)
	}
	return nil, out, s.check(out)
}

// load reads a run through the viewer server: confined to the directory,
// redacted, cached. Its errors are what the client is told.
func (s *Server) load(name string) (viewer.Run, error) {
	if name == "" {
		return viewer.Run{}, errors.New("no run named: pass a run as list_runs names it")
	}
	run, err := s.view.LoadRun(name)
	switch {
	case errors.Is(err, server.ErrBadPath):
		return viewer.Run{}, fmt.Errorf("run %q: refused: not a path inside the served directory to a *.jsonl file (no \"..\", no absolute path, no hidden name): %w", name, err)
	case errors.Is(err, server.ErrRunTooLarge):
		return viewer.Run{}, fmt.Errorf("run %q is too large to read here (raise --cache-size or --max-run-records): %w", name, err)
	case err != nil:
		return viewer.Run{}, fmt.Errorf("run %q: %w", name, err)
	}
	return run, nil
}
