package judge

import (
	"cmp"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

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
			failed:   artifact.Failed(sp, &rd),
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

func (u *use) alignKey() string { return u.tool }

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
