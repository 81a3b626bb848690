package judge

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// Severity says how much a finding matters.
type Severity string

// The severities, least severe first.
const (
	Info    Severity = "info"
	Warning Severity = "warning"
	Error   Severity = "error"
)

// Severities lists the severities, least severe first.
func Severities() []Severity { return []Severity{Info, Warning, Error} }

func (s Severity) rank() int {
	switch s {
	case Info:
		return 1
	case Warning:
		return 2
	case Error:
		return 3
	}
	return 0
}

// AtLeast reports whether s is as severe as t or more.
func (s Severity) AtLeast(t Severity) bool { return s.rank() >= t.rank() }

// ParseSeverity reads "info", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	if v := Severity(s); v.rank() > 0 {
		return v, nil
	}
	return "", fmt.Errorf("unknown severity %q: want info, warning or error", s)
}

// Category names what a finding is about.
type Category string

// The audit categories.
const (
	// MissingCall: a model requested a tool call that no call record
	// carries. The trace lost the call, or the agent silently skipped it.
	MissingCall Category = "missing_call"
	// PhantomCall: a call record carries a tool call id that no model
	// requested.
	PhantomCall Category = "phantom_call"
	// ArgumentDrift: a call ran with arguments other than the ones the
	// model requested under the same tool call id.
	ArgumentDrift Category = "argument_drift"
	// HiddenRetry: a model call repeats the whole input of the previous
	// model call, which failed or whose output nothing acted on, without
	// the trace saying it is a retry.
	HiddenRetry Category = "hidden_retry"
	// TokenUnderreport: an agent reports fewer tokens than the model
	// calls under it spent.
	TokenUnderreport Category = "token_underreport"
	// MissingFinishReason: a generation that does not say why it stopped.
	MissingFinishReason Category = "missing_finish_reason"
	// OrphanSpan: a span whose parent is not in the input.
	OrphanSpan Category = "orphan_span"
	// DoubleInstrumentation: a model call recorded twice, by two
	// instrumentations at once (a framework's span around the provider
	// SDK's own, an agent-boundary recorder around a chat-boundary one):
	// an inference directly under an inference with the same request, or
	// whose usage is the sum of the model calls under it. Totals and
	// budgets count it once (the outer one is a wrapper, see
	// converter.Wrappers); the finding says the trace holds it twice.
	DoubleInstrumentation Category = "double_instrumentation"
	// SilentFailure: a model call under an agent that carries nothing it
	// returned: no usage, no output, no finish reason, no error, and no
	// attribute beyond the ones naming the call (operation, provider,
	// model, server). The call most likely failed without its
	// instrumentation saying so; totals count it as nothing.
	SilentFailure Category = "silent_failure"
)

// Categories lists the audit categories in the order the checks run;
// the last, SuppressedFinishReason, only [Reconcile] finds.
func Categories() []Category {
	return []Category{MissingCall, PhantomCall, ArgumentDrift, HiddenRetry, TokenUnderreport, MissingFinishReason, OrphanSpan,
		DoubleInstrumentation, SilentFailure, SuppressedFinishReason}
}

// Severity is the severity of the category's findings.
func (c Category) Severity() Severity {
	switch c {
	case MissingCall, ArgumentDrift, TokenUnderreport:
		return Error
	case PhantomCall, HiddenRetry, MissingFinishReason, OrphanSpan, SuppressedFinishReason, DoubleInstrumentation, SilentFailure:
		return Warning
	}
	return Info
}

// Finding is one fidelity problem in a trace. Its JSON form is part of the
// contract of `agenttrace audit --json`.
type Finding struct {
	Category Category `json:"category"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// TraceID and SpanIDs find the spans involved; the first span id is
	// the one the finding is about.
	TraceID string   `json:"trace_id"`
	SpanIDs []string `json:"span_ids"`
	// ToolCallID is the tool call concerned, when there is one.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// A and B locate the finding in each recording, for a finding of
	// [Reconcile]; absent for [Audit], which reads one.
	A *Location `json:"a,omitempty"`
	B *Location `json:"b,omitempty"`
}

// String renders the finding on one line: "severity category: message
// (trace …, span …, tool call …)".
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s (trace %s", f.Severity, f.Category, f.Message, f.TraceID)
	if len(f.SpanIDs) > 0 {
		b.WriteString(", span " + strings.Join(f.SpanIDs, ", "))
	}
	if f.ToolCallID != "" {
		b.WriteString(", tool call " + f.ToolCallID)
	}
	b.WriteString(")")
	if f.A != nil && f.B != nil {
		b.WriteString(" [A: " + f.A.text() + "; B: " + f.B.text() + "]")
	}
	return b.String()
}

// AuditOption configures [Audit].
type AuditOption interface{ applyAudit(*auditConfig) }

type auditConfig struct {
	redacted bool
	trailer  *converter.Summary
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
func WithTrailer(sum *converter.Summary) AuditOption {
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
func Audit(recs []converter.Record, opts ...AuditOption) []Finding {
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
func (n *node) key() converter.SpanKey {
	return converter.SpanKey{Trace: n.trace, Span: n.span}
}

func (n *node) parentKey() converter.SpanKey {
	return converter.SpanKey{Trace: n.trace, Span: n.parent}
}

type auditor struct {
	nodes    []node
	wrapper  []bool // inferences with an inference below them (converter.Wrappers)
	index    map[converter.SpanKey]int
	findings []Finding
	overRun  bool // the trailer says the budget was used up
}

func newAuditor(recs []converter.Record, cfg auditConfig) *auditor {
	a := &auditor{nodes: make([]node, len(recs)), index: make(map[converter.SpanKey]int, len(recs)),
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
			failed: converter.Failed(sp, &rd), name: sp.Name(),
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

// toolCalls matches the tool calls models requested with call records:
// missing_call, argument_drift and phantom_call.
func (a *auditor) toolCalls() {
	calls := a.byStart(semconv.Call)
	byID := map[string][]int{}
	for _, c := range calls {
		if id := a.nodes[c].toolCallID; id != "" {
			byID[id] = append(byID[id], c)
		}
	}
	requested := map[string]bool{}
	used := map[int]bool{} // calls without an id, matched by name
	recorded := map[pcommon.TraceID]bool{}
	for _, i := range a.byStart(semconv.Inference) {
		inf := &a.nodes[i]
		if inf.recorded {
			recorded[inf.trace] = true
		}
		for _, rq := range inf.requests {
			if rq.id != "" {
				requested[rq.id] = true
				if cs := byID[rq.id]; len(cs) > 0 {
					for _, c := range cs {
						a.drift(inf, &a.nodes[c], rq)
					}
					continue
				}
			}
			if c := a.byName(i, rq, calls, used); c >= 0 {
				used[c] = true
				continue
			}
			if a.budgetEnded(i) {
				continue
			}
			if rq.id != "" {
				a.find(MissingCall, inf, rq.id, "the model requested tool call %s (%s), but no call record carries that id, and no %s call without an id follows under the same agent",
					rq.id, orUnknown(rq.name), orUnknown(rq.name))
			} else {
				a.find(MissingCall, inf, "", "the model requested a %s call, but none follows under the same agent", orUnknown(rq.name))
			}
		}
	}
	// A call's id can only be told phantom when the models' outputs were
	// recorded: without them (content capture off, or an instrumentation
	// that records none) no request is known, and every call would look
	// phantom.
	for _, c := range calls {
		n := &a.nodes[c]
		if n.toolCallID == "" || requested[n.toolCallID] || !recorded[n.trace] {
			continue
		}
		a.find(PhantomCall, n, n.toolCallID, "call %s carries tool call id %s, which no inference in the input requested", orUnknown(n.tool), n.toolCallID)
	}
}

// budgetEnded tells whether the token budget ended the run right after
// inference i, so the calls it requested were never to run: i is the last
// inference under its agent, and that agent or one of its ancestors was
// stopped by the budget (or, with no such span, the trailer says the
// budget was used up and i is the last inference of its trace).
func (a *auditor) budgetEnded(i int) bool {
	inf := &a.nodes[i]
	agent := a.agentOf(i)
	lastOfTrace := true
	for j := range a.nodes {
		n := &a.nodes[j]
		if j == i || n.kind != semconv.Inference || n.trace != inf.trace || n.start <= inf.start {
			continue
		}
		if a.agentOf(j) == agent {
			return false
		}
		lastOfTrace = false
	}
	stopped := false
	a.ancestors(i, func(p int) bool {
		stopped = a.nodes[p].budgetStop
		return !stopped
	})
	return stopped || a.overRun && lastOfTrace
}

// byName finds, for a request that no call record carries the id of, an
// unused call without an id of the same tool, under the same agent as
// inference i, that started once i had ended; -1 when there is none. A
// call with the requested arguments (canonical JSON) is taken before the
// first by name: parallel calls of one tool may be recorded in any order,
// so requests and calls are matched as a multiset, not by position.
func (a *auditor) byName(i int, rq request, calls []int, used map[int]bool) int {
	inf := &a.nodes[i]
	agent := a.agentOf(i)
	first := -1
	for _, c := range calls {
		n := &a.nodes[c]
		if used[c] || n.toolCallID != "" || n.tool != rq.name || n.trace != inf.trace || n.start < inf.end || a.agentOf(c) != agent {
			continue
		}
		if !rq.hasArgs || !n.hasArgs || jsonEqual(rq.args, n.args) {
			return c
		}
		if first < 0 {
			first = c
		}
	}
	return first
}

// drift compares a request's arguments with those its call ran with.
func (a *auditor) drift(inf, call *node, rq request) {
	if !rq.hasArgs || !call.hasArgs || inf.redacted || call.redacted || jsonEqual(rq.args, call.args) {
		return
	}
	where := firstDifference(rq.args, call.args, "the request", "the call")
	a.find(ArgumentDrift, inf, rq.id, "call %s ran with arguments other than the model requested: %s", orUnknown(call.tool), where)
	a.also(call)
}

// hiddenRetries finds model calls that repeat the previous model call
// under the same parent: the whole input is the same, and that previous
// call failed or nothing was done with its output (no call record of its
// trace started between the two). An agent loop re-sends its
// history each turn, and an instrumentation that records only the prompt
// gives every turn the same input: a turn whose previous call's tool
// calls ran is the loop going on, not a retry, even when a tool failed.
func (a *auditor) hiddenRetries() {
	sibs := map[converter.SpanKey][]int{}
	var keys []converter.SpanKey
	for _, i := range append(a.byStart(semconv.Inference), a.byStart(semconv.Call)...) {
		n := &a.nodes[i]
		k := n.parentKey()
		if _, ok := sibs[k]; !ok {
			keys = append(keys, k)
		}
		sibs[k] = append(sibs[k], i)
	}
	for _, k := range keys {
		group := sibs[k]
		slices.SortStableFunc(group, func(x, y int) int {
			nx, ny := &a.nodes[x], &a.nodes[y]
			return cmp.Or(cmp.Compare(nx.start, ny.start), cmp.Compare(nx.end, ny.end))
		})
		prev := -1 // the previous inference of the group
		for _, rj := range group {
			retry := &a.nodes[rj]
			if retry.kind != semconv.Inference {
				continue
			}
			orig := prev
			prev = rj
			if orig < 0 || !retry.hasInput {
				continue
			}
			o := &a.nodes[orig]
			if !o.hasInput || o.input != retry.input || o.start >= retry.start {
				continue
			}
			switch {
			case o.failed:
				a.find(HiddenRetry, o, "", "inference %q failed and a sibling repeats its input (span %s): a retry the trace does not mark as one", o.name, retry.span)
				a.also(retry)
			case !a.acted(orig, rj):
				a.find(HiddenRetry, o, "", "inference %q is repeated with the same input (span %s) and no call acted on its output: a retry the trace does not mark as one",
					o.name, retry.span)
				a.also(retry)
			}
		}
	}
}

// acted tells whether a call record of the trace started after inference
// orig did and before retry: the loop acted on orig's output, so retry is
// the loop's next turn. Any call of the trace counts, not only orig's
// siblings: some instrumentations nest tools under a span of their own.
func (a *auditor) acted(orig, retry int) bool {
	o, r := &a.nodes[orig], &a.nodes[retry]
	for i := range a.nodes {
		if n := &a.nodes[i]; n.kind == semconv.Call && n.trace == o.trace && n.start >= o.start && n.start < r.start {
			return true
		}
	}
	return false
}

// tokenUnderreports compares each agent's own usage with the sum over the
// inference records in its subtree.
func (a *auditor) tokenUnderreports() {
	sums := map[int]int64{}
	seen := make([]int, len(a.nodes)) // walk stamp, so a cycle adds once
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind != semconv.Inference || n.usage.IsZero() || a.wrapper[i] {
			continue // a wrapper repeats the usage of the calls below it
		}
		a.ancestors(i, func(p int) bool {
			if seen[p] == i+1 {
				return false
			}
			seen[p] = i + 1
			if a.nodes[p].kind == semconv.Agent && a.nodes[p].hasUsage {
				sums[p] += n.usage.Total()
			}
			return true
		})
	}
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind != semconv.Agent || !n.hasUsage {
			continue
		}
		if sum := sums[i]; n.usage.Total() < sum {
			a.find(TokenUnderreport, n, "", "agent %q reports %d tokens (input + output), but the inference records under it add up to %d",
				n.agentName, n.usage.Total(), sum)
		}
	}
}

// finishReasons flags generations that do not say why they stopped. A
// failed one is left alone: it has no response to have a reason.
func (a *auditor) finishReasons() {
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind == semconv.Inference && n.generates && !n.failed && !n.finish && !a.silent(i) {
			a.find(MissingFinishReason, n, "", "inference %q records no finish reason", n.name)
		}
	}
}

// silent reports whether inference i failed silently: under an agent,
// not failed, and carrying nothing it returned (see SilentFailure).
func (a *auditor) silent(i int) bool {
	n := &a.nodes[i]
	return n.kind == semconv.Inference && n.generates && !a.wrapper[i] && !n.failed && n.bare && n.usage.IsZero() &&
		!n.recorded && !n.finish && len(n.requests) == 0 && a.agentOf(i) >= 0
}

// silentFailures flags the model calls that failed silently.
func (a *auditor) silentFailures() {
	for i := range a.nodes {
		if a.silent(i) {
			n := &a.nodes[i]
			a.find(SilentFailure, n, "", "inference %q under agent %q carries no usage, no output, no finish reason and no error: "+
				"a call that most likely failed without saying so", n.name, a.nodes[a.agentOf(i)].agentName)
		}
	}
}

// bareKeys are the attributes that only name a model call; a call with no
// other attribute says nothing of what it returned.
var bareKeys = map[string]bool{
	semconv.OperationName: true, semconv.ProviderName: true, semconv.System: true,
	semconv.RequestModel: true, semconv.ResponseModel: true, "server.address": true, "server.port": true,
}

// bare reports whether attrs hold nothing beyond bareKeys.
func bare(attrs pcommon.Map) bool {
	for k := range attrs.All() {
		if !bareKeys[k] {
			return false
		}
	}
	return true
}

// Span flags (OTLP SpanFlags) that say whether a span's parent is remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// orphans flags spans whose parent is not in the input. A span whose
// parent is remote is a root of this process's part of the trace: the
// flags say so, or, when they do not tell, a server or consumer span is
// taken to be one.
func (a *auditor) orphans() {
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.parent.IsEmpty() {
			continue
		}
		if _, ok := a.index[n.parentKey()]; ok {
			continue
		}
		if n.flags&flagHasIsRemote != 0 {
			if n.flags&flagIsRemote != 0 {
				continue
			}
		} else if n.spanKind == ptrace.SpanKindServer || n.spanKind == ptrace.SpanKindConsumer {
			continue
		}
		a.find(OrphanSpan, n, "", "%s %q names parent %s, which is not in the input", n.kind, n.name, n.parent)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown tool)"
	}
	return s
}

// generates tells whether an inference is a generation, which ends with a
// finish reason, rather than embeddings or retrieval.
func generates(sp ptrace.Span) bool {
	attrs := sp.Attributes()
	if v, ok := attrs.Get(semconv.OperationName); ok {
		switch semconv.NormalizeOperation(v.AsString()) {
		case semconv.OpEmbeddings, semconv.OpRetrieval:
			return false
		}
	}
	if v, ok := attrs.Get(semconv.OISpanKind); ok {
		switch strings.ToUpper(v.AsString()) {
		case "EMBEDDING", "RETRIEVER", "RERANKER":
			return false
		}
	}
	for _, k := range []string{semconv.LFObservationType, semconv.GenkitSubtype} {
		if v, ok := attrs.Get(k); ok {
			switch strings.ToLower(v.AsString()) {
			case "embedding", "embedder", "retriever", "reranker", "indexer":
				return false
			}
		}
	}
	op := sp.Name()
	if v, ok := attrs.Get(semconv.AIOperationID); ok {
		op = v.AsString()
	}
	return !strings.HasSuffix(op, ".doEmbed")
}

// Keys of model output that are not promoted to fields.
const (
	eventChoice            = "gen_ai.choice"
	eventContentCompletion = "gen_ai.content.completion"
	aiResponseToolCalls    = "ai.response.toolCalls"
	aiResponseText         = "ai.response.text"
	aiResponseObject       = "ai.response.object"
	oiOutputPrefix         = "llm.output_messages."
	tlCompletionPrefix     = "gen_ai.completion."
)

var (
	oiToolCallKey = regexp.MustCompile(`^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)$`)
	tlToolCallKey = regexp.MustCompile(`^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)$`)
	finishKey     = regexp.MustCompile(`^(gen_ai\.completion\.\d+\.finish_reason|llm\.output_messages\.\d+\.message\.finish_reason)$`)
)

// requestsOf reads the tool calls an inference requested, whether its
// output was recorded at all, and whether a finish reason was. The output
// is read from the first of these that the span has: the output field
// (gen_ai.output.messages or gen_ai.completion: GenAI parts, OpenAI
// tool_calls, Anthropic tool_use blocks), gen_ai.choice events (GenAI
// v1.28 to v1.36), the Vercel AI SDK's ai.response.toolCalls, and the
// flattened keys of OpenInference and older OpenLLMetry.
func requestsOf(rd *semconv.Reading, sp ptrace.Span) (reqs []request, recorded, finish bool) {
	finish = rd.Has(semconv.FieldFinishReasons)
	attrs := sp.Attributes()
	for k, v := range attrs.All() {
		if finishKey.MatchString(k) && v.AsString() != "" {
			finish = true
		}
	}
	if rd.Has(semconv.FieldOutput) {
		collectCalls(jsonOf(rd.Value(semconv.FieldOutput)), &reqs, &finish)
		return reqs, true, finish
	}
	for _, ev := range sp.Events().All() {
		switch ev.Name() {
		case eventChoice:
			recorded = true
			collectCalls(plainOf(mapValue(ev.Attributes())), &reqs, &finish)
		case eventContentCompletion:
			if v, ok := ev.Attributes().Get(semconv.Completion); ok {
				recorded = true
				collectCalls(jsonOf(v), &reqs, &finish)
			}
		}
	}
	if recorded {
		return reqs, true, finish
	}
	if v, ok := attrs.Get(aiResponseToolCalls); ok {
		if calls, ok := jsonOf(v).([]any); ok {
			for _, c := range calls {
				if m, ok := c.(map[string]any); ok {
					args, has := argsOf(either(m["args"], m["input"]))
					reqs = append(reqs, request{id: str(m["toolCallId"]), name: str(m["toolName"]), args: args, hasArgs: has})
				}
			}
		}
		return reqs, true, finish
	}
	if _, ok := attrs.Get(aiResponseText); ok {
		return nil, true, finish
	}
	if _, ok := attrs.Get(aiResponseObject); ok {
		return nil, true, finish
	}
	if v, ok := attrs.Get(semconv.GenkitOutput); ok {
		reqs = genkitCalls(jsonOf(v), &finish)
		return reqs, true, finish
	}
	if v, ok := attrs.Get(semconv.LFObservationOutput); ok {
		collectCalls(jsonOf(v), &reqs, &finish)
		return reqs, true, finish
	}
	return flattenedCalls(attrs, finish)
}

// genkitCalls reads a Genkit model response ({message: {content: [...]},
// finishReason}): its toolRequest parts, and whether it says why it
// stopped. Genkit's ref numbers requests within one response only, so the
// requests carry no id and are matched with call records by name.
func genkitCalls(v any, finish *bool) []request {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if str(m["finishReason"]) != "" || str(m["finish_reason"]) != "" {
		*finish = true
	}
	msg, _ := m["message"].(map[string]any)
	parts, _ := msg["content"].([]any)
	var reqs []request
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		tr, ok := pm["toolRequest"].(map[string]any)
		if !ok {
			continue
		}
		args, has := argsOf(tr["input"])
		reqs = append(reqs, request{name: str(tr["name"]), args: args, hasArgs: has})
	}
	return reqs
}

// mapValue wraps a map as a value, for plainOf.
func mapValue(m pcommon.Map) pcommon.Value {
	v := pcommon.NewValueMap()
	m.CopyTo(v.Map())
	return v
}

// flattenedCalls reads tool calls from OpenInference's
// llm.output_messages.<i>.message.tool_calls.<j>.tool_call.* keys and
// older OpenLLMetry's gen_ai.completion.<i>.tool_calls.<j>.* keys.
func flattenedCalls(attrs pcommon.Map, finish bool) ([]request, bool, bool) {
	type pos struct{ msg, call int }
	type fields struct{ id, name, args string }
	got := map[pos]*fields{}
	recorded := false
	for k, v := range attrs.All() {
		if !strings.HasPrefix(k, oiOutputPrefix) && !strings.HasPrefix(k, tlCompletionPrefix) {
			continue
		}
		recorded = true
		m := oiToolCallKey.FindStringSubmatch(k)
		if m == nil {
			m = tlToolCallKey.FindStringSubmatch(k)
		}
		if m == nil {
			continue
		}
		msg, _ := strconv.Atoi(m[1])
		call, _ := strconv.Atoi(m[2])
		p := pos{msg, call}
		if got[p] == nil {
			got[p] = &fields{}
		}
		switch m[3] {
		case "id":
			got[p].id = v.AsString()
		case "name", "function.name":
			got[p].name = v.AsString()
		case "arguments", "function.arguments":
			got[p].args = v.AsString()
		}
	}
	ps := make([]pos, 0, len(got))
	for p := range got {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(x, y pos) int { return cmp.Or(cmp.Compare(x.msg, y.msg), cmp.Compare(x.call, y.call)) })
	var reqs []request
	for _, p := range ps {
		f := got[p]
		args, has := argsOf(f.args)
		reqs = append(reqs, request{id: f.id, name: f.name, args: args, hasArgs: has})
	}
	return reqs, recorded, finish
}

// collectCalls walks output messages for the tool calls they request,
// and notes a finish reason when a message carries one.
func collectCalls(v any, out *[]request, finish *bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			collectCalls(e, out, finish)
		}
	case map[string]any:
		for _, k := range []string{"finish_reason", "stop_reason", "finishReason"} {
			if s := str(x[k]); s != "" {
				*finish = true
			}
		}
		if ch, ok := x["choices"]; ok {
			collectCalls(ch, out, finish)
		}
		if m, ok := x["message"].(map[string]any); ok {
			collectCalls(m, out, finish)
		}
		for _, k := range []string{"parts", "content"} {
			if blocks, ok := x[k].([]any); ok {
				for _, b := range blocks {
					if p, ok := b.(map[string]any); ok {
						switch str(p["type"]) {
						case "tool_call", "tool_use", "function_call":
							args, has := argsOf(either(p["arguments"], p["input"]))
							*out = append(*out, request{id: str(p["id"]), name: str(p["name"]), args: args, hasArgs: has})
						}
					}
				}
			}
		}
		if calls, ok := x["tool_calls"].([]any); ok {
			for _, c := range calls {
				p, ok := c.(map[string]any)
				if !ok {
					continue
				}
				name, rawArgs := p["name"], either(p["arguments"], p["args"])
				if fn, ok := p["function"].(map[string]any); ok {
					name, rawArgs = fn["name"], fn["arguments"]
				}
				args, has := argsOf(rawArgs)
				*out = append(*out, request{id: str(p["id"]), name: str(name), args: args, hasArgs: has})
			}
		}
	}
}

// argsOf returns requested arguments as a JSON tree: a string holding
// JSON (OpenAI's encoding) is parsed. An absent or empty value is none.
func argsOf(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, false
		}
		return parseText(x), true
	}
	return v, true
}

// either returns a unless it is absent (nil), else b.
func either(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// doubleInstrumentation flags model calls recorded twice. Nested, the
// outer record is a wrapper (converter.Wrappers, the rule the totals
// use): flagged when an inference directly under it has the same request,
// or when its usage is the sum of the leaf model calls under it, which it
// then only repeats. Unnested (two instrumentations that share no context
// write each call as the root of its own trace), two root inferences of
// different traces with the same model and request that overlap in time
// are flagged too; nothing links them, so the totals count both.
func (a *auditor) doubleInstrumentation() {
	children := map[int][]int{}
	leafSum := map[int]semconv.Usage{}
	seen := make([]int, len(a.nodes))
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind != semconv.Inference {
			continue
		}
		if p := a.parentOf(i); p >= 0 && a.wrapper[p] {
			children[p] = append(children[p], i)
		}
		if a.wrapper[i] {
			continue
		}
		a.ancestors(i, func(p int) bool {
			if seen[p] == i+1 {
				return false
			}
			seen[p] = i + 1
			if a.wrapper[p] {
				u := leafSum[p]
				u.Add(n.usage)
				leafSum[p] = u
			}
			return true
		})
	}
	for w := range a.nodes {
		if !a.wrapper[w] || a.nodes[w].kind != semconv.Inference {
			continue
		}
		n := &a.nodes[w]
		var same, other []*node
		for _, c := range children[w] {
			cn := &a.nodes[c]
			if n.hasInput && cn.hasInput && cn.input == n.input {
				same = append(same, cn)
			} else if cn.scope != n.scope && n.model != "" && sameModel(cn.model, n.model) {
				other = append(other, cn)
			}
		}
		switch sum := leafSum[w]; {
		case len(same) > 0:
			a.find(DoubleInstrumentation, n, "", "inference %q and the inference under it record the same request: one model call recorded twice (counted once)", n.name)
			a.also(same...)
		case len(other) == 1 && len(children[w]) == 1:
			// A failed call has no usage to compare, and an SDK's own span
			// may record no content: one model call of the same model
			// directly under it, from another instrumentation, is the same
			// call seen twice.
			a.find(DoubleInstrumentation, n, "", "inference %q (%s) has one inference of the same model directly under it, recorded by another instrumentation (%s): one model call recorded twice (counted once)",
				n.name, n.scope, other[0].scope)
			a.also(other...)
		case !n.usage.IsZero() && sum.Input == n.usage.Input && sum.Output == n.usage.Output:
			a.find(DoubleInstrumentation, n, "", "inference %q reports %d tokens (input + output), the sum of the %d model calls under it: their usage recorded twice (counted once)",
				n.name, n.usage.Total(), len(children[w]))
			for _, c := range children[w] {
				a.also(&a.nodes[c])
			}
		}
	}
	a.unnestedDoubles()
}

// unnestedDoubles flags root inferences of different traces that record
// the same call: written by two instrumentation scopes, with the same
// input messages (roles, text and tool names: two libraries spell the
// rest differently), compatible models (gpt-4o-mini and the dated
// gpt-4o-mini-2024-07-18 a response names) and overlapping times.
func (a *auditor) unnestedDoubles() {
	roots := map[string][]int{}
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind == semconv.Inference && n.parent.IsEmpty() && n.rootInput != "" {
			roots[n.rootInput] = append(roots[n.rootInput], i)
		}
	}
	keys := make([]string, 0, len(roots))
	for k := range roots {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		idx := roots[k]
		used := map[int]bool{}
		for x, i := range idx {
			for _, j := range idx[x+1:] {
				ni, nj := &a.nodes[i], &a.nodes[j]
				if used[i] || used[j] || ni.trace == nj.trace || ni.scope == nj.scope || ni.end < nj.start || nj.end < ni.start ||
					!sameModel(ni.model, nj.model) {
					continue
				}
				used[i], used[j] = true, true
				first, second := ni, nj
				if nj.start < ni.start || (nj.start == ni.start && nj.span.String() < ni.span.String()) {
					first, second = nj, ni
				}
				a.find(DoubleInstrumentation, first, "", "inference %q (%s) and inference %q (%s, trace %s) record the same request at the same time in unrelated traces: one model call recorded twice by two instrumentations (counted twice: nothing links them)",
					first.name, first.scope, second.name, second.scope, second.trace)
				a.also(second)
			}
		}
	}
}

// sameModel reports whether two model names may name one model: equal,
// one unknown, or one the other with a suffix (a dated version).
func sameModel(a, b string) bool {
	return a == "" || b == "" || strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// normalizedInput is a span's input messages reduced to what every
// instrumentation records alike: each message's role, text and tool call
// names; "" when it has none.
func normalizedInput(sp ptrace.Span) string {
	conv := semconv.Messages(sp)
	var b strings.Builder
	for _, m := range conv.Input {
		b.WriteString(m.Role)
		b.WriteByte(0)
		for _, p := range m.Parts {
			switch p.Type {
			case semconv.PartText:
				b.WriteString(p.Content)
			case semconv.PartToolCall:
				b.WriteString("\x01" + p.Name)
			}
			b.WriteByte(0)
		}
		b.WriteByte(3)
	}
	return b.String()
}
