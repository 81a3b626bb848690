package judge

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// SuppressedFinishReason: the reference recording has a model call that
// stopped for a reason other than finishing (length, content filter), and
// the recording under audit never says so. Only [Reconcile] finds it.
const SuppressedFinishReason Category = "suppressed_finish_reason"

// Recording is one recording of a run, for [Reconcile]: an artifact or
// OTLP file, with what is known of where each record came from.
type Recording struct {
	// Name names the file in findings.
	Name    string
	Records []converter.Record
	// Lines holds each record's line in the file (0 when it has none);
	// nil when unknown (OTLP), and findings then name spans only.
	Lines []int
	// Meta is the artifact's header and Summary its trailer; nil for none.
	Meta    *converter.Meta
	Summary *converter.Summary
}

// Location is where a finding is in one recording.
type Location struct {
	File    string   `json:"file"`
	TraceID string   `json:"trace_id,omitempty"`
	SpanIDs []string `json:"span_ids"`
	// Lines are the records' lines in the file (empty when unknown).
	Lines []int `json:"lines"`
	// Absent tells that the finding is about something this recording
	// does not hold; the location is then its run's root, the place the
	// record would belong under.
	Absent bool `json:"absent,omitempty"`
}

func (l *Location) text() string {
	s := l.File
	switch {
	case len(l.Lines) == 1:
		s += " line " + strconv.Itoa(l.Lines[0])
	case len(l.Lines) > 1:
		s += " lines " + lineRanges(l.Lines)
	case len(l.SpanIDs) > 0:
		s += " span " + strings.Join(l.SpanIDs, ", ")
	}
	if l.Absent {
		s += " (its run, which lacks it)"
	}
	return s
}

// lineRanges writes sorted line numbers with runs collapsed: "2-7, 9".
func lineRanges(lines []int) string {
	var parts []string
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(lines[i])+"-"+strconv.Itoa(lines[j]))
		} else {
			parts = append(parts, strconv.Itoa(lines[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// RunMatch says which traces of two recordings were taken for one run,
// and why.
type RunMatch struct {
	TracesA []string `json:"traces_a"`
	TracesB []string `json:"traces_b"`
	// By is how they were matched: "trace_id", "conversation_id" or
	// "time_window" (their spans overlap in time).
	By string `json:"by"`
}

// Reconciliation is the verdict of [Reconcile].
type Reconciliation struct {
	// A and B name the recordings.
	A string `json:"a"`
	B string `json:"b"`
	// Runs lists the runs found in both; UnmatchedA and UnmatchedB, the
	// traces found in one only, which are not reconciled.
	Runs       []RunMatch `json:"runs"`
	UnmatchedA []string   `json:"unmatched_a"`
	UnmatchedB []string   `json:"unmatched_b"`
	Findings   []Finding  `json:"findings"`
}

// Reconcile audits recording a against recording b of the same run, the
// Trace Fidelity check of two-layer recording: a is what the agent
// framework reported (the agent boundary), b what happened (the
// chat-client boundary, every model round trip and tool execution). Runs
// are matched by trace id, else by conversation id, else by overlapping
// time. For each run it finds:
//
//   - missing_call: b has a tool call that a does not report;
//   - phantom_call: a reports a tool call b never saw;
//   - hidden_retry: b repeats a tool call (same tool and arguments) or a
//     model call (the whole input of its previous model call, which failed
//     or whose output no call acted on) more often than a shows;
//   - argument_drift: a reports a call with other arguments than b
//     recorded for it;
//   - token_underreport: a reports fewer tokens than b's model calls spent;
//   - suppressed_finish_reason: a model call in b stopped for a reason
//     other than finishing (length, content_filter, ...) that a never
//     mentions.
//
// Tool calls are paired by tool call id, then by tool and arguments as a
// multiset (parallel calls run in any order), then by aligning the rest as
// [Diff] does. Every finding locates itself in both recordings (A and B).
func Reconcile(a, b Recording) *Reconciliation {
	rep := &Reconciliation{A: a.Name, B: b.Name, Runs: []RunMatch{}, UnmatchedA: []string{}, UnmatchedB: []string{}, Findings: []Finding{}}
	sa, sb := newSide(a), newSide(b)
	for _, m := range matchRuns(sa, sb, rep) {
		rc := reconciler{a: sa, b: sb, ra: m.ra, rb: m.rb}
		rc.toolCalls()
		rc.modelRetries()
		rc.tokens()
		rc.finishReasons()
		rep.Findings = append(rep.Findings, rc.findings...)
	}
	return rep
}

// side is one recording, read.
type side struct {
	rec    Recording
	nodes  []rnode
	traces []string // in order of first start
	byID   map[string][]int
}

// rnode is what reconciling needs of one record.
type rnode struct {
	kind       semconv.Kind
	trace      string
	span       string
	parent     string
	start, end uint64
	failed     bool
	line       int
	conv       string

	tool, toolCallID string
	args             any
	canon            string
	hasArgs          bool

	requests []request // tool calls asked for in the output
	input    string    // canonical input of an inference
	hasInput bool
	usage    semconv.Usage
	hasUsage bool
	finish   []string // finish reasons, as recorded
	redacted bool
}

func newSide(r Recording) *side {
	s := &side{rec: r, nodes: make([]rnode, len(r.Records)), byID: map[string][]int{}}
	var rd semconv.Reading
	seen := map[string]bool{}
	redacted := r.Meta != nil && r.Meta.Redacted
	type first struct {
		id    string
		start uint64
	}
	var order []first
	for i := range r.Records {
		rec := &r.Records[i]
		rec.Read(&rd)
		sp := rec.Span
		n := &s.nodes[i]
		*n = rnode{
			kind: rd.Kind, trace: sp.TraceID().String(), span: sp.SpanID().String(),
			start: uint64(sp.StartTimestamp()), end: uint64(sp.EndTimestamp()),
			failed:   converter.Failed(sp, &rd),
			conv:     rd.Str(semconv.FieldConversationID),
			redacted: redacted || isRedacted(rec),
		}
		if p := sp.ParentSpanID(); !p.IsEmpty() {
			n.parent = p.String()
		}
		if i < len(r.Lines) {
			n.line = r.Lines[i]
		}
		if rd.Has(semconv.FieldFinishReasons) {
			n.finish = stringsOf(rd.Value(semconv.FieldFinishReasons))
		}
		switch rd.Kind {
		case semconv.Call:
			n.tool, n.toolCallID = rd.ToolName(sp.Name()), rd.Str(semconv.FieldToolCallID)
			if rd.Has(semconv.FieldArgs) {
				v := rd.Value(semconv.FieldArgs)
				n.args, n.hasArgs = jsonOf(v), true
				n.canon = canonical(n.args)
				n.redacted = n.redacted || hasRedactedValue(v)
			}
		case semconv.Inference, semconv.Agent:
			n.usage = rd.Usage()
			n.hasUsage = rd.Has(semconv.FieldInputTokens) || rd.Has(semconv.FieldOutputTokens)
			if rd.Kind == semconv.Inference {
				reqs, _, _ := requestsOf(&rd, sp)
				n.requests = reqs
				if rd.Has(semconv.FieldInput) {
					n.input, n.hasInput = canonical(jsonOf(rd.Value(semconv.FieldInput))), true
				}
			} else if rd.Has(semconv.FieldOutput) {
				var fin bool
				collectCalls(jsonOf(rd.Value(semconv.FieldOutput)), &n.requests, &fin)
			}
			if rd.Has(semconv.FieldOutput) {
				n.finish = append(n.finish, outputFinishReasons(jsonOf(rd.Value(semconv.FieldOutput)))...)
			}
		}
		if !seen[n.trace] {
			seen[n.trace] = true
			order = append(order, first{n.trace, n.start})
		}
		for k := range order {
			if order[k].id == n.trace && n.start < order[k].start {
				order[k].start = n.start
			}
		}
		s.byID[n.trace] = append(s.byID[n.trace], i)
	}
	slices.SortStableFunc(order, func(x, y first) int { return cmp.Compare(x.start, y.start) })
	for _, o := range order {
		s.traces = append(s.traces, o.id)
	}
	return s
}

// stringsOf reads a string or an array of strings.
func stringsOf(v pcommon.Value) []string {
	if v.Type() == pcommon.ValueTypeSlice {
		var out []string
		for _, e := range v.Slice().All() {
			if s := e.AsString(); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if s := v.AsString(); s != "" {
		if parsed, ok := parseText(s).([]any); ok {
			var out []string
			for _, e := range parsed {
				if t := str(e); t != "" {
					out = append(out, t)
				}
			}
			return out
		}
		return []string{s}
	}
	return nil
}

// outputFinishReasons collects the finish reasons output messages carry.
func outputFinishReasons(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range []string{"finish_reason", "stop_reason"} {
				if s := str(x[k]); s != "" {
					out = append(out, s)
				}
			}
			if ch, ok := x["choices"]; ok {
				walk(ch)
			}
		}
	}
	walk(v)
	return out
}

// window is the time a set of traces spans.
func (s *side) window(traces []string) (from, to uint64) {
	for _, t := range traces {
		for _, i := range s.byID[t] {
			n := &s.nodes[i]
			if from == 0 || n.start < from {
				from = n.start
			}
			to = max(to, n.end)
		}
	}
	return from, to
}

// convs returns the conversation ids of a trace, the header's included.
func (s *side) convs(trace string) map[string]bool {
	out := map[string]bool{}
	for _, i := range s.byID[trace] {
		if c := s.nodes[i].conv; c != "" {
			out[c] = true
		}
	}
	if len(out) == 0 && s.rec.Meta != nil && s.rec.Meta.ConversationID != "" {
		out[s.rec.Meta.ConversationID] = true
	}
	return out
}

// runPair is one matched run: record indexes on each side.
type runPair struct{ ra, rb []int }

// matchRuns pairs the traces of a and b into runs: the same trace id,
// else a shared conversation id, else overlapping time (the largest
// overlap first). A trace may join several of the other side's (a
// recorder that starts a trace per model call).
func matchRuns(a, b *side, rep *Reconciliation) []runPair {
	type group struct {
		ta, tb []string
		by     string
	}
	var groups []*group
	ofA, ofB := map[string]*group{}, map[string]*group{}
	join := func(ta, tb, by string) {
		ga, gb := ofA[ta], ofB[tb]
		switch {
		case ga == nil && gb == nil:
			g := &group{ta: []string{ta}, tb: []string{tb}, by: by}
			groups = append(groups, g)
			ofA[ta], ofB[tb] = g, g
		case ga == nil:
			gb.ta = append(gb.ta, ta)
			ofA[ta] = gb
		case gb == nil:
			ga.tb = append(ga.tb, tb)
			ofB[tb] = ga
		}
	}
	inB := map[string]bool{}
	for _, t := range b.traces {
		inB[t] = true
	}
	for _, t := range a.traces {
		if inB[t] {
			join(t, t, "trace_id")
		}
	}
	for _, ta := range a.traces {
		ca := a.convs(ta)
		if len(ca) == 0 {
			continue
		}
		for _, tb := range b.traces {
			for c := range b.convs(tb) {
				if ca[c] {
					join(ta, tb, "conversation_id")
					break
				}
			}
		}
	}
	for _, ta := range a.traces {
		if ofA[ta] != nil {
			continue
		}
		fa, la := a.window([]string{ta})
		best, bestOver := "", uint64(0)
		for _, tb := range b.traces {
			if ofB[tb] != nil {
				continue
			}
			fb, lb := b.window([]string{tb})
			if lo, hi := max(fa, fb), min(la, lb); hi > lo && hi-lo > bestOver {
				best, bestOver = tb, hi-lo
			}
		}
		if best != "" {
			join(ta, best, "time_window")
		}
	}
	// B's traces left over that overlap a matched run join it (a recorder
	// that starts a trace per model call).
	for _, tb := range b.traces {
		if ofB[tb] != nil {
			continue
		}
		fb, lb := b.window([]string{tb})
		for _, g := range groups {
			if fa, la := a.window(g.ta); min(la, lb) > max(fa, fb) {
				g.tb = append(g.tb, tb)
				ofB[tb] = g
				break
			}
		}
	}
	var out []runPair
	for _, g := range groups {
		rep.Runs = append(rep.Runs, RunMatch{TracesA: g.ta, TracesB: g.tb, By: g.by})
		var p runPair
		for _, t := range g.ta {
			p.ra = append(p.ra, a.byID[t]...)
		}
		for _, t := range g.tb {
			p.rb = append(p.rb, b.byID[t]...)
		}
		out = append(out, p)
	}
	for _, t := range a.traces {
		if ofA[t] == nil {
			rep.UnmatchedA = append(rep.UnmatchedA, t)
		}
	}
	for _, t := range b.traces {
		if ofB[t] == nil {
			rep.UnmatchedB = append(rep.UnmatchedB, t)
		}
	}
	return out
}

// use is one tool call a recording tells of: a call record, or a request
// in a model's or an agent's output that no call record carries.
type use struct {
	node       int // the record
	id, tool   string
	args       any
	canon      string
	hasArgs    bool
	redacted   bool
	at         uint64
	leafs      map[string]string
	failed     bool
	fromOutput bool
}

func (u *use) alignKey() string  { return u.tool }
func (u *use) alignArgs() string { return u.canon }
func (u *use) alignOutcome() string {
	if u.failed {
		return "failed"
	}
	return "ok"
}

func (u *use) alignLeaves() map[string]string {
	if u.leafs == nil {
		u.leafs = leaves(u.args)
	}
	return u.leafs
}

// uses lists the tool calls among the records idx of s, in time order.
func (s *side) uses(idx []int) []use {
	var out []use
	ids := map[string]bool{}
	for _, i := range idx {
		n := &s.nodes[i]
		if n.kind != semconv.Call {
			continue
		}
		out = append(out, use{node: i, id: n.toolCallID, tool: n.tool, args: n.args, canon: n.canon, hasArgs: n.hasArgs,
			redacted: n.redacted, at: n.start, failed: n.failed})
		if n.toolCallID != "" {
			ids[n.toolCallID] = true
		}
	}
	// A request a call record carries (by id, or, when the record's id is
	// none the models requested, by tool name) is that call; any other
	// request is a call the recording tells of only through its output.
	requested := map[string]bool{}
	for _, i := range idx {
		for _, rq := range s.nodes[i].requests {
			if rq.id != "" {
				requested[rq.id] = true
			}
		}
	}
	claimed := make([]bool, len(out))
	reqNodes := slices.Clone(idx)
	slices.SortStableFunc(reqNodes, func(x, y int) int { return cmp.Compare(s.nodes[x].end, s.nodes[y].end) })
	for _, i := range reqNodes {
		n := &s.nodes[i]
		for _, rq := range n.requests {
			if rq.id != "" && ids[rq.id] {
				continue
			}
			if c := unclaimedCall(out, claimed, rq.name, requested); c >= 0 {
				claimed[c] = true
				continue
			}
			if rq.id != "" {
				ids[rq.id] = true
			}
			u := use{node: i, id: rq.id, tool: rq.name, args: rq.args, hasArgs: rq.hasArgs, redacted: n.redacted, at: n.end, fromOutput: true}
			if rq.hasArgs {
				u.canon = canonical(rq.args)
			}
			out = append(out, u)
			claimed = append(claimed, true)
		}
	}
	slices.SortStableFunc(out, func(x, y use) int { return cmp.Compare(x.at, y.at) })
	return out
}

// unclaimedCall returns the first call record in us of the tool name
// that no request has claimed and whose id no request names; -1 when
// there is none.
func unclaimedCall(us []use, claimed []bool, name string, requested map[string]bool) int {
	for i := range us {
		u := &us[i]
		if !claimed[i] && !u.fromOutput && u.tool == name && (u.id == "" || !requested[u.id]) {
			return i
		}
	}
	return -1
}

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
