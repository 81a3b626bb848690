package artifact

import (
	"math"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// CostBudget is a cost budget's state, as the trailer's budget records it
// beside the token budget's (docs/format.md §10).
//
// SpentUSD is the sum of the known costs of the run's model calls, leaves
// only (a wrapper's cost repeats its children's): a cost a span reports
// itself, else its usage priced with the genai-prices data. A model call
// whose cost is unknown (a model the data does not price, a call that
// reported no usage) adds nothing and is counted in UnpricedCalls: the
// dollars are then a lower bound, never a $0 passed off as a price.
type CostBudget struct {
	BudgetUSD    float64 `json:"budget_usd"`
	SpentUSD     float64 `json:"spent_usd"`
	RemainingUSD float64 `json:"remaining_usd"`
	// OverBudgetUSD: budget_usd > 0 and spent_usd ≥ budget_usd. It is a
	// flag of its own, not folded into OverBudget, so that a reader
	// written before cost budgets still finds OverBudget follows from the
	// tokens.
	OverBudgetUSD bool `json:"over_budget_usd"`
	// NearBudgetUSD: not over, and spent_usd ≥ warn_threshold × budget_usd.
	NearBudgetUSD bool `json:"near_budget_usd"`
	// UnpricedCalls counts the model calls SpentUSD leaves out.
	UnpricedCalls int64 `json:"unpriced_calls"`
}

// CostStatus returns the cost budget's state after spent (nil when b has
// no cost budget). The flags are judged on the dollars as written,
// spent.USD(), so a reader recomputes them from the trailer exactly.
func (b Budget) CostStatus(spent pricing.Total) *CostBudget {
	if !(b.USD > 0) {
		return nil
	}
	return b.CostStatusUSD(spent.USD(), spent.Unknown)
}

// CostStatusUSD is the cost budget's state after spentUSD dollars, with
// unpriced calls left out of them: what a checker recomputes from a
// trailer's spent_usd.
func (b Budget) CostStatusUSD(spentUSD float64, unpriced int64) *CostBudget {
	c := &CostBudget{
		BudgetUSD:     b.USD,
		SpentUSD:      spentUSD,
		RemainingUSD:  max(b.USD-spentUSD, 0),
		OverBudgetUSD: b.USD > 0 && spentUSD >= b.USD,
		UnpricedCalls: unpriced,
	}
	c.NearBudgetUSD = !c.OverBudgetUSD && b.USD > 0 && spentUSD >= b.Threshold()*b.USD
	return c
}

// ValidUSD reports whether usd can be a cost budget: a finite number of
// dollars, 0 (none) or more.
func ValidUSD(usd float64) bool { return usd >= 0 && !math.IsInf(usd, 0) }

// addCost counts the cost of a model call that counts (a leaf) for u,
// what it adds under the usage rule, and notes it with the call in t.nest.
func (t *Tally) addCost(sp ptrace.Span, rd *semconv.Reading, u semconv.Usage) {
	c := t.pricer.SpanCost(sp, rd, u)
	t.cost.Add(c)
	t.nest.Note(semconv.Note{Value: c.Nanos(), Tag: uint8(c.Source)})
}

// excessTag marks the note of a span that is no model call but adds
// usage beyond its children's (an agent holding more than its calls
// report): its dollars are added without counting a priced call.
const excessTag = 0xff

// addExcessCost prices what a span that is no leaf model call adds beyond
// its children, at its own model: known dollars only, since a span without
// a model (an agent) has no price and is no call to count as unpriced.
func (t *Tally) addExcessCost(sp ptrace.Span, rd *semconv.Reading, u semconv.Usage) {
	m := rd.Model()
	if m == "" {
		return
	}
	c := t.pricer.UsageCost(rd.Str(semconv.FieldProvider), m, sp.StartTimestamp().AsTime(), u)
	if c.Source == pricing.Unknown {
		return
	}
	n := c.Nanos()
	t.cost.Nanos += n
	t.nest.Note(semconv.Note{Value: n, Tag: excessTag})
}

// AddCost adds the cost of model calls seen outside any record (spans
// dropped before a store wrote them, priced as they dropped), as AddUsage
// adds their usage: spent_usd counts every call, written or not, and an
// unpriced one stays in unpriced_calls.
func (t *Tally) AddCost(c pricing.Total) { t.cost.Merge(c) }

// Cost returns the summed cost of the leaf model calls counted, for live
// totals; the trailer's spent_usd is its USD.
func (t *Tally) Cost() pricing.Total { return t.cost }

// cost returns b's cost budget, made when a trailer's first cost member
// is read.
func (b *BudgetStatus) cost() *CostBudget {
	if b.CostBudget == nil {
		b.CostBudget = new(CostBudget)
	}
	return b.CostBudget
}

// JudgedBudget returns the budget a run was judged against: its trailer's
// (sum's budget_tokens, budget_usd and warn_threshold) when the trailer
// has a budget, else header (the header's budget; nil for none). The
// trailer's is the later word: a local root span's budget that arrives
// after the header was written (a writer that syncs each turn writes
// the header before the root ends) is in the trailer alone
// (docs/format.md §3), and a reader that took the header's would show
// such a run without its budget.
func JudgedBudget(header *Budget, sum *Summary) *Budget {
	if sum == nil || sum.Budget == nil {
		return header
	}
	b := &Budget{Tokens: sum.Budget.BudgetTokens, WarnThreshold: sum.Budget.WarnThreshold}
	if c := sum.Budget.CostBudget; c != nil {
		b.USD = c.BudgetUSD
	}
	return b
}
