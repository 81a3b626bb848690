package bridge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter/sdkspan"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// budgets tracks the live token budget of every trace or conversation. It
// is read and written from the agent's goroutines, so it locks, but never
// for longer than a map access, and never allocates for a trace it knows.
type budgets struct {
	budget         artifact.Budget
	nearAt         int64 // spent at which the budget is near: warn threshold × tokens
	scope          Scope
	onNear, onOver func(BudgetEvent)

	// The cost budget (WithBudgetUSD), counted in nano-dollars so that a
	// state adds atomically; zero when there is none.
	usdBudget        float64
	nanoNear, nanoAt int64
	prices           *pricing.Table
	unpriced         sync.Map // model names reported as unpriced, once each

	mu      sync.RWMutex
	byTrace map[trace.TraceID]*budgetState // per trace; or the conversation a trace is known to be in
	byConv  map[string]*budgetState

	// The usage rule, as the artifact's tally applies it (docs/format.md
	// §7.1, semconv.Nesting): a span adds max(0, own − children) per
	// token class, so usage reported at several levels counts once, and a
	// model call with a model call below it wraps rather than makes one.
	// Spans end here in the order the SDK ends them, which is the order
	// Nesting needs; the nano-dollars each span was counted for are kept
	// with it (Nesting.Note), so a parent found to add less when a late
	// child ends gives back its dollars with its tokens.
	nestMu sync.Mutex
	nest   semconv.Nesting
}

type budgetState struct {
	trace trace.TraceID // the trace it counts, or
	conv  string        // the conversation it counts
	// What the budget counts is artifact.Tally.Spent's rule, so the
	// guard and the artifact's trailer agree: the model usage (spent,
	// under the usage rule) once any span reported usage (inferred),
	// else the tool calls' estimated tokens (estimate: a tool-dispatch
	// trace). See used.
	spent    atomic.Int64
	estimate atomic.Int64
	inferred atomic.Bool
	near     atomic.Bool
	over     atomic.Bool
	// The cost budget's: nano-dollars spent, and its crossings.
	nano     atomic.Int64
	costNear atomic.Bool
	costOver atomic.Bool
}

// used is what the budget has spent, by artifact.Tally.Spent's rule.
func (st *budgetState) used() int64 {
	if st.inferred.Load() {
		return st.spent.Load()
	}
	return st.estimate.Load()
}

// key names what the state counts, for a BudgetEvent (made only then: it
// allocates).
func (st *budgetState) key() string {
	if st.conv != "" {
		return st.conv
	}
	return st.trace.String()
}

func newBudgets(c *config) *budgets {
	if c.budget <= 0 && c.budgetUSD <= 0 {
		return nil
	}
	bud := artifact.Budget{Tokens: c.budget, WarnThreshold: c.warnThreshold}
	var prices *pricing.Table
	if c.budgetUSD > 0 {
		prices, _ = pricing.Default() // newConfig checked that it loads
	}
	return &budgets{
		usdBudget: c.budgetUSD,
		nanoNear:  int64(math.Ceil(bud.Threshold() * c.budgetUSD * 1e9)),
		nanoAt:    int64(math.Ceil(c.budgetUSD * 1e9)),
		prices:    prices,
		budget:    bud,
		nearAt:    int64(math.Ceil(bud.Threshold() * float64(bud.Tokens))),
		scope:     c.scope,
		onNear:    c.onNear,
		onOver:    c.onOver,
		byTrace:   make(map[trace.TraceID]*budgetState),
		byConv:    make(map[string]*budgetState),
	}
}

// lookup returns the state of a trace, or nil.
func (b *budgets) lookup(tid trace.TraceID) *budgetState {
	b.mu.RLock()
	st := b.byTrace[tid]
	b.mu.RUnlock()
	return st
}

// state returns the state a span of trace tid in conversation conv counts
// against, making it when needed.
func (b *budgets) state(tid trace.TraceID, conv string) *budgetState {
	st := b.lookup(tid)
	if st != nil && (b.scope == PerTrace || conv == "" || st.conv == conv) {
		return st
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.scope == PerConversation && conv != "" {
		cs := b.byConv[conv]
		if cs == nil {
			cs = &budgetState{conv: conv}
			if st != nil && st.conv == "" {
				// Spent before the trace named its conversation.
				cs.spent.Store(st.spent.Load())
				cs.estimate.Store(st.estimate.Load())
				cs.inferred.Store(st.inferred.Load())
			}
			b.byConv[conv] = cs
		}
		b.byTrace[tid] = cs
		return cs
	}
	if st = b.byTrace[tid]; st == nil {
		st = &budgetState{trace: tid}
		b.byTrace[tid] = st
	}
	return st
}

// spent is what a span that ended spent, as the budget read it: a
// dropped span's trailer counts it without reading the span again.
type spent struct {
	usage semconv.Usage // a model call's (zero for other spans)
	// cost is a model call's cost, known or not, when priced is set: with
	// a cost budget, for a model call that counts (a leaf).
	cost   pricing.Cost
	priced bool
}

// spend counts a span that ended: what it adds under the usage rule, its
// crossings. It returns that usage and, with a cost budget, a model
// call's cost, so a span dropped after this is not read twice.
func (b *budgets) spend(s sdktrace.ReadOnlySpan) spent {
	f := b.read(s)
	var c pricing.Cost
	if b.usdBudget > 0 && f.Kind == semconv.Inference {
		c = b.cost(s, f.Usage) // its own usage; the rule below scales it
	}
	own := f.Usage.Total()
	counts, undo, undoNano, nano := b.leaf(s, &f, c.Nanos())
	var est int64
	if f.Kind == semconv.Call {
		est = callEstimate(s)
	}
	// Any span that names a conversation ties its trace to that
	// conversation's budget.
	if !counts.IsZero() || est > 0 || f.Kind == semconv.Inference || undo > 0 || undoNano > 0 || b.scope == PerConversation && f.Conversation != "" {
		st := b.state(s.SpanContext().TraceID(), f.Conversation)
		if undo > 0 {
			st.spent.Add(-undo) // a parent counted before this, its child, ended
		}
		if undoNano > 0 {
			st.nano.Add(-undoNano)
		}
		b.count(st, counts.Total(), est)
		if b.usdBudget > 0 {
			b.countCost(st, nano)
		}
	}
	b.forgetIfRoot(s)
	priced := b.usdBudget > 0 && f.Kind == semconv.Inference
	if priced && counts.Total() != own {
		c.USD = float64(nano) / 1e9 // a leaf that adds less than it reports
	}
	return spent{usage: counts, cost: c, priced: priced}
}

// read reads what the budget needs of a span: its kind and usage, and in
// a per-conversation scope its conversation. ReadUsageKV stops reading a
// span that is no model call at its operation name; but the usage rule
// counts usage on any span, as the trailer's tally does (an agent holding
// usage beyond its model calls', a tool-dispatch span reporting the tokens
// it cost), so those are read whole.
func (b *budgets) read(s sdktrace.ReadOnlySpan) semconv.Facts {
	if b.scope == PerConversation {
		return semconv.ReadKV(s.Name(), s.Attributes())
	}
	f := semconv.ReadUsageKV(s.Name(), s.Attributes())
	if f.Kind != semconv.Inference {
		f = semconv.ReadKV(s.Name(), s.Attributes())
	}
	return f
}

// leaf applies the usage rule to a span that ended, whose own cost is
// nano: it returns the usage the span adds, the tokens and nano-dollars
// an earlier parent gives back, and the nano-dollars the span adds (its
// cost scaled to what it adds). A model call found to wrap another
// becomes a plain span (f.Kind is changed so). Spans that are no model
// call and report no usage pass without the lock's cost beyond a check
// while no usage has been seen.
func (b *budgets) leaf(s sdktrace.ReadOnlySpan, f *semconv.Facts, nano int64) (counts semconv.Usage, tokens, undoNano, addNano int64) {
	b.nestMu.Lock()
	defer b.nestMu.Unlock()
	if f.Kind != semconv.Inference && f.Usage.IsZero() && b.nest.Quiet() {
		return semconv.Usage{}, 0, 0, 0
	}
	sc := s.SpanContext()
	e := b.nest.End(pcommon.TraceID(sc.TraceID()), pcommon.SpanID(sc.SpanID()), pcommon.SpanID(s.Parent().SpanID()), f.Kind, f.Usage)
	f.Kind = e.Kind
	switch own := f.Usage.Total(); {
	case nano <= 0 || e.Counts.IsZero():
	case e.Counts.Total() >= own:
		addNano = nano
	default:
		addNano = nano * e.Counts.Total() / own
	}
	if addNano > 0 {
		b.nest.Note(semconv.Note{Value: addNano})
	}
	if e.Undo != nil {
		tokens, undoNano = e.Undo.Total(), e.UndoNote.Value
	}
	return e.Counts, tokens, undoNano, addNano
}

// count adds n tokens of model usage and est estimated tokens of a tool
// call to st, and calls back on the crossings of what it has then used.
func (b *budgets) count(st *budgetState, n, est int64) {
	if n <= 0 && est <= 0 {
		return
	}
	if n > 0 {
		st.spent.Add(n)
		st.inferred.Store(true)
	}
	if est > 0 {
		st.estimate.Add(est)
	}
	if b.budget.Tokens <= 0 {
		return // a cost budget alone: tokens are counted, never crossed
	}
	spent := st.used()
	if spent >= b.nearAt && !st.near.Load() && !st.near.Swap(true) && b.onNear != nil {
		callBack("near", b.onNear, BudgetEvent{Key: st.key(), Status: b.budget.Status(spent)})
	}
	if spent >= b.budget.Tokens && !st.over.Load() && !st.over.Swap(true) && b.onOver != nil {
		callBack("over", b.onOver, BudgetEvent{Key: st.key(), Status: b.budget.Status(spent)})
	}
}

// ErrCallbackPanicked is reported (to otel.Handle) when a budget callback
// panics: the panic is recovered, never thrown into the agent's
// span.End(), and the span is still counted and written.
var ErrCallbackPanicked = errors.New("agenttrace: budget callback panicked")

// callBack calls f with ev, recovering a panic in it.
func callBack(which string, f func(BudgetEvent), ev BudgetEvent) {
	defer func() {
		if r := recover(); r != nil {
			otel.Handle(fmt.Errorf("%w: %s callback for %s: %v", ErrCallbackPanicked, which, ev.Key, r))
		}
	}()
	f(ev)
}

// forgetIfRoot drops a trace's entry when its local root ends, so a
// long-running agent does not keep one per trace forever: its budget, or
// its link to its conversation's (which stays, for the conversation's
// next traces).
func (b *budgets) forgetIfRoot(s sdktrace.ReadOnlySpan) {
	if p := s.Parent(); p.IsValid() && !p.IsRemote() {
		return
	}
	b.mu.Lock()
	delete(b.byTrace, s.SpanContext().TraceID())
	b.mu.Unlock()
}

// status returns the budget of the trace of the span in ctx. With a cost
// budget, OverBudget and NearBudget are also set by the dollars, so that
// Guard stops at whichever budget runs out first.
func (b *budgets) status(ctx context.Context) (artifact.BudgetStatus, bool) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return artifact.BudgetStatus{}, false
	}
	var spent int64
	st := b.lookup(sc.TraceID())
	if st != nil {
		spent = st.used()
	}
	s := b.budget.Status(spent)
	if st != nil && b.usdBudget > 0 {
		cs := b.costStatus(st.nano.Load())
		s.OverBudget = s.OverBudget || cs.OverBudget
		s.NearBudget = !s.OverBudget && (s.NearBudget || cs.NearBudget)
	}
	return s, true
}

// over reports whether the trace of a starting span has used up its budget.
func (b *budgets) over(tid trace.TraceID) bool {
	st := b.lookup(tid)
	return st != nil && (st.over.Load() || st.costOver.Load())
}

// CostStatus is a cost budget's state (see WithBudgetUSD).
type CostStatus struct {
	BudgetUSD    float64
	SpentUSD     float64
	RemainingUSD float64
	OverBudget   bool
	NearBudget   bool
	// WarnThreshold is the fraction of BudgetUSD at which NearBudget is
	// set (WithWarnThreshold).
	WarnThreshold float64
}

func (b *budgets) costStatus(nano int64) CostStatus {
	return CostStatus{
		BudgetUSD: b.usdBudget, SpentUSD: float64(nano) / 1e9, RemainingUSD: max(float64(b.nanoAt-nano), 0) / 1e9,
		OverBudget: nano >= b.nanoAt, NearBudget: nano < b.nanoAt && nano >= b.nanoNear,
		WarnThreshold: b.budget.Threshold(),
	}
}

// CostStatus returns the cost budget of the trace (or conversation) of the
// span in ctx, and false when there is no cost budget or no span in ctx.
func (p *Processor) CostStatus(ctx context.Context) (CostStatus, bool) {
	b := p.budgets
	sc := trace.SpanContextFromContext(ctx)
	if b == nil || b.usdBudget <= 0 || !sc.IsValid() {
		return CostStatus{}, false
	}
	var nano int64
	if st := b.lookup(sc.TraceID()); st != nil {
		nano = st.nano.Load()
	}
	return b.costStatus(nano), true
}

// ErrUnpricedModel is reported (to otel.Handle), once per model, when a
// cost budget meets a model call that reports no cost and whose model the
// price data does not know: it adds nothing to the dollars spent, which
// then understate the run.
var ErrUnpricedModel = errors.New("agenttrace: no price for model; the cost budget does not count its calls")

// cost is the nano-dollars of a model call that ended: the cost its span
// reports (gen_ai.usage.cost, llm.cost.total, operation.cost), else its
// usage priced with the genai-prices data for its provider and model at
// its start. The live budget reads the canonical GenAI keys (and
// gen_ai.system); usage is u (input and output, as the budget read them)
// with the cache and reasoning counts of the span.
func (b *budgets) cost(s sdktrace.ReadOnlySpan, u semconv.Usage) pricing.Cost {
	var provider, model, request string
	for _, kv := range s.Attributes() {
		switch string(kv.Key) {
		case semconv.ProviderName:
			provider = kv.Value.AsString()
		case semconv.System:
			if provider == "" {
				provider = kv.Value.AsString()
			}
		case semconv.ResponseModel:
			model = kv.Value.AsString()
		case semconv.RequestModel:
			request = kv.Value.AsString()
		case semconv.UsageCacheReadInput:
			u.CacheRead = kv.Value.AsInt64()
		case semconv.UsageCacheCreationInput, semconv.UsageCacheWriteInputGenAI:
			u.CacheCreation = kv.Value.AsInt64()
		case semconv.UsageReasoningOutput:
			u.Reasoning = kv.Value.AsInt64()
		case semconv.UsageCost, semconv.OICostTotal, semconv.OperationCost:
			if v := kv.Value.AsFloat64(); v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				return pricing.Cost{USD: v, Source: pricing.FromSpan}
			}
		}
	}
	if model == "" {
		model = request
	}
	if u.IsZero() {
		return pricing.Cost{} // no usage reported: unpriced, as a tally counts it
	}
	c := b.prices.UsageCost(provider, model, s.StartTime(), u)
	if !c.Known() {
		if _, seen := b.unpriced.LoadOrStore(model, true); !seen {
			otel.Handle(fmt.Errorf("%w: %q (provider %q)", ErrUnpricedModel, model, provider))
		}
	}
	return c
}

// countCost adds nano nano-dollars to st and calls back on the cost
// budget's crossings, as count does for tokens.
func (b *budgets) countCost(st *budgetState, nano int64) {
	if nano <= 0 {
		return
	}
	spent := st.nano.Add(nano)
	ev := func() BudgetEvent {
		cs := b.costStatus(spent)
		return BudgetEvent{Key: st.key(), Status: b.budget.Status(st.used()), Cost: &cs}
	}
	if spent >= b.nanoNear && !st.costNear.Load() && !st.costNear.Swap(true) && b.onNear != nil {
		callBack("near", b.onNear, ev())
	}
	if spent >= b.nanoAt && !st.costOver.Load() && !st.costOver.Swap(true) && b.onOver != nil {
		callBack("over", b.onOver, ev())
	}
}

// callEstimate is a tool call's estimated tokens as the artifact's tally
// counts them (artifact.CallEstimate: the estimate the span carries,
// agenttrace.estimated_tokens, else its result's size / 4), worked out by
// the same code on the span's attributes copied into a map: a tool call
// is slow next to the copy, and one rule needs one implementation. The
// common shapes take a path that allocates nothing (OnEnd never does): an
// estimate the span carries, no result, or one result held as a string
// (its length, as artifact.ContentSize counts a string).
func callEstimate(s sdktrace.ReadOnlySpan) int64 {
	attrs := s.Attributes()
	results, str := 0, -1
	for i := range attrs {
		kv := &attrs[i]
		if kv.Key == semconv.EstimatedTokens {
			if kv.Value.Type() == attribute.INT64 {
				return kv.Value.AsInt64()
			}
			results = 2 // not an int: as the tally reads it, below
			continue
		}
		if _, ok := semconv.FieldResult.SourceType(string(kv.Key)); ok {
			results++
			if kv.Value.Type() == attribute.STRING {
				str = i
			}
		}
	}
	switch {
	case results == 0:
		return 0
	case results == 1 && str >= 0:
		return int64(len(attrs[str].Value.AsString())+3) / 4
	}
	m := pcommon.NewMap()
	sdkspan.PutAttributes(m, s.Attributes())
	rd := readings.Get().(*semconv.Reading)
	defer readings.Put(rd)
	semconv.Read(rd, s.Name(), m, s.Status().Code == codes.Error)
	if rd.Kind != semconv.Call {
		return 0
	}
	return artifact.CallEstimate(rd, m)
}

// readings keeps callEstimate's readings, some kilobytes each.
var readings = sync.Pool{New: func() any { return new(semconv.Reading) }}
