package judge

import (
	"cmp"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

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
	sibs := map[artifact.SpanKey][]int{}
	var keys []artifact.SpanKey
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
