package pricing

import (
	"encoding/json"
	"math"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// Source says where a cost comes from.
type Source uint8

const (
	// Unknown: neither the span nor the data gives the model call a
	// price. Its cost is unknown, not zero.
	Unknown Source = iota
	// FromSpan: the span reports its own cost, which wins over the data.
	FromSpan
	// FromPrices: computed from the span's usage with the data's prices.
	FromPrices
)

// String names the source as reports write it.
func (s Source) String() string {
	switch s {
	case FromSpan:
		return "span"
	case FromPrices:
		return "prices"
	}
	return "unknown"
}

// Cost is the cost of one model call.
type Cost struct {
	// USD is the cost in dollars; meaningless when Source is Unknown.
	USD    float64
	Source Source
	// Model is the data's model it was priced as (nil unless FromPrices).
	Model *Model
}

// Known reports whether the call has a cost.
func (c Cost) Known() bool { return c.Source != Unknown }

// SpanCost is the cost of a model call: the cost the span reports itself,
// else its usage u (as semconv.Reading.TokenUsage reads it) priced for its
// provider and model at its start time. A call that reports no usage at
// all (a stream whose SDK never saw the totals, a failed call) has an
// unknown cost, not $0.
func (t *Table) SpanCost(sp ptrace.Span, rd *semconv.Reading, u semconv.Usage) Cost {
	if usd, ok := ReportedCost(sp.Attributes(), rd); ok {
		return Cost{USD: usd, Source: FromSpan}
	}
	if u.IsZero() {
		return Cost{}
	}
	return t.UsageCost(rd.Str(semconv.FieldProvider), rd.Model(), sp.StartTimestamp().AsTime(), u)
}

// UsageCost prices usage u of a model (named as a span names it) at time
// at; a zero at means now.
func (t *Table) UsageCost(provider, model string, at time.Time, u semconv.Usage) Cost {
	if t == nil {
		return Cost{}
	}
	m := t.spanModel(provider, model, true)
	if m == nil {
		return Cost{}
	}
	if at.IsZero() || at.Unix() <= 0 {
		at = time.Now()
	}
	return Cost{USD: m.At(at).Cost(u), Source: FromPrices, Model: m}
}

// ReportedCost is the cost in dollars a span reports itself: the record's
// cost field (gen_ai.usage.cost, llm.cost.total, operation.cost; see
// semconv.FieldCost), else the total of Langfuse's cost_details. A
// negative, infinite or NaN value is no cost.
func ReportedCost(attrs pcommon.Map, rd *semconv.Reading) (float64, bool) {
	if rd.Has(semconv.FieldCost) {
		if v := rd.Value(semconv.FieldCost); v.Type() == pcommon.ValueTypeDouble {
			return sane(v.Double())
		}
	}
	if v, ok := rd.Lookup(attrs, semconv.LFCostDetails); ok && v.Type() == pcommon.ValueTypeStr {
		var d struct {
			Total *float64 `json:"total"`
		}
		if json.Unmarshal([]byte(v.Str()), &d) == nil && d.Total != nil {
			return sane(*d.Total)
		}
	}
	return 0, false
}

func sane(v float64) (float64, bool) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
