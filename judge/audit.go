package judge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// AuditOption configures [Audit].
type AuditOption interface{ applyAudit(*auditConfig) }

type auditConfig struct {
	redacted bool
	trailer  *artifact.Summary
}

type auditOptionFunc func(*auditConfig)

func (f auditOptionFunc) applyAudit(c *auditConfig) { f(c) }

// WithRedacted tells Audit that the records' content was redacted (an
// artifact header's redacted flag), so arguments are not compared. Audit
// also sees redaction on its own on a record whose resource carries
// agenttrace.redacted = true.
func WithRedacted(redacted bool) AuditOption {
	return auditOptionFunc(func(c *auditConfig) { c.redacted = c.redacted || redacted })
}

// WithTrailer gives Audit the artifact's summary trailer (nil for none). A
// trailer whose budget is over tells that the budget ended the run, so the
// tool calls its last model call requested and nobody ran are the budget's
// doing, not missing.
func WithTrailer(sum *artifact.Summary) AuditOption {
	return auditOptionFunc(func(c *auditConfig) { c.trailer = sum })
}

// BudgetExceededCode is the error.type of a span the token budget stopped
// (bridge.ErrBudgetExceeded, as agenttrace's processor and demo record it).
const BudgetExceededCode = "budget_exceeded"

// Audit checks the fidelity of a trace: that tool calls the models
// requested were made, with the requested arguments, and only those; that
// no retry hides in it; that agents report the tokens their model calls
// spent; that generations say why they stopped; and that every span's
// parent is there. recs may hold several traces; they are only read.
// Findings come sorted by trace, first span id and category.
func Audit(recs []artifact.Record, opts ...AuditOption) []Finding {
	var cfg auditConfig
	for _, o := range opts {
		o.applyAudit(&cfg)
	}
	a := newAuditor(recs, cfg)
	a.toolCalls()
	a.hiddenRetries()
	a.tokenUnderreports()
	a.finishReasons()
	a.orphans()
	a.doubleInstrumentation()
	a.silentFailures()
	slices.SortFunc(a.findings, func(x, y Finding) int {
		return cmp.Or(strings.Compare(x.TraceID, y.TraceID), strings.Compare(first(x.SpanIDs), first(y.SpanIDs)),
			strings.Compare(string(x.Category), string(y.Category)), strings.Compare(x.Message, y.Message))
	})
	if a.findings == nil {
		return []Finding{}
	}
	return a.findings
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// request is one tool call a model asked for.
type request struct {
	id, name string
	args     any
	hasArgs  bool
}

// node is what the checks need of one record, read once.
type node struct {
	kind         semconv.Kind
	trace        pcommon.TraceID
	span, parent pcommon.SpanID
	start, end   uint64
	failed       bool
	name         string
	spanKind     ptrace.SpanKind
	flags        uint32
	redacted     bool

	// calls
	tool, toolCallID string
	args             any
	hasArgs          bool

	// inferences (and agents, for usage)
	requests  []request
	recorded  bool // the output was recorded, in some form
	input     string
	hasInput  bool
	usage     semconv.Usage
	hasUsage  bool
	finish    bool // a finish reason was recorded, in some form
	generates bool // a generation, which has a finish reason (not embeddings or retrieval)
	bare      bool // no attribute beyond the ones naming the call (bareKeys)
	agentName string
	model     string
	scope     string // the instrumentation scope that recorded it
	rootInput string // a root inference's input messages, normalized (unnestedDoubles)

	budgetStop bool // the token budget stopped this span
}

// key finds the node in an index; parentKey, its parent.
func (n *node) key() artifact.SpanKey {
	return artifact.SpanKey{Trace: n.trace, Span: n.span}
}

func (n *node) parentKey() artifact.SpanKey {
	return artifact.SpanKey{Trace: n.trace, Span: n.parent}
}

type auditor struct {
	nodes    []node
	wrapper  []bool // inferences with an inference below them (converter.Wrappers)
	index    map[artifact.SpanKey]int
	findings []Finding
	overRun  bool // the trailer says the budget was used up
}

func newAuditor(recs []artifact.Record, cfg auditConfig) *auditor {
	a := &auditor{nodes: make([]node, len(recs)), index: make(map[artifact.SpanKey]int, len(recs)),
		overRun: cfg.trailer != nil && cfg.trailer.Budget != nil && cfg.trailer.Budget.OverBudget}
	a.wrapper = converter.Wrappers(recs)
	var rd semconv.Reading
	for i := range recs {
		rec := &recs[i]
		rec.Read(&rd)
		sp := rec.Span
		n := &a.nodes[i]
		*n = node{
			kind: rd.Kind, trace: sp.TraceID(), span: sp.SpanID(), parent: sp.ParentSpanID(),
			start: uint64(sp.StartTimestamp()), end: uint64(sp.EndTimestamp()),
			failed: artifact.Failed(sp, &rd), name: sp.Name(),
			spanKind: sp.Kind(), flags: sp.Flags(), redacted: cfg.redacted || isRedacted(rec),
		}
		n.budgetStop = n.failed && rd.Str(semconv.FieldCode) == BudgetExceededCode
		if v, ok := sp.Attributes().Get(semconv.BudgetExceeded); ok && v.Type() == pcommon.ValueTypeBool && v.Bool() {
			n.budgetStop = true
		}
		k := n.key()
		if _, dup := a.index[k]; !dup {
			a.index[k] = i
		}
		switch rd.Kind {
		case semconv.Call:
			n.tool, n.toolCallID = rd.ToolName(sp.Name()), rd.Str(semconv.FieldToolCallID)
			if rd.Has(semconv.FieldArgs) {
				n.args, n.hasArgs = jsonOf(rd.Value(semconv.FieldArgs)), true
			}
		case semconv.Inference:
			n.requests, n.recorded, n.finish = requestsOf(&rd, sp)
			if rd.Has(semconv.FieldInput) {
				n.input, n.hasInput = canonical(jsonOf(rd.Value(semconv.FieldInput))), true
			}
			n.usage = rd.TokenUsage()
			n.model = rd.Model()
			n.scope = rec.Scope.Name()
			if sp.ParentSpanID().IsEmpty() {
				n.rootInput = normalizedInput(sp)
			}
			n.generates = generates(sp)
			n.bare = bare(sp.Attributes())
		case semconv.Agent:
			n.usage = rd.Usage()
			n.hasUsage = rd.Has(semconv.FieldInputTokens) || rd.Has(semconv.FieldOutputTokens)
			n.agentName = rd.Str(semconv.FieldAgent)
			if n.agentName == "" {
				n.agentName = sp.Name()
			}
		}
	}
	return a
}

func (a *auditor) find(c Category, n *node, toolCallID, format string, args ...any) {
	a.findings = append(a.findings, Finding{
		Category: c, Severity: c.Severity(), Message: fmt.Sprintf(format, args...),
		TraceID: n.trace.String(), SpanIDs: []string{n.span.String()}, ToolCallID: toolCallID,
	})
}

// also adds span ids to the finding just made.
func (a *auditor) also(ns ...*node) {
	f := &a.findings[len(a.findings)-1]
	for _, n := range ns {
		f.SpanIDs = append(f.SpanIDs, n.span.String())
	}
}

// parentOf returns the index of i's parent, or -1 when it has none in the
// input.
func (a *auditor) parentOf(i int) int {
	n := &a.nodes[i]
	if n.parent.IsEmpty() {
		return -1
	}
	if p, ok := a.index[n.parentKey()]; ok && p != i {
		return p
	}
	return -1
}

// ancestors calls f with each ancestor of i, nearest first, until f
// returns false. The walk is bounded, so a malformed trace whose parents
// form a cycle terminates.
func (a *auditor) ancestors(i int, f func(int) bool) {
	p := a.parentOf(i)
	for range len(a.nodes) {
		if p < 0 || !f(p) {
			return
		}
		p = a.parentOf(p)
	}
}

// agentOf returns the index of i's nearest enclosing agent, or -1.
func (a *auditor) agentOf(i int) int {
	found := -1
	a.ancestors(i, func(p int) bool {
		if a.nodes[p].kind == semconv.Agent {
			found = p
			return false
		}
		return true
	})
	return found
}

// byStart returns the indexes of the nodes of kind k in start order.
func (a *auditor) byStart(k semconv.Kind) []int {
	var idx []int
	for i := range a.nodes {
		if a.nodes[i].kind == k {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		nx, ny := &a.nodes[x], &a.nodes[y]
		return cmp.Or(cmp.Compare(nx.start, ny.start), cmp.Compare(nx.end, ny.end))
	})
	return idx
}
