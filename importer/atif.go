package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/atif"
	"github.com/agenttrace/agenttrace/semconv"
)

// ReadATIF reads an ATIF trajectory (Harbor's Agent Trajectory
// Interchange Format, any version 1.0 to 1.7; see package atif) and emits
// its spans. It is a [Func]; the document is read whole.
//
// # Mapping
//
// The document is one trace, whose id is derived from its session_id and
// trajectory_id (from its content when it has neither). Each trajectory
// (the document's, and every subagent's) is an invoke_agent span named by
// its agent, with the agent's model, version, tool definitions and
// extra, the trajectory's ids, notes, extra and final_metrics kept as
// agenttrace.atif.* attributes; final_metrics' prompt plus completion
// tokens are the run's stated total (agenttrace.final.total_tokens), which
// reports compare with the usage the steps itemize.
//
//   - A system step's message joins the system instructions of the model
//     calls after it; a user step's is a user message of the conversation.
//   - An agent step is a "chat {model}" CLIENT span: the conversation so
//     far as gen_ai.input.messages (system steps as
//     gen_ai.system_instructions), its reasoning_content, message and tool
//     calls as gen_ai.output.messages, its metrics as usage (prompt_tokens,
//     which include cached_tokens, as input tokens; cached_tokens as cache
//     read; metrics.extra's cache_creation_input_tokens and
//     reasoning_tokens), cost_usd as gen_ai.usage.cost (the call's own
//     reported cost), token ids, logprobs, reasoning_effort and extra kept.
//     It runs from the step before it to its own timestamp. A step copied
//     from an earlier context (is_copied_context) or that made no model
//     call (llm_call_count 0) is part of the conversation but no span.
//   - Each tool call is an "execute_tool {function_name}" span under the
//     agent: its arguments, and as its result the content of the
//     observation result whose source_call_id is its tool_call_id.
//   - A result's subagent_trajectory_ref is resolved against the embedded
//     subagent_trajectories (by trajectory_id, else session_id): the
//     subagent's trajectory is nested under the tool call's span (under
//     the step's span for a result of no tool call). A ref to a file is
//     kept on the span (agenttrace.atif.subagent_refs) for [LinkATIF] to
//     resolve when that file is imported too. An embedded trajectory no
//     ref names is nested under the agent that embeds it.
//   - Results of no tool call become "atif.observation" events of their
//     step's span; members the schema does not define are kept as
//     agenttrace.atif.unknown.<name> and counted in Stats.Unknown; steps
//     that cannot be read are reported with their line and left out.
func ReadATIF(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", name, err)
	}
	a := &atifReader{synth: newSynth(name, emit), lines: newOffsetLines(data)}
	t, problems, err := atif.Decode(data)
	for _, p := range problems {
		a.problem(a.lines.at(p.Offset), fmt.Errorf("%w: %v", artifact.ErrBadRecord, p))
	}
	if err != nil {
		a.problem(1, fmt.Errorf("%w: %v", artifact.ErrBadRecord, err))
		return a.done(), nil
	}
	if atif.IsRun(t) { // several traces agenttrace wrote as one document: each its own again
		for _, sub := range t.SubagentTrajectories {
			if err := a.document(sub, data); err != nil {
				return a.done(), err
			}
		}
		return a.done(), nil
	}
	err = a.document(t, data) // before done, which counts what it emitted
	return a.done(), err
}

// document emits one trajectory, its subagents nested, as one trace.
func (a *atifReader) document(t *atif.Trajectory, data []byte) error {
	key := "content:" + string(data[t.Offset:min(len(data), t.Offset+4096)])
	if t.SessionID != "" || t.TrajectoryID != "" {
		key = "session:" + t.SessionID + "\x00" + t.TrajectoryID
	}
	a.trace = traceIDFor(ATIF, key)
	a.res = pcommon.NewResource()
	a.res.Attributes().PutStr("service.name", "unknown_service")
	if t.Agent.Name != "" {
		a.res.Attributes().PutStr("service.name", t.Agent.Name)
	}
	a.session = t.SessionID
	_, err := a.trajectory(t, pcommon.SpanID{}, "", 0)
	return err
}

// Attributes the ATIF reader writes besides the GenAI ones.
const (
	atifPrefix          = "agenttrace.atif."
	atifAttrSubagentRef = atifPrefix + "subagent_refs"
	// ATIFAttrTrajectoryID, ATIFAttrSessionID and ATIFAttrPath name a
	// trajectory's agent span, for [LinkATIF].
	ATIFAttrTrajectoryID = atifPrefix + "trajectory_id"
	ATIFAttrSessionID    = atifPrefix + "session_id"
)

type atifReader struct {
	synth
	trace   pcommon.TraceID
	session string
	lines   *offsetLines
}

// atifTraj is what one trajectory's import tracks.
type atifTraj struct {
	t       *atif.Trajectory
	prefix  string // span keys' prefix: the trajectory's place in the document
	agentID pcommon.SpanID
	start   uint64
	end     uint64
	hasTime bool
	used    map[*atif.Trajectory]bool // embedded subagents already nested
	evs     *ptrace.SpanEventSlice    // the agent span's events, made on first use
}

// trajectory emits the spans of t (and its subagents') under parent, and
// returns when t's agent span ended.
func (a *atifReader) trajectory(t *atif.Trajectory, parent pcommon.SpanID, prefix string, depth int) (uint64, error) {
	tr := &atifTraj{t: t, prefix: prefix, agentID: spanIDFor(a.trace, prefix+rootKey), used: map[*atif.Trajectory]bool{}}
	times := a.stepTimes(t)
	for _, ts := range times {
		if ts != 0 {
			tr.note(ts)
		}
	}
	var hist atif.History
	for i := range t.Steps {
		s := &t.Steps[i]
		prev := times[i]
		if i > 0 {
			prev = times[i-1]
		}
		next := times[i]
		if i+1 < len(t.Steps) {
			next = max(times[i+1], times[i])
		}
		if err := a.step(tr, s, i, &hist, min(prev, times[i]), times[i], next, depth); err != nil {
			return 0, err
		}
		hist.Add(s)
	}
	for j, sub := range t.SubagentTrajectories {
		if tr.used[sub] {
			continue
		}
		end, err := a.trajectory(sub, tr.agentID, prefix+"sub:"+strconv.Itoa(j)+"/", depth+1)
		if err != nil {
			return 0, err
		}
		tr.note(end)
	}
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, a.trace, prefix+rootKey, parent, ptrace.SpanKindInternal, semconv.OpInvokeAgent, t.Agent.Name, tr.start)
	sp.SetEndTimestamp(pcommon.Timestamp(tr.end))
	a.agentAttrs(attrs, t, prefix == "")
	if tr.evs != nil {
		tr.evs.MoveAndAppendTo(sp.Events())
	}
	addEvaluations(sp.Events(), atif.Evaluations(t.Extra), tr.end)
	return tr.end, a.send(sp)
}

// note widens the trajectory's time span to include ts.
func (tr *atifTraj) note(ts uint64) {
	if !tr.hasTime || ts < tr.start {
		tr.start = ts
	}
	tr.end = max(tr.end, ts)
	tr.hasTime = true
}

// stepTimes is each step's time; a step without one (or whose time cannot
// be read, reported) takes the one before it.
func (a *atifReader) stepTimes(t *atif.Trajectory) []uint64 {
	out := make([]uint64, len(t.Steps))
	var last uint64
	for i, s := range t.Steps {
		if s.Timestamp != "" {
			raw, _ := json.Marshal(s.Timestamp)
			if ts, ok := parseTime(raw); ok {
				last = ts
			} else {
				a.problem(a.lines.at(s.Offset), fmt.Errorf("step %d: cannot read the time %q: it takes the step before's", s.StepID, s.Timestamp))
			}
		}
		out[i] = last
	}
	// Steps before the first time take it.
	first := slices.IndexFunc(out, func(v uint64) bool { return v != 0 })
	for i := 0; i < first; i++ {
		out[i] = out[first]
	}
	return out
}

// agentAttrs puts a trajectory's own members on its agent span.
func (a *atifReader) agentAttrs(attrs pcommon.Map, t *atif.Trajectory, root bool) {
	putStr(attrs, semconv.AgentName, t.Agent.Name)
	putStr(attrs, semconv.RequestModel, t.Agent.ModelName)
	putStr(attrs, semconv.ConversationID, a.session)
	putStr(attrs, atifPrefix+"agent.version", t.Agent.Version)
	putStr(attrs, atifPrefix+"schema_version", t.SchemaVersion)
	putStr(attrs, ATIFAttrSessionID, t.SessionID)
	putStr(attrs, ATIFAttrTrajectoryID, t.TrajectoryID)
	putStr(attrs, atifPrefix+"notes", t.Notes)
	putStr(attrs, atifPrefix+"continued_trajectory_ref", t.ContinuedTrajectoryRef)
	if len(t.Agent.ToolDefinitions) > 0 && string(t.Agent.ToolDefinitions) != "null" {
		attrs.PutStr(semconv.ToolDefinitions, compactJSON(t.Agent.ToolDefinitions))
	}
	putRaw(attrs, atifPrefix+"agent.extra", t.Agent.Extra)
	putRaw(attrs, atifPrefix+"extra", t.Extra)
	if fm := t.FinalMetrics; fm != nil {
		if b, err := json.Marshal(fm); err == nil {
			attrs.PutStr(atifPrefix+"final_metrics", string(b))
		}
		if root && (fm.TotalPromptTokens != nil || fm.TotalCompletionTokens != nil) {
			attrs.PutInt(finalTotalTokens, deref(fm.TotalPromptTokens)+deref(fm.TotalCompletionTokens))
		}
	}
	a.unknownMembers(attrs, t.Unknown, "member")
}

// finalTotalTokens is report.FinalTotalTokens: the run's total as the
// source states it (importer cannot import report).
const finalTotalTokens = "agenttrace.final.total_tokens"

// unknownMembers keeps members the schema does not define and counts them.
func (a *atifReader) unknownMembers(attrs pcommon.Map, m map[string]json.RawMessage, what string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		putJSONValue(attrs, atifPrefix+"unknown."+k, m[k])
		a.unknown("ATIF " + what + " " + k)
	}
}

// putRaw keeps a JSON value (an extra object) as its compact JSON text.
func putRaw(attrs pcommon.Map, key string, raw json.RawMessage) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return
	}
	attrs.PutStr(key, compactJSON(raw))
}

func deref[T int64 | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}
