package server_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// costSpan is one span of a cost fixture: its id, its parent's, what it
// is, and the model call's usage (0 for none).
type costSpan struct {
	id, parent byte
	op, model  string
	in, out    int64
	// usd, when not 0, is a cost the span reports itself.
	usd float64
}

// writeCostRun writes the spans, ending in the order given, as an
// artifact in dir, closed with its trailer or not, held to budget (nil
// for none).
func writeCostRun(t *testing.T, dir, name string, spans []costSpan, closed bool, budget *artifact.Budget) string {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "cost-test")
	ss := rs.ScopeSpans().AppendEmpty()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{1, 2, 3})
		sp.SetSpanID(pcommon.SpanID{s.id})
		if s.parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{s.parent})
		}
		sp.SetName(s.op + " " + s.model)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(i+1) * time.Second)))
		a := sp.Attributes()
		a.PutStr(semconv.OperationName, s.op)
		if s.op == "invoke_agent" {
			a.PutStr("gen_ai.agent.name", "planner")
			continue
		}
		a.PutStr("gen_ai.provider.name", "openai")
		a.PutStr("gen_ai.request.model", s.model)
		if s.in+s.out > 0 {
			a.PutInt(semconv.UsageInputTokens, s.in)
			a.PutInt(semconv.UsageOutputTokens, s.out)
		}
		if s.usd > 0 {
			a.PutDouble("gen_ai.usage.cost", s.usd)
		}
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	meta := artifact.NewMeta(t0)
	meta.Budget = budget
	w := artifact.NewWriter(f, meta)
	require.NoError(t, w.WriteTraces(td))
	if closed {
		require.NoError(t, w.Close())
	}
	return path
}

// The runs list's cost column is the run page's and `agenttrace tokens`'
// (report.Tokens) for every shape the cost rules tell apart: priced from
// the data by hand-checkable usage, a cost a span reports winning over
// the data, an unknown model ("unknown", never $0), a lower bound, no
// model call at all, and a wrapper (a framework's chat span around the
// SDK's) counted once, whether it ends after its child or, as a streamed
// call's SDK span does, before it; running or closed.
func TestListCost(t *testing.T) {
	prices, err := pricing.Default()
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	priced := func(model string, in, out int64) float64 {
		c := prices.UsageCost("openai", model, at, semconv.Usage{Input: in, Output: out})
		require.Equal(t, pricing.FromPrices, c.Source, model)
		return c.USD
	}
	agent := costSpan{id: 1, op: "invoke_agent"}
	tests := []struct {
		name  string
		spans []costSpan
		want  string // the cell, from the hand-priced calls
	}{
		{"priced", []costSpan{{id: 2, parent: 1, op: "chat", model: "gpt-4o", in: 1000, out: 200}, agent},
			report.Dollars(ptr(priced("gpt-4o", 1000, 200)))},
		{"a span's own cost wins", []costSpan{{id: 2, parent: 1, op: "chat", model: "gpt-4o", in: 1000, out: 200, usd: 0.5}, agent},
			"$0.5000"},
		{"unknown model", []costSpan{{id: 2, parent: 1, op: "chat", model: "no-such-model-xyz", in: 1000, out: 200}, agent},
			"unknown"},
		{"no usage", []costSpan{{id: 2, parent: 1, op: "chat", model: "gpt-4o"}, agent}, "unknown"},
		{"lower bound", []costSpan{{id: 2, parent: 1, op: "chat", model: "gpt-4o", in: 1000, out: 200}, {id: 3, parent: 1, op: "chat", model: "no-such-model-xyz", in: 5, out: 5}, agent},
			report.Dollars(ptr(priced("gpt-4o", 1000, 200))) + " or more"},
		{"no model call", []costSpan{{id: 2, parent: 1, op: "execute_tool", model: ""}, agent}, "$0"},
		{"wrapper ending after its child", []costSpan{{id: 3, parent: 2, op: "chat", model: "gpt-4o-mini", in: 4000, out: 500}, {id: 2, parent: 1, op: "chat", model: "gpt-4o-mini", in: 4000, out: 500}, agent},
			report.Dollars(ptr(priced("gpt-4o-mini", 4000, 500)))},
		{"wrapper ending before its child", []costSpan{{id: 2, parent: 1, op: "chat", model: "gpt-4o-mini", in: 4000, out: 500}, {id: 3, parent: 2, op: "chat", model: "gpt-4o-mini", in: 4000, out: 500}, agent},
			report.Dollars(ptr(priced("gpt-4o-mini", 4000, 500)))},
	}
	for _, tt := range tests {
		for _, closed := range []bool{false, true} {
			name, spans := tt.name, tt.spans
			if !closed {
				name += ", running"
				spans = spans[:len(spans)-1] // the agent has not ended
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				path := writeCostRun(t, dir, "run.jsonl", spans, closed, nil)
				recs, meta := artifacttest.Read(t, path)
				rep := report.Tokens(recs, meta)
				require.Equal(t, tt.want, viewer.CostText(rep.Cost), "the report")

				ts := start(t, dir)
				_, page := ts.get(t, "/")
				got := rows(t, page)
				require.Len(t, got, 1)
				assert.Equal(t, tt.want, got[0].cols["cost"])
				assert.Equal(t, rep.Tokens.Total, number(t, got[0].cols["total"]), "tokens leave out the same spans")
				if !closed {
					assert.Equal(t, "● running", got[0].cols["state"])
				}
			})
		}
	}
}

func ptr(v float64) *float64 { return &v }

// A cost budget (the header's budget_usd) shows in the budget column in
// dollars, and "over budget" lists the runs over either budget, tokens
// or dollars, running or closed.
func TestListCostBudget(t *testing.T) {
	dir := t.TempDir()
	calls := []costSpan{{id: 2, parent: 1, op: "chat", model: "gpt-4o", in: 1000, out: 200}, {id: 1, op: "invoke_agent"}}
	prices, err := pricing.Default()
	require.NoError(t, err)
	usd := prices.UsageCost("openai", "gpt-4o", time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), semconv.Usage{Input: 1000, Output: 200}).USD
	limit := usd / 2
	writeCostRun(t, dir, "dollars-over.jsonl", calls, true, &artifact.Budget{USD: limit})
	writeCostRun(t, dir, "dollars-over-running.jsonl", calls[:1], false, &artifact.Budget{USD: limit})
	writeCostRun(t, dir, "dollars-within.jsonl", calls, true, &artifact.Budget{USD: 100})
	writeCostRun(t, dir, "tokens-over.jsonl", calls, true, &artifact.Budget{Tokens: 1000})
	writeCostRun(t, dir, "both-within.jsonl", calls, true, &artifact.Budget{Tokens: 100000, USD: 100})
	ts := start(t, dir)

	assert.Equal(t, []string{"dollars-over-running.jsonl", "dollars-over.jsonl", "tokens-over.jsonl"}, listed(t, ts, "status=over&sort=run"))
	_, page := ts.get(t, "/")
	cells := map[string]string{}
	for _, r := range rows(t, page) {
		cells[r.path] = r.cols["budget"]
	}
	half := report.Dollars(&limit)
	assert.Equal(t, report.Dollars(&usd)+" of "+half+" (200.0%), over budget", cells["dollars-over.jsonl"])
	assert.Equal(t, cells["dollars-over.jsonl"], cells["dollars-over-running.jsonl"], "over while running")
	assert.Equal(t, report.Dollars(&usd)+" of $100.00 (0.0%)", cells["dollars-within.jsonl"])
	assert.Equal(t, "1,200 of 1,000 tokens (120.0%), over budget", cells["tokens-over.jsonl"])
	assert.Equal(t, "1,200 of 100,000 tokens (1.2%) · "+report.Dollars(&usd)+" of $100.00 (0.0%)", cells["both-within.jsonl"])
	assert.Contains(t, page, `<td data-col="budget" class="budget-over">`+report.Dollars(&usd))
}
