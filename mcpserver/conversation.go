package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// Bounds of conversation's and find_errors' pages.
const (
	defaultCalls  = 5
	maxCalls      = 50
	defaultErrors = 50
	maxErrors     = 500
	maxLines      = 20
)

// ConversationArgs name a run and, optionally, one model call of it.
type ConversationArgs struct {
	Run    string `json:"run" jsonschema:"the run, as list_runs names it"`
	SpanID string `json:"span_id,omitempty" jsonschema:"only this model call (its span id, 16 hex digits); default: every model call of the run, paged"`
	PageArgs
}

// Turn is one model call and its conversation, as "agenttrace messages
// --json" prints it (converter.ModelCalls: normalized, with the input a
// call inherits from its wrapper or ancestor).
type Turn struct {
	TraceID string            `json:"trace_id"`
	SpanID  string            `json:"span_id"`
	Model   string            `json:"model"`
	System  []semconv.Part    `json:"system"`
	Input   []semconv.Message `json:"input"`
	Output  []semconv.Message `json:"output"`
	// InheritedFrom names the ancestor span whose input the call shows.
	InheritedFrom string `json:"inherited_from,omitempty"`
	// Cut tells that values were shortened to fit the answer's bound:
	// each says how many bytes were left out.
	Cut bool `json:"cut,omitempty"`
}

// Conversation is conversation's answer.
type Conversation struct {
	Run   string `json:"run"`
	Calls []Turn `json:"calls"`
	Page
}

func (s *Server) conversation(_ context.Context, _ *mcp.CallToolRequest, a ConversationArgs) (*mcp.CallToolResult, Conversation, error) {
	run, err := s.load(a.Run)
	if err != nil {
		return nil, Conversation{}, err
	}
	calls := converter.ModelCalls(run.Records)
	if a.SpanID != "" {
		calls = slices.DeleteFunc(calls, func(mc converter.ModelCall) bool {
			return run.Records[mc.Index].Span.SpanID().String() != a.SpanID
		})
		if len(calls) == 0 {
			return nil, Conversation{}, fmt.Errorf("run %q has no model call with span id %q", a.Run, a.SpanID)
		}
	}
	win, from, err := window(calls, a.PageArgs, defaultCalls, maxCalls)
	if err != nil {
		return nil, Conversation{}, err
	}
	turns := make([]Turn, len(win))
	var rd semconv.Reading
	for i, mc := range win {
		rec := &run.Records[mc.Index]
		rec.Read(&rd)
		c := mc.Conversation
		turns[i] = Turn{TraceID: rec.Span.TraceID().String(), SpanID: rec.Span.SpanID().String(), Model: rd.Model(),
			System: orEmpty(c.System), Input: orEmpty(c.Input), Output: orEmpty(c.Output)}
		if !mc.InheritedFrom.IsEmpty() {
			turns[i].InheritedFrom = mc.InheritedFrom.String()
		}
	}
	out, err := fit(s.max, turns, from, len(calls), func(ts []Turn, pg Page) Conversation {
		return Conversation{Run: run.Name, Calls: orEmpty(ts), Page: pg}
	}, shrinkTurn)
	return nil, out, err
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// shrinkTurn returns t with every value longer than room bytes cut.
func shrinkTurn(t Turn, room int) Turn {
	parts := func(ps []semconv.Part) []semconv.Part {
		out := make([]semconv.Part, len(ps))
		for i, p := range ps {
			var c1, c2, c3 bool
			p.Content, c1 = clip(p.Content, room)
			p.Arguments, c2 = clipValue(p.Arguments, room)
			p.Response, c3 = clipValue(p.Response, room)
			t.Cut = t.Cut || c1 || c2 || c3
			out[i] = p
		}
		return out
	}
	msgs := func(ms []semconv.Message) []semconv.Message {
		out := make([]semconv.Message, len(ms))
		for i, m := range ms {
			m.Parts = parts(m.Parts)
			out[i] = m
		}
		return out
	}
	t.System, t.Input, t.Output = parts(t.System), msgs(t.Input), msgs(t.Output)
	return t
}

// clipValue cuts a structured value (tool arguments or a result) whose
// JSON is longer than room bytes to that JSON, cut, as a string.
func clipValue(v any, room int) (any, bool) {
	if v == nil {
		return nil, false
	}
	if s, ok := v.(string); ok {
		return clip(s, room)
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) <= room {
		return v, false
	}
	return clip(string(b), room)
}

// ErrorsArgs name a run and a page of its failures.
type ErrorsArgs struct {
	Run string `json:"run" jsonschema:"the run, as list_runs names it"`
	PageArgs
}

// Errors is find_errors' answer: the run's failed spans (the one rule of
// what failed, artifact.Failed, as "agenttrace tokens" counts errors),
// paged, and the lines of its file that could not be read.
type Errors struct {
	Run      string           `json:"run"`
	Failures []report.Failure `json:"failures"`
	Page
	// UnreadableLines are the first lines of the file that could not be
	// read; UnreadableTotal counts them all.
	UnreadableLines []viewer.Problem `json:"unreadable_lines"`
	UnreadableTotal int              `json:"unreadable_total"`
}

func (s *Server) findErrors(_ context.Context, _ *mcp.CallToolRequest, a ErrorsArgs) (*mcp.CallToolResult, Errors, error) {
	run, err := s.load(a.Run)
	if err != nil {
		return nil, Errors{}, err
	}
	rep := report.Tokens(run.Records, run.Meta, report.WithTop(0))
	win, from, err := window(rep.Failures, a.PageArgs, defaultErrors, maxErrors)
	if err != nil {
		return nil, Errors{}, err
	}
	for i := range win {
		win[i].Message, _ = clip(win[i].Message, maxErrText)
	}
	lines := slices.Clone(run.Problems[:min(len(run.Problems), maxLines)])
	for i := range lines {
		lines[i].Message, _ = clip(lines[i].Message, maxErrText)
	}
	out, err := fit(s.max, win, from, len(rep.Failures), func(fs []report.Failure, pg Page) Errors {
		return Errors{Run: run.Name, Failures: orEmpty(fs), Page: pg, UnreadableLines: orEmpty(lines), UnreadableTotal: len(run.Problems)}
	}, nil)
	return nil, out, err
}
