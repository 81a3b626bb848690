package pricing

import (
	"math"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// Total sums the costs of model calls: the one accumulator the token
// report's rows, the artifact's tally (its trailer's spent_usd) and the
// viewer share, so a run's dollars are added up one way. It counts in
// nano-dollars, so that a cost taken back (a model call that turned out
// to wrap another, see semconv.Nesting) leaves exactly what was there
// before, and sums do not depend on their order. Its zero value is empty.
type Total struct {
	// Nanos is the sum of the known costs, in nano-dollars (1e-9 $).
	Nanos int64
	// Known counts the calls with a cost; FromSpan those of them whose
	// span reported it; Unknown the calls with no known cost, which add
	// nothing to Nanos: with Unknown > 0, USD is a lower bound.
	Known, FromSpan, Unknown int64
}

// Nanos is usd in nano-dollars, rounded.
func Nanos(usd float64) int64 { return int64(math.Round(usd * 1e9)) }

// Add counts the cost of one model call.
func (t *Total) Add(c Cost) {
	switch c.Source {
	case Unknown:
		t.Unknown++
		return
	case FromSpan:
		t.FromSpan++
	}
	t.Known++
	t.Nanos += Nanos(c.USD)
}

// Merge adds the calls o counted: a total kept apart (the model calls
// dropped before a tally saw them) joins the tally's.
func (t *Total) Merge(o Total) {
	t.Nanos += o.Nanos
	t.Known += o.Known
	t.FromSpan += o.FromSpan
	t.Unknown += o.Unknown
}

// Sub takes back a cost Add counted.
func (t *Total) Sub(c Cost) { t.SubNanos(c.Nanos(), c.Source) }

// SubNanos takes back a cost Add counted, given as what Add counted of
// it: c.Nanos() from c.Source. A tally keeps only that of a model call
// that may yet turn out to wrap another.
func (t *Total) SubNanos(nanos int64, src Source) {
	switch src {
	case Unknown:
		t.Unknown--
		return
	case FromSpan:
		t.FromSpan--
	}
	t.Known--
	t.Nanos -= nanos
}

// Nanos is what [Total.Add] adds for c to Total.Nanos: its dollars in
// nano-dollars, rounded; 0 when its cost is unknown.
func (c Cost) Nanos() int64 {
	if c.Source == Unknown {
		return 0
	}
	return Nanos(c.USD)
}

// USD is the sum of the known costs in dollars.
func (t Total) USD() float64 { return float64(t.Nanos) / 1e9 }

// Calls is the number of model calls counted, priced or not.
func (t Total) Calls() int64 { return t.Known + t.Unknown }

// A Pricer prices model calls one after another for one goroutine (a
// tally, a report), remembering the model it last looked up: the calls of
// a run mostly name the same model, so most calls skip even the table's
// cache (a lock and two string hashes). Its zero value prices with the
// vendored data ([Default]); a Pricer is not safe for concurrent use.
type Pricer struct {
	// Table is the price data; nil means [Default], loaded on first use.
	Table *Table

	loaded          bool
	looked          bool // provider, model and m are set
	provider, model string
	m               *Model
}

// SpanCost is [Table.SpanCost] with the last lookup remembered.
func (p *Pricer) SpanCost(sp ptrace.Span, rd *semconv.Reading, u semconv.Usage) Cost {
	if usd, ok := ReportedCost(sp.Attributes(), rd); ok {
		return Cost{USD: usd, Source: FromSpan}
	}
	if u.IsZero() {
		return Cost{}
	}
	return p.UsageCost(rd.Str(semconv.FieldProvider), rd.Model(), sp.StartTimestamp().AsTime(), u)
}

// UsageCost is [Table.UsageCost] with the last lookup remembered.
func (p *Pricer) UsageCost(provider, model string, at time.Time, u semconv.Usage) Cost {
	if !p.loaded {
		p.loaded = true
		if p.Table == nil {
			// The vendored data is tested to load; should it not, costs
			// are unknown rather than anything failing.
			p.Table, _ = Default()
		}
	}
	if p.Table == nil {
		return Cost{}
	}
	if provider != p.provider || model != p.model || !p.looked {
		// Only a Pricer's first lookup updates the table's entry: that
		// is the one a fresh Pricer (a tally per artifact) finds there.
		p.m = p.Table.spanModel(provider, model, !p.looked)
		p.provider, p.model, p.looked = provider, model, true
	}
	if p.m == nil {
		return Cost{}
	}
	if at.IsZero() || at.Unix() <= 0 {
		at = time.Now()
	}
	return Cost{USD: p.m.At(at).Cost(u), Source: FromPrices, Model: p.m}
}
