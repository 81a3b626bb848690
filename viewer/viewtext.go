package viewer

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// viewText is every quantity the page and its outline show of a run as a
// whole, written by the formatters of format.go: the page's script lays
// these strings out and the outline prints the same ones, so the two (and
// the runs list, which calls the same formatters) cannot disagree.
type viewText struct {
	// Duration is the run's length (RunDuration).
	Duration string `json:"duration"`
	// Records and Errors count the records and the failed ones.
	Records string `json:"records"`
	Errors  string `json:"errors"`
	// The token totals (the trailer's when it accounts for dropped
	// records).
	TokensIn   string `json:"tokens_in"`
	TokensOut  string `json:"tokens_out"`
	CacheRead  string `json:"cache_read"`
	CacheWrite string `json:"cache_write"`
	Reasoning  string `json:"reasoning"`
	// Total is the total tokens, or, for a run where no model call
	// reported usage, what its tool calls are estimated to have added
	// (the budget's spent; artifact.Tally.Spent); TotalNote says which.
	Total     string `json:"total"`
	TotalNote string `json:"total_note"`
	// Budget is the budget's text and state (BudgetText, BudgetState),
	// nil when the run has none.
	Budget *viewBudget `json:"budget"`
	// Tables are the report's breakdowns, cell by cell.
	Tables []viewTable `json:"tables"`
	// Axis labels the waterfall's time axis at 0, ¼, ½, ¾ and all of the
	// records' span (earliest start to latest end).
	Axis []string `json:"axis"`
}

type viewBudget struct {
	Text  string `json:"text"`
	State string `json:"state"`
}

// viewTable is one breakdown of the report as shown: its header and its
// rows' cells, in the report's order.
type viewTable struct {
	ID    string     `json:"id"`
	Title string     `json:"title"`
	Head  []string   `json:"head"`
	Rows  [][]string `json:"rows"`
}

// axisOf labels a time axis over span (see viewText.Axis); a span of
// nothing is one millisecond, as the page draws it.
func axisOf(span time.Duration) []string {
	if span <= 0 {
		span = time.Millisecond
	}
	out := make([]string, 5)
	for i := range out {
		out[i] = report.Duration(span * time.Duration(i) / 4)
	}
	return out
}

// textOf writes rep's quantities; ended is the latest span end, span the
// records' (earliest start to latest end).
func textOf(rep *report.TokenReport, costs *viewCosts, started, ended time.Time, span time.Duration) *viewText {
	n := report.Thousands
	tk := rep.Tokens
	v := &viewText{
		Duration: report.Duration(RunDuration(started, ended)),
		Records:  n(rep.Records.Total()), Errors: n(rep.Errors),
		TokensIn: n(tk.Input), TokensOut: n(tk.Output), CacheRead: n(tk.CacheRead), CacheWrite: n(tk.CacheCreation), Reasoning: n(tk.Reasoning),
		Total: n(tk.Total), TotalNote: "input + output",
	}
	if rep.FromTrailer {
		v.TotalNote += " (trailer)"
	}
	if tk.Total == 0 && rep.Records.Inference == 0 {
		var est int64
		if rep.Budget != nil && rep.Budget.Spent > 0 {
			est = rep.Budget.Spent
		} else {
			for _, t := range rep.ByTool {
				est += t.EstimatedTokens
			}
		}
		if est > 0 {
			v.Total, v.TotalNote = n(est), "estimated from tool calls (no model call reported usage)"
		}
	}
	if b := rep.Budget; b != nil && (b.BudgetTokens > 0 || b.CostBudget != nil) {
		v.Budget = &viewBudget{Text: BudgetText(b), State: BudgetState(b)}
	}
	v.Tables = tablesOf(rep, costs)
	v.Axis = axisOf(span)
	return v
}

// tablesOf is the report's breakdowns as the page and the outline show
// them.
func tablesOf(rep *report.TokenReport, costs *viewCosts) []viewTable {
	n := report.Thousands
	var out []viewTable
	if len(rep.ByModel) > 0 {
		t := viewTable{ID: "by-model", Title: "By model", Head: []string{"model", "provider", "calls", "input", "output", "cache read", "cache write", "reasoning", "total", "cost"}}
		for i, m := range rep.ByModel {
			t.Rows = append(t.Rows, []string{m.Model, cmp.Or(m.Provider, "–"), n(m.Count), n(m.Input), n(m.Output), n(m.CacheRead), n(m.CacheCreation), n(m.Reasoning), n(m.Total), costs.ByModel[i]})
		}
		out = append(out, t)
	}
	if len(rep.ByTool) > 0 {
		t := viewTable{ID: "by-tool", Title: "By tool", Head: []string{"tool", "calls", "errors", "result tokens (est.)", "time"}}
		for _, u := range rep.ByTool {
			t.Rows = append(t.Rows, []string{u.Tool, n(u.Calls), n(u.Errors), n(u.EstimatedTokens), DurationMS(u.DurationMS)})
		}
		out = append(out, t)
	}
	if len(rep.ByAgent) > 0 {
		t := viewTable{ID: "by-agent", Title: "By agent", Head: []string{"agent", "runs", "model calls", "input", "output", "total", "cost"}}
		for i, a := range rep.ByAgent {
			t.Rows = append(t.Rows, []string{a.Agent, n(a.Runs), n(a.Inferences), n(a.Input), n(a.Output), n(a.Total), costs.ByAgent[i]})
		}
		out = append(out, t)
	}
	if len(rep.Largest) > 0 {
		// Ranked by bytes (report.Build), so bytes come first.
		t := viewTable{ID: "largest", Title: "Largest responses", Head: []string{"record", "by", "bytes", "tokens"}}
		for _, x := range rep.Largest {
			t.Rows = append(t.Rows, []string{cmp.Or(x.Name, "(unnamed)"), cmp.Or(x.Model, x.Tool), n(x.Bytes), n(x.Tokens)})
		}
		out = append(out, t)
	}
	if len(rep.Evaluations) > 0 {
		t := viewTable{ID: "evaluations", Title: "Evaluations", Head: []string{"evaluation", "results", "mean score", "labels"}}
		for _, e := range rep.Evaluations {
			mean := "–"
			if e.MeanScore != nil {
				mean = strconv.FormatFloat(math.Round(*e.MeanScore*1000)/1000, 'f', -1, 64)
			}
			var labels []string
			for _, l := range slices.Sorted(maps.Keys(e.Labels)) {
				labels = append(labels, l+" "+n(e.Labels[l]))
			}
			t.Rows = append(t.Rows, []string{e.Name, n(e.Count), mean, cmp.Or(strings.Join(labels, ", "), "–")})
		}
		out = append(out, t)
	}
	return out
}

// usageFields are the usage a record's usage cells show, in order, with
// their labels.
var usageFields = []struct {
	field semconv.Field
	label string
}{
	{semconv.FieldInputTokens, "input"}, {semconv.FieldOutputTokens, "output"}, {semconv.FieldCacheReadTokens, "cache read"},
	{semconv.FieldCacheCreationTokens, "cache write"}, {semconv.FieldReasoningTokens, "reasoning"},
}

// recordText is what the page and the outline show of one record's
// quantities: its duration, and for a model call its usage and cost.
type recordText struct {
	Dur   string
	Usage [][2]string // label, count
	Cost  string      // a model call's: report.Dollars; empty for other records
	Est   string      // a tool call's estimated tokens, when any
}

// appendJSON writes t as members of a record's view-model object:
// ,"dur":…[,"usage_text":[[label,count],…]][,"cost_text":…][,"est_text":…].
func (t *recordText) appendJSON(b []byte) []byte {
	b = append(b, `,"dur":`...)
	b = artifact.AppendJSONString(b, t.Dur)
	if len(t.Usage) > 0 {
		b = append(b, `,"usage_text":[`...)
		for i, u := range t.Usage {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = artifact.AppendJSONString(b, u[0])
			b = append(b, ',')
			b = artifact.AppendJSONString(b, u[1])
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	if t.Cost != "" {
		b = append(b, `,"cost_text":`...)
		b = artifact.AppendJSONString(b, t.Cost)
	}
	if t.Est != "" {
		b = append(b, `,"est_text":`...)
		b = artifact.AppendJSONString(b, t.Est)
	}
	return b
}

// callCosts maps each model call to its cost as the report priced it
// (rep.Inferences), nil for a call with no known price.
func callCosts(rep *report.TokenReport) map[artifact.SpanKey]*float64 {
	cost := make(map[artifact.SpanKey]*float64, len(rep.Inferences))
	for _, c := range rep.Inferences {
		var usd *float64
		if c.Source != pricing.Unknown {
			v := c.USD
			usd = &v
		}
		cost[artifact.SpanKey{Trace: c.TraceID, Span: c.SpanID}] = usd
	}
	return cost
}

// textOfRecord writes one record's quantities from its reading rd: a
// model call's usage and cost ("unknown", never $0, when the report has
// no price for it), a tool call's estimated tokens.
func textOfRecord(rec *artifact.Record, rd *semconv.Reading, costs map[artifact.SpanKey]*float64) recordText {
	sp := rec.Span
	t := recordText{Dur: report.Duration(time.Duration(int64(sp.EndTimestamp()) - int64(sp.StartTimestamp())))}
	if usd, ok := costs[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}]; ok {
		t.Cost = report.Dollars(usd) // "unknown", never $0, for a call with no price
	}
	for _, f := range usageFields {
		if rd.Has(f.field) {
			t.Usage = append(t.Usage, [2]string{f.label, report.Thousands(rd.Int(f.field))})
		}
	}
	if rd.Kind == semconv.Call {
		if e := artifact.CallEstimate(rd, sp.Attributes()); e > 0 {
			t.Est = report.Thousands(e)
		}
	}
	return t
}
