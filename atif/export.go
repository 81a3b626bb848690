package atif

import (
	"cmp"
	"encoding/json"
	"io"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// Export writes the run recs (and logs, where GenAI content may be) as
// one ATIF-v1.7 document: [FromRecords], [Combine], [Write].
func Export(w io.Writer, recs []artifact.Record, logs []artifact.LogRecord) error {
	return Write(w, Combine(FromRecords(recs, logs)))
}

// FromRecords makes one ATIF-v1.7 trajectory per trace of recs, from any
// artifact whatever dialect it came from: the conversation is the
// normalized one (converter.ModelCalls, as messages and the page read
// it), the usage and cost those of the tally.
//
//   - Each agent that made model or tool calls (an invoke_agent span, or
//     any span of kind agent) is a trajectory; the outermost is the
//     trace's, the others are embedded in it as subagent_trajectories and
//     referred to (by trajectory_id) from the result of the tool call that
//     ran them, or from a system step's observation.
//   - A model call is an agent step: its output's text as message,
//     reasoning as reasoning_content, tool calls as tool_calls (with the
//     result of the execute_tool span of the same call id, else of the
//     tool message a later call was sent, as the observation), its usage
//     as metrics (input tokens as prompt_tokens, which include cached
//     ones; cache creation and reasoning tokens in metrics.extra), its
//     cost (its own, else priced) as cost_usd.
//   - The messages a call was sent that are new since the call before are
//     user steps (a user message), or agent steps marked
//     is_copied_context (an assistant message the trace has no call for).
//     The system instructions are system steps. Where the steps do not
//     give back a call's input, output or system instructions exactly (a
//     sliding window, a part ATIF has no field for), the step's extra
//     keeps them under "agenttrace" (see [StepExtra]), which the importer
//     reads.
//   - A tool call no model call asked for is an agent step with
//     llm_call_count 0.
//   - The gen_ai.evaluation.result verdicts on a model call are kept in
//     its step's extra ([StepExtra].Evaluations), those on an agent in its
//     trajectory's extra (see [Evaluations]).
//   - final_metrics are the tally's totals of the trajectory's own spans
//     and its subagents', total_cost_usd when every call's cost is known.
func FromRecords(recs []artifact.Record, logs []artifact.LogRecord) []*Trajectory {
	view := converter.LogsAsEvents(recs, logs)
	var out []*Trajectory
	for _, tr := range byTrace(view) {
		out = append(out, newExporter(tr).trace())
	}
	return out
}

// RunTrajectoryID is the trajectory_id of the run trajectory [Combine]
// makes; [IsRun] tells it, for an importer to give back the traces.
const RunTrajectoryID = "agenttrace-run"

// IsRun reports whether t is a run trajectory [Combine] made: it only
// embeds one trace's trajectory per subagent.
func IsRun(t *Trajectory) bool {
	return t.TrajectoryID == RunTrajectoryID && t.Agent.Name == "agenttrace" && len(t.Steps) == 1 &&
		t.Steps[0].Source == SourceSystem && len(t.SubagentTrajectories) > 1
}

// Combine makes one document of several traces' trajectories: the only
// one as it is, or a run trajectory (see [IsRun]) that embeds them all,
// referred to from one system step.
func Combine(ts []*Trajectory) *Trajectory {
	if len(ts) == 1 {
		return ts[0]
	}
	root := &Trajectory{SchemaVersion: SchemaVersion, TrajectoryID: RunTrajectoryID,
		Agent: Agent{Name: "agenttrace", Version: "1"}}
	step := Step{StepID: 1, Source: SourceSystem, Message: Content{Text: "a run of several traces"}}
	obs := ObservationResult{}
	for _, t := range ts {
		obs.SubagentTrajectoryRef = append(obs.SubagentTrajectoryRef, SubagentRef{TrajectoryID: t.TrajectoryID, SessionID: t.SessionID})
		root.SubagentTrajectories = append(root.SubagentTrajectories, t)
		if len(t.Steps) > 0 && step.Timestamp == "" {
			step.Timestamp = t.Steps[0].Timestamp
		}
	}
	if len(ts) > 0 {
		step.Observation = &Observation{Results: []ObservationResult{obs}}
	}
	root.Steps = []Step{step}
	root.FinalMetrics = sumFinal(ts, 1)
	return root
}

// byTrace splits recs by trace, in the order the traces first appear.
func byTrace(recs []artifact.Record) [][]artifact.Record {
	index := map[pcommon.TraceID]int{}
	var out [][]artifact.Record
	for _, r := range recs {
		id := r.Span.TraceID()
		i, ok := index[id]
		if !ok {
			i = len(out)
			index[id] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

// exporter makes the trajectories of one trace.
type exporter struct {
	recs     []artifact.Record
	kinds    []semconv.Kind
	index    map[pcommon.SpanID]int
	calls    map[int]converter.ModelCall // model calls by record index
	owner    []int                       // the trajectory (agent record index, -1 the trace's) each record belongs to
	agents   map[int]*agentTraj          // trajectories by agent record index (-1: the trace's own)
	toolByID map[string]int              // execute_tool records by call id
	used     map[int]bool                // tool records a step has shown
}

// agentTraj is one trajectory being made: its agent's record (-1 for the
// trace's) and what it owns.
type agentTraj struct {
	rec      int
	parent   int // the trajectory it is embedded in (-2 for none)
	items    []int
	children []int
	t        *Trajectory
}

func newExporter(recs []artifact.Record) *exporter {
	e := &exporter{recs: recs, kinds: make([]semconv.Kind, len(recs)), index: map[pcommon.SpanID]int{},
		calls: map[int]converter.ModelCall{}, owner: make([]int, len(recs)), agents: map[int]*agentTraj{},
		toolByID: map[string]int{}, used: map[int]bool{}}
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		e.kinds[i] = rd.Kind
		e.index[recs[i].Span.SpanID()] = i
		if rd.Kind == semconv.Call {
			if id := rd.Str(semconv.FieldToolCallID); id != "" {
				if _, dup := e.toolByID[id]; !dup {
					e.toolByID[id] = i
				}
			}
		}
	}
	for _, mc := range converter.ModelCalls(recs) {
		e.calls[mc.Index] = mc
	}
	return e
}

// ownerOf is the nearest agent above record i that is a trajectory
// candidate (-1: none, the trace's own).
func (e *exporter) ownerOf(i int) int {
	p := e.recs[i].Span.ParentSpanID()
	for hops := 0; hops < len(e.recs) && !p.IsEmpty(); hops++ {
		j, ok := e.index[p]
		if !ok {
			return -1
		}
		if e.kinds[j] == semconv.Agent {
			return j
		}
		p = e.recs[j].Span.ParentSpanID()
	}
	return -1
}

// trace makes the trace's trajectory, its subagents embedded.
func (e *exporter) trace() *Trajectory {
	// What each agent owns: its model calls and tool calls.
	for i := range e.recs {
		e.owner[i] = -2
		_, isCall := e.calls[i]
		if isCall || e.kinds[i] == semconv.Call {
			o := e.ownerOf(i)
			e.owner[i] = o
			e.agent(o).items = append(e.agent(o).items, i)
		}
	}
	// Agents that own something nest in the nearest owning agent above.
	for _, k := range slices.Sorted(mapsKeys(e.agents)) {
		if k < 0 {
			continue
		}
		p := e.ownerOf(k)
		for p >= 0 && e.agents[p] == nil {
			p = e.ownerOf(p)
		}
		e.agents[k].parent = p
		e.agent(p).children = append(e.agent(p).children, k)
	}
	top := e.agent(-1)
	if len(top.items) == 0 && len(top.children) == 1 {
		// The trace is one agent's: its trajectory is the document.
		only := e.agents[top.children[0]]
		only.parent = -2
		return e.build(only)
	}
	top.parent = -2
	return e.build(top)
}

// agent returns the trajectory of agent record k (-1: the trace's),
// making it.
func (e *exporter) agent(k int) *agentTraj {
	a := e.agents[k]
	if a == nil {
		a = &agentTraj{rec: k, parent: -2}
		e.agents[k] = a
	}
	return a
}

func mapsKeys(m map[int]*agentTraj) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// build makes a's trajectory and, first, its children's.
func (e *exporter) build(a *agentTraj) *Trajectory {
	t := &Trajectory{SchemaVersion: SchemaVersion}
	a.t = t
	e.identify(a)
	for _, c := range a.children {
		t.SubagentTrajectories = append(t.SubagentTrajectories, e.build(e.agents[c]))
	}
	check(t, e.steps(a))
	t.FinalMetrics = e.finalMetrics(a)
	return t
}

// identify fills a trajectory's agent and ids from its agent span (the
// trace's first root for the trace's own).
func (e *exporter) identify(a *agentTraj) {
	t := a.t
	rec := a.rec
	if rec < 0 {
		rec = slices.IndexFunc(e.recs, func(r artifact.Record) bool { return r.Span.ParentSpanID().IsEmpty() })
	}
	t.Agent = Agent{Name: "unknown_agent", Version: "unknown"}
	traceID := e.recs[0].Span.TraceID()
	t.TrajectoryID = "trace-" + traceID.String()
	t.SessionID = traceID.String()
	if rec < 0 {
		return
	}
	sp := e.recs[rec].Span
	var rd semconv.Reading
	e.recs[rec].Read(&rd)
	attrs := sp.Attributes()
	svc, _ := e.recs[rec].Resource.Attributes().Get("service.name")
	t.Agent.Name = cmp.Or(rd.Str(semconv.FieldAgent), svc.AsString(), sp.Name(), t.Agent.Name)
	t.Agent.Version = cmp.Or(str(attrs, "agenttrace.atif.agent.version"), t.Agent.Version)
	t.Agent.ModelName = rd.Model()
	t.Agent.ToolDefinitions, t.Agent.Extra = toolDefinitions(str(attrs, semconv.ToolDefinitions))
	if conv := rd.Str(semconv.FieldConversationID); conv != "" {
		t.SessionID = conv
	}
	if a.rec >= 0 {
		t.TrajectoryID = "agent-" + sp.SpanID().String()
	}
	t.TrajectoryID = cmp.Or(str(attrs, "agenttrace.atif.trajectory_id"), t.TrajectoryID)
	if evs := semconv.Evaluations(sp); len(evs) > 0 && a.rec >= 0 {
		t.Extra, _ = marshal(map[string]any{ExtraKey: map[string]any{"evaluations": evs}})
	}
}

// toolDefinitions are a span's tool definitions as ATIF's list of
// objects; a list of anything else goes to the agent's extra.
func toolDefinitions(defs string) (json.RawMessage, json.RawMessage) {
	if defs == "" {
		return nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal([]byte(defs), &list) == nil && len(list) > 0 &&
		!slices.ContainsFunc(list, func(d json.RawMessage) bool { return firstNonSpace(string(d)) != '{' }) {
		return json.RawMessage(defs), nil
	}
	extra, err := marshal(map[string]any{ExtraKey: map[string]any{"tool_definitions": jsonValue([]byte(defs))}})
	if err != nil {
		return nil, nil
	}
	return nil, extra
}

// str is a string attribute ("" when absent or not a string).
func str(attrs pcommon.Map, key string) string {
	if v, ok := attrs.Get(key); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

func firstNonSpace(s string) byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// spanOf is record i's span.
func (e *exporter) spanOf(i int) ptrace.Span { return e.recs[i].Span }
