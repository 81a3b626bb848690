package bridge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// budgets tracks the live token budget of every trace or conversation. It
// is read and written from the agent's goroutines, so it locks, but never
// for longer than a map access, and never allocates for a trace it knows.
type budgets struct {
	budget         converter.Budget
	nearAt         int64 // spent at which the budget is near: warn threshold × tokens
	scope          Scope
	onNear, onOver func(BudgetEvent)

	mu      sync.RWMutex
	byTrace map[trace.TraceID]*budgetState // per trace; or the conversation a trace is known to be in
	byConv  map[string]*budgetState
}

type budgetState struct {
	trace trace.TraceID // the trace it counts, or
	conv  string        // the conversation it counts
	spent atomic.Int64
	near  atomic.Bool
	over  atomic.Bool
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
	if c.budget <= 0 {
		return nil
	}
	bud := converter.Budget{Tokens: c.budget, WarnThreshold: c.warnThreshold}
	return &budgets{
		budget:  bud,
		nearAt:  int64(math.Ceil(bud.Threshold() * float64(bud.Tokens))),
		scope:   c.scope,
		onNear:  c.onNear,
		onOver:  c.onOver,
		byTrace: make(map[trace.TraceID]*budgetState),
		byConv:  make(map[string]*budgetState),
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

// spend counts a span that ended: its model usage, its crossings. It
// returns the usage of a model call (zero for other spans), so a span
// dropped after this is not read twice.
func (b *budgets) spend(s sdktrace.ReadOnlySpan) semconv.Usage {
	var f semconv.Facts
	if b.scope == PerConversation {
		f = semconv.ReadKV(s.Name(), s.Attributes())
	} else {
		f = semconv.ReadUsageKV(s.Name(), s.Attributes())
	}
	if f.Kind != semconv.Inference {
		f.Usage = semconv.Usage{} // only model calls spend
	}
	// Any span that names a conversation ties its trace to that
	// conversation's budget.
	if f.Kind == semconv.Inference || b.scope == PerConversation && f.Conversation != "" {
		b.count(b.state(s.SpanContext().TraceID(), f.Conversation), f.Usage.Total())
	}
	b.forgetIfRoot(s)
	return f.Usage
}

// count adds n spent tokens to st and calls back on the crossings.
func (b *budgets) count(st *budgetState, n int64) {
	if n <= 0 {
		return
	}
	spent := st.spent.Add(n)
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

// status returns the budget of the trace of the span in ctx.
func (b *budgets) status(ctx context.Context) (converter.BudgetStatus, bool) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return converter.BudgetStatus{}, false
	}
	var spent int64
	if st := b.lookup(sc.TraceID()); st != nil {
		spent = st.spent.Load()
	}
	return b.budget.Status(spent), true
}

// over reports whether the trace of a starting span has used up its budget.
func (b *budgets) over(tid trace.TraceID) bool {
	st := b.lookup(tid)
	return st != nil && st.over.Load()
}
