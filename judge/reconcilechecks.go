package judge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agenttrace/agenttrace/semconv"
)

// reconciler reconciles one run.
type reconciler struct {
	a, b     *side
	ra, rb   []int
	findings []Finding
	retried  int64 // tokens B's hidden model retries spent
}

// loc locates records of one side.
func (rc *reconciler) loc(s *side, idx ...int) *Location {
	l := &Location{File: s.rec.Name, SpanIDs: []string{}, Lines: []int{}}
	for _, i := range idx {
		n := &s.nodes[i]
		if l.TraceID == "" {
			l.TraceID = n.trace
		}
		if !slices.Contains(l.SpanIDs, n.span) {
			l.SpanIDs = append(l.SpanIDs, n.span)
		}
		if n.line > 0 && !slices.Contains(l.Lines, n.line) {
			l.Lines = append(l.Lines, n.line)
		}
	}
	slices.Sort(l.Lines)
	return l
}

// root locates a run's root records on one side: where a record the side
// lacks would belong.
func (rc *reconciler) root(s *side, idx []int) *Location {
	spans := map[string]bool{}
	for _, i := range idx {
		spans[s.nodes[i].span] = true
	}
	var roots []int
	for _, i := range idx {
		if n := &s.nodes[i]; n.parent == "" || !spans[n.parent] {
			roots = append(roots, i)
		}
	}
	if len(roots) == 0 && len(idx) > 0 {
		roots = idx[:1]
	}
	l := rc.loc(s, roots...)
	l.Absent = true
	return l
}

func (rc *reconciler) find(c Category, subject *Location, la, lb *Location, toolCallID, format string, args ...any) {
	rc.findings = append(rc.findings, Finding{
		Category: c, Severity: c.Severity(), Message: fmt.Sprintf(format, args...),
		TraceID: subject.TraceID, SpanIDs: subject.SpanIDs, ToolCallID: toolCallID, A: la, B: lb,
	})
}

// toolCalls pairs the tool calls of both sides: by tool call id, then by
// alignment on (tool, arguments).
func (rc *reconciler) toolCalls() {
	ua, ub := rc.a.uses(rc.ra), rc.b.uses(rc.rb)
	pairOfA, pairOfB := map[int]int{}, map[int]int{}
	byID := map[string]int{}
	for j := range ub {
		if id := ub[j].id; id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = j
			}
		}
	}
	for i := range ua {
		if j, ok := byID[ua[i].id]; ok && ua[i].id != "" {
			if _, taken := pairOfB[j]; !taken {
				pairOfA[i], pairOfB[j] = j, i
			}
		}
	}
	var restA, restB []use
	var mapA, mapB []int
	for i := range ua {
		if _, ok := pairOfA[i]; !ok {
			restA, mapA = append(restA, ua[i]), append(mapA, i)
		}
	}
	for j := range ub {
		if _, ok := pairOfB[j]; !ok {
			restB, mapB = append(restB, ub[j]), append(mapB, j)
		}
	}
	restA, mapA, restB, mapB = pairSame(restA, mapA, restB, mapB, pairOfA, pairOfB)
	for _, s := range align(restA, restB) {
		if s.a >= 0 && s.b >= 0 && restA[s.a].tool == restB[s.b].tool {
			pairOfA[mapA[s.a]], pairOfB[mapB[s.b]] = mapB[s.b], mapA[s.a]
		}
	}
	for i := range ua {
		x := &ua[i]
		j, ok := pairOfA[i]
		if !ok {
			la := rc.loc(rc.a, x.node)
			rc.find(PhantomCall, la, la, rc.root(rc.b, rc.rb), x.id,
				"A reports a %s call%s that B never recorded", orUnknown(x.tool), idText(x.id))
			continue
		}
		y := &ub[j]
		if x.hasArgs && y.hasArgs && !x.redacted && !y.redacted && x.canon != y.canon {
			where := firstDifference(y.args, x.args, "B", "A")
			if where != "" {
				where = ": " + where
			}
			la := rc.loc(rc.a, x.node)
			rc.find(ArgumentDrift, la, la, rc.loc(rc.b, y.node), x.id,
				"A reports the %s call%s with other arguments than B recorded%s", orUnknown(x.tool), idText(x.id), where)
		}
	}
	for j := range ub {
		if _, ok := pairOfB[j]; ok {
			continue
		}
		y := &ub[j]
		lb := rc.loc(rc.b, y.node)
		if k := repeats(ub, j); k >= 0 {
			lb = rc.loc(rc.b, y.node, ub[k].node)
			lb.SpanIDs = []string{rc.b.nodes[y.node].span, rc.b.nodes[ub[k].node].span}
			rc.find(HiddenRetry, lb, rc.root(rc.a, rc.ra), lb, y.id,
				"A shows the %s call once, but B made it again with the same arguments%s: a retry the report hides",
				orUnknown(y.tool), idText(y.id))
			continue
		}
		rc.find(MissingCall, lb, rc.root(rc.a, rc.ra), lb, y.id,
			"B recorded a %s call%s that A does not report", orUnknown(y.tool), idText(y.id))
	}
}

// pairSame pairs the calls left without a pair by id that have the same
// tool and the same arguments (canonical JSON) on both sides, as a
// multiset: the k-th of A's with the k-th of B's, wherever they stand.
// Parallel calls of one tool run in any order (get_weather(Paris) and
// get_weather(Rome) requested in that order, recorded Rome first), and an
// alignment by position would pair one and leave the other a missing and
// a phantom call. It returns the calls still unpaired, for the alignment
// (a call whose arguments changed) and the retries (B's extra copies).
func pairSame(restA []use, mapA []int, restB []use, mapB []int, pairOfA, pairOfB map[int]int) ([]use, []int, []use, []int) {
	// The same outcome first: of a failed attempt and its retry, the one
	// a report shows is the one that succeeded.
	for _, withOutcome := range []bool{true, false} {
		key := func(u *use) string {
			k := u.tool + "\x00"
			if u.hasArgs {
				k += "\x01" + u.canon
			}
			if withOutcome {
				k += "\x00" + u.alignOutcome()
			}
			return k
		}
		waiting := map[string][]int{}
		for j := range restB {
			k := key(&restB[j])
			waiting[k] = append(waiting[k], j)
		}
		pairedB := make([]bool, len(restB))
		var leftA, leftB []use
		var leftMapA, leftMapB []int
		for i := range restA {
			k := key(&restA[i])
			if q := waiting[k]; len(q) > 0 {
				waiting[k] = q[1:]
				pairedB[q[0]] = true
				pairOfA[mapA[i]], pairOfB[mapB[q[0]]] = mapB[q[0]], mapA[i]
				continue
			}
			leftA, leftMapA = append(leftA, restA[i]), append(leftMapA, mapA[i])
		}
		for j := range restB {
			if !pairedB[j] {
				leftB, leftMapB = append(leftB, restB[j]), append(leftMapB, mapB[j])
			}
		}
		restA, mapA, restB, mapB = leftA, leftMapA, leftB, leftMapB
	}
	return restA, mapA, restB, mapB
}

// repeats returns another use in us of the same tool with the same
// arguments as us[j], the nearest earlier one first, else the nearest
// later one; -1 when there is none. Which attempt a report kept is its
// own choice: the one it dropped is the hidden retry.
func repeats(us []use, j int) int {
	same := func(k int) bool {
		return us[k].tool == us[j].tool && us[k].hasArgs == us[j].hasArgs && us[k].canon == us[j].canon
	}
	for k := j - 1; k >= 0; k-- {
		if same(k) {
			return k
		}
	}
	for k := j + 1; k < len(us); k++ {
		if same(k) {
			return k
		}
	}
	return -1
}

func idText(id string) string {
	if id == "" {
		return ""
	}
	return " (tool call " + id + ")"
}

// modelRetries finds model calls b repeats more often than a shows them.
// A repeat is a model call whose whole input equals the previous model
// call's (same parent), when that call failed or no call acted on its
// output. Loop turns are none: a loop re-sends its growing history, and a
// recorder that keeps only the prompt gives every turn the same input,
// but the tool calls run between two turns show the loop going on. Their
// tokens are no retry's, so they stay in the token comparison.
func (rc *reconciler) modelRetries() {
	countA := map[string]int{}
	for _, i := range rc.ra {
		if n := &rc.a.nodes[i]; n.kind == semconv.Inference && n.hasInput {
			countA[n.input]++
		}
	}
	calls := rc.b.sorted(rc.rb, semconv.Call)
	prev := map[string]int{} // parent span -> its last model call so far
	repeated := map[string]int{}
	for _, i := range rc.b.sorted(rc.rb, semconv.Inference) {
		n := &rc.b.nodes[i]
		f, ok := prev[n.parent]
		prev[n.parent] = i
		if !ok || !n.hasInput {
			continue
		}
		p := &rc.b.nodes[f]
		if !p.hasInput || p.input != n.input || (!p.failed && rc.b.acted(calls, p.start, n.start)) {
			continue
		}
		repeated[n.input]++
		if repeated[n.input] < max(countA[n.input], 1) {
			continue
		}
		rc.retried += n.usage.Total()
		lb := rc.loc(rc.b, i, f)
		lb.SpanIDs = []string{n.span, p.span}
		state := "succeeded, and no call acted on its output"
		if p.failed {
			state = "failed"
		}
		rc.find(HiddenRetry, lb, rc.root(rc.a, rc.ra), lb, "",
			"B repeats a model call with the same input (the first attempt %s), which A does not show: a retry the report hides", state)
	}
}

// acted tells whether one of calls (the run's) started in [from, to):
// the loop acted on the output of a model call between.
func (s *side) acted(calls []int, from, to uint64) bool {
	for _, c := range calls {
		if n := &s.nodes[c]; n.start >= from && n.start < to {
			return true
		}
	}
	return false
}

// sorted returns the records of kind k among idx in start order.
func (s *side) sorted(idx []int, k semconv.Kind) []int {
	var out []int
	for _, i := range idx {
		if s.nodes[i].kind == k {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(x, y int) int { return cmp.Compare(s.nodes[x].start, s.nodes[y].start) })
	return out
}

// tokens compares what a reports with what b's model calls spent.
func (rc *reconciler) tokens() {
	var spent int64
	var used []int
	for _, i := range rc.rb {
		if n := &rc.b.nodes[i]; n.kind == semconv.Inference && !n.usage.IsZero() {
			spent += n.usage.Total()
			used = append(used, i)
		}
	}
	claim, claimed := rc.claim()
	// Tokens a hidden retry spent are that finding's, not another one.
	if len(claimed) == 0 || claim >= spent-rc.retried {
		return
	}
	la := rc.loc(rc.a, claimed...)
	rc.find(TokenUnderreport, la, la, rc.loc(rc.b, used...), "",
		"A reports %d tokens (input + output), but the model calls B recorded spent %d", claim, spent)
}

// claim is what a reports spending: its top agents' usage (an agent's own
// report, as the framework gives it), else its model calls'. It returns
// the records that say so; none when a reports no usage at all.
func (rc *reconciler) claim() (int64, []int) {
	spans := map[string]int{}
	for _, i := range rc.ra {
		spans[rc.a.nodes[i].span] = i
	}
	var total int64
	var claimed []int
	for _, i := range rc.ra {
		n := &rc.a.nodes[i]
		if n.kind != semconv.Agent || !n.hasUsage || rc.underAgent(spans, i) {
			continue
		}
		total += n.usage.Total()
		claimed = append(claimed, i)
	}
	if len(claimed) > 0 {
		return total, claimed
	}
	for _, i := range rc.ra {
		if n := &rc.a.nodes[i]; n.kind == semconv.Inference && n.hasUsage {
			total += n.usage.Total()
			claimed = append(claimed, i)
		}
	}
	return total, claimed
}

// underAgent tells whether an agent with usage encloses record i.
func (rc *reconciler) underAgent(spans map[string]int, i int) bool {
	p := rc.a.nodes[i].parent
	for range len(spans) {
		j, ok := spans[p]
		if !ok {
			return false
		}
		if n := &rc.a.nodes[j]; n.kind == semconv.Agent && n.hasUsage {
			return true
		}
		p = rc.a.nodes[j].parent
	}
	return false
}

// normalFinish are the finish reasons of a model call that finished: it
// answered, or asked for tools.
var normalFinish = map[string]bool{
	"stop": true, "end_turn": true, "tool_calls": true, "tool_call": true, "tool_use": true,
	"function_call": true, "stop_sequence": true, "end": true, "completed": true,
}

// finishReasons finds model calls of b that stopped for another reason
// than finishing, when a never mentions that reason.
func (rc *reconciler) finishReasons() {
	said := map[string]bool{}
	for _, i := range rc.ra {
		for _, f := range rc.a.nodes[i].finish {
			said[strings.ToLower(f)] = true
		}
	}
	for _, i := range rc.b.sorted(rc.rb, semconv.Inference) {
		n := &rc.b.nodes[i]
		for _, f := range n.finish {
			r := strings.ToLower(f)
			if normalFinish[r] || said[r] {
				continue
			}
			lb := rc.loc(rc.b, i)
			rc.find(SuppressedFinishReason, lb, rc.root(rc.a, rc.ra), lb, "",
				"a model call in B stopped with finish reason %q, which A never reports", f)
			break
		}
	}
}
