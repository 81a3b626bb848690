package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttrace/agenttrace/internal/explain"
	"github.com/agenttrace/agenttrace/judge"
)

// Bounds of audit_run's and explain_run's pages.
const (
	defaultFindings = 50
	maxFindings     = 500
	defaultSpans    = 50
	maxSpans        = 500
)

// DiffArgs name the two runs diff_runs compares.
type DiffArgs struct {
	A string `json:"a" jsonschema:"the first run (the baseline), as list_runs names it"`
	B string `json:"b" jsonschema:"the second run (the candidate), as list_runs names it"`
}

// Diff is diff_runs' answer: judge's diff of the two runs' tool calls, as
// "agenttrace diff --json" prints it, its divergences cut to fit.
type Diff struct {
	A string `json:"a"`
	B string `json:"b"`
	*judge.DiffReport
}

func (s *Server) diffRuns(_ context.Context, _ *mcp.CallToolRequest, a DiffArgs) (*mcp.CallToolResult, Diff, error) {
	ra, err := s.load(a.A)
	if err != nil {
		return nil, Diff{}, err
	}
	rb, err := s.load(a.B)
	if err != nil {
		return nil, Diff{}, err
	}
	opts := []judge.DiffOption{
		judge.WithTrailers(ra.Summary, rb.Summary),
		judge.WithRedaction(ra.Meta != nil && ra.Meta.Redacted, rb.Meta != nil && rb.Meta.Redacted),
	}
	// judge bounds its report; leave room for the two names, and halve
	// the room until it fits (its bound is the divergences', roughly).
	for room := s.max - 2*len(a.A) - 2*len(a.B) - 256; room >= 1024; room /= 2 {
		out := Diff{A: ra.Name, B: rb.Name, DiffReport: judge.Diff(ra.Records, rb.Records, append(opts, judge.WithMaxReportBytes(room))...)}
		if size(out) <= s.max {
			return nil, out, nil
		}
	}
	return nil, Diff{}, fmt.Errorf("diff of %q and %q: %w (%d bytes)", a.A, a.B, ErrTooLarge, s.max)
}

// size is the length of v's JSON (more than any bound when it has none).
func size(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return len(b)
}

// check returns ErrTooLarge when v's JSON exceeds the bound: for answers
// whose lists are cut to fixed lengths rather than fitted.
func (s *Server) check(v any) error {
	if n := size(v); n > s.max {
		return fmt.Errorf("%w: %d bytes, bound %d", ErrTooLarge, n, s.max)
	}
	return nil
}

// AuditArgs name a run, the least severity to list, and a page.
type AuditArgs struct {
	Run      string `json:"run" jsonschema:"the run, as list_runs names it"`
	Severity string `json:"min_severity,omitempty" jsonschema:"list findings at least this severe: info (default), warning or error"`
	PageArgs
}

// Audit is audit_run's answer: judge's fidelity findings on the run, as
// "agenttrace audit --json" lists them, paged, with counts by severity.
type Audit struct {
	Run        string          `json:"run"`
	Findings   []judge.Finding `json:"findings"`
	BySeverity map[string]int  `json:"by_severity"`
	Page
}

func (s *Server) auditRun(_ context.Context, _ *mcp.CallToolRequest, a AuditArgs) (*mcp.CallToolResult, Audit, error) {
	least := judge.Info
	if a.Severity != "" {
		var err error
		if least, err = judge.ParseSeverity(a.Severity); err != nil {
			return nil, Audit{}, err
		}
	}
	run, err := s.load(a.Run)
	if err != nil {
		return nil, Audit{}, err
	}
	all := judge.Audit(run.Records, judge.WithRedacted(run.Meta != nil && run.Meta.Redacted), judge.WithTrailer(run.Summary))
	counts := map[string]int{}
	for _, f := range all {
		counts[string(f.Severity)]++
	}
	all = slices.DeleteFunc(all, func(f judge.Finding) bool { return !f.Severity.AtLeast(least) })
	win, from, err := window(all, a.PageArgs, defaultFindings, maxFindings)
	if err != nil {
		return nil, Audit{}, err
	}
	for i := range win {
		win[i].Message, _ = clip(win[i].Message, 2*maxErrText)
	}
	out, err := fit(s.max, win, from, len(all), func(fs []judge.Finding, pg Page) Audit {
		return Audit{Run: run.Name, Findings: orEmpty(fs), BySeverity: counts, Page: pg}
	}, nil)
	return nil, out, err
}

// ExplainArgs name a run and which of its spans to list.
type ExplainArgs struct {
	Run      string `json:"run" jsonschema:"the run, as list_runs names it"`
	AllSpans bool   `json:"all_spans,omitempty" jsonschema:"list every span; default: only those with something to say (a GenAI kind, a problem or an unread key), as agenttrace explain prints them"`
	PageArgs
}

// Explain is explain_run's answer: what "agenttrace explain --json" says
// of the run, its spans paged.
type Explain struct {
	Run   string         `json:"run"`
	Spans []explain.Span `json:"spans"`
	Total explain.Total  `json:"totals"`
	Page
}

func (s *Server) explainRun(_ context.Context, _ *mcp.CallToolRequest, a ExplainArgs) (*mcp.CallToolResult, Explain, error) {
	run, err := s.load(a.Run)
	if err != nil {
		return nil, Explain{}, err
	}
	ex := explain.New()
	ex.AddRecords(run.Name, run.Records)
	spans := ex.Spans
	if !a.AllSpans {
		spans = slices.DeleteFunc(spans, func(sp explain.Span) bool { return !sp.Noteworthy() })
	}
	win, from, err := window(spans, a.PageArgs, defaultSpans, maxSpans)
	if err != nil {
		return nil, Explain{}, err
	}
	out, err := fit(s.max, win, from, len(spans), func(ss []explain.Span, pg Page) Explain {
		return Explain{Run: run.Name, Spans: orEmpty(ss), Total: ex.Total, Page: pg}
	}, nil)
	return nil, out, err
}
