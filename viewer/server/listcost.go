package server

import (
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// runCost prices a run's model calls as the list reads its records, by
// the rules the run's page and `agenttrace tokens` follow (report.Tokens):
// a call costs what pricing.Table.SpanCost says (the cost its span
// reports wins; else its usage priced with the vendored genai-prices
// data; unknown, never $0, for a model the data does not price or a call
// that reported no usage), and a wrapper (a model call with a model call
// below it, whose usage repeats its children's) costs nothing of its own.
// Wrappers are told as the list's converter.Tally tells them for tokens:
// with a semconv.Nesting fed every record in file order, so a run's cost
// and its tokens leave out the same spans.
type runCost struct {
	prices *pricing.Table
	nest   semconv.Nesting
	// calls are the costs of the model calls counted as leaves, in record
	// order (the order report.Tokens sums them in, so the sums are the
	// same to the last bit); leaf finds a call by its span, for a parent
	// that turns out to wrap a call that ended after it.
	calls []leafCost
	leaf  map[converter.SpanKey]int
}

type leafCost struct {
	cost    pricing.Cost
	wrapper bool // taken back: a child ended after it
}

// listPrices is the price data the list prices runs with: the vendored
// data, as report.Tokens uses it. Should it not load (it is tested to),
// costs are those the spans report, as in a report.
func listPrices() *pricing.Table {
	t, _ := pricing.Default()
	return t
}

// add counts one record, whose span sp the caller read into rd.
func (c *runCost) add(sp ptrace.Span, rd *semconv.Reading) {
	var u semconv.Usage
	if rd.Kind == semconv.Inference {
		u = rd.TokenUsage()
	}
	e := c.nest.End(sp.TraceID(), sp.SpanID(), sp.ParentSpanID(), rd.Kind, u)
	if e.Undo != nil {
		// The direct parent ended first and was counted as a call.
		if i, ok := c.leaf[converter.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}]; ok {
			c.calls[i].wrapper = true
		}
	}
	if e.Kind != semconv.Inference {
		return
	}
	var pc pricing.Cost
	if c.prices != nil {
		pc = c.prices.SpanCost(sp, rd, u)
	} else if usd, ok := pricing.ReportedCost(sp.Attributes(), rd); ok {
		pc = pricing.Cost{USD: usd, Source: pricing.FromSpan}
	}
	if c.leaf == nil {
		c.leaf = map[converter.SpanKey]int{}
	}
	c.leaf[converter.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = len(c.calls)
	c.calls = append(c.calls, leafCost{cost: pc})
}

// cost is the run's cost in a report's terms: CostUSD sums the known
// costs and is nil only when calls were made and none has a known cost;
// CostUnknown counts the calls without one (the sum is then a lower
// bound); CostFromSpans those whose span reported its own.
func (c *runCost) cost() report.Cost {
	var (
		usd            float64
		known, unknown int64
		out            report.Cost
	)
	for _, x := range c.calls {
		if x.wrapper {
			continue
		}
		switch x.cost.Source {
		case pricing.Unknown:
			unknown++
			continue
		case pricing.FromSpan:
			out.CostFromSpans++
		}
		known++
		usd += x.cost.USD
	}
	out.CostUnknown = unknown
	if known > 0 || unknown == 0 {
		out.CostUSD = &usd
	}
	return out
}
