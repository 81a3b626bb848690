package importer

import (
	"bytes"
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/atif"
	"github.com/agenttrace/agenttrace/semconv"
)

// step emits the spans of one step (see ReadATIF): start is when the step
// before it happened, end its own time, next the time of the step after
// it (when its tool calls' results were in).
func (a *atifReader) step(tr *atifTraj, s *atif.Step, i int, hist *atif.History, start, end, next uint64, depth int) error {
	key := tr.prefix + "step:" + strconv.Itoa(i)
	// A step copied from an earlier context happened in another run: it
	// is part of the conversation, and no span of this one.
	copied := s.IsCopiedContext != nil && *s.IsCopiedContext
	isCall := s.Source == atif.SourceAgent && !copied && !(s.LLMCallCount != nil && *s.LLMCallCount == 0)
	owner := tr.agentID // the span results of no tool call go under
	if isCall {
		owner = spanIDFor(a.trace, key)
	}
	// Results by the tool call they answer; the others are the step's.
	byCall := map[string][]*atif.ObservationResult{}
	var loose []*atif.ObservationResult
	calls := map[string]bool{}
	for _, tc := range s.ToolCalls {
		calls[tc.ToolCallID] = true
	}
	if s.Observation != nil {
		for k := range s.Observation.Results {
			r := &s.Observation.Results[k]
			if r.SourceCallID != "" && calls[r.SourceCallID] {
				byCall[r.SourceCallID] = append(byCall[r.SourceCallID], r)
			} else {
				loose = append(loose, r)
			}
		}
	}
	var events []func(ptrace.SpanEventSlice)
	for _, r := range loose {
		subEnd, err := a.subagents(tr, r.SubagentTrajectoryRef, owner, key+":loose", depth)
		if err != nil {
			return err
		}
		tr.note(subEnd)
		events = append(events, func(evs ptrace.SpanEventSlice) { a.looseResult(evs, r, end) })
	}
	if isCall {
		sp := a.chatSpan(tr, s, key, hist, start, end)
		for _, ev := range events {
			ev(sp.Events())
		}
		if err := a.send(sp); err != nil {
			return err
		}
	} else if err := a.stepEvent(tr, s, end, events); err != nil {
		return err
	}
	if copied {
		return nil
	}
	for j, tc := range s.ToolCalls {
		var res *atif.ObservationResult
		if rs := byCall[tc.ToolCallID]; len(rs) > 0 {
			res, byCall[tc.ToolCallID] = rs[0], rs[1:]
		}
		if err := a.toolSpan(tr, s, &tc, res, key+":tool:"+strconv.Itoa(j), end, next, depth); err != nil {
			return err
		}
	}
	return nil
}

// chatSpan is the model call of an agent step.
func (a *atifReader) chatSpan(tr *atifTraj, s *atif.Step, key string, hist *atif.History, start, end uint64) ptrace.Span {
	model := s.ModelName
	if model == "" {
		model = tr.t.Agent.ModelName
	}
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, a.trace, key, tr.agentID, ptrace.SpanKindClient, semconv.OpChat, model, start)
	sp.SetEndTimestamp(pcommon.Timestamp(end))
	putStr(attrs, semconv.RequestModel, model)
	putStr(attrs, semconv.ConversationID, a.session)
	x, _ := s.AgentExtra()
	sys, in := hist.CallInput(s)
	if len(sys) > 0 {
		putMarshal(attrs, semconv.SystemInstructions, sys)
	}
	if len(in) > 0 {
		putMarshal(attrs, semconv.InputMessages, in)
	}
	if out := atif.StepOutput(s); len(out) > 0 && (len(out) > 1 || len(out[0].Parts) > 0) {
		putMarshal(attrs, semconv.OutputMessages, out)
	}
	if x.FinishReason != "" {
		attrs.PutEmptySlice(semconv.ResponseFinishReasons).AppendEmpty().SetStr(x.FinishReason)
	}
	addEvaluations(sp.Events(), x.Evaluations, end)
	if m := s.Metrics; m != nil {
		a.metrics(attrs, m)
	}
	a.stepAttrs(attrs, s)
	return sp
}

// metrics puts a step's metrics: usage, the reported cost, and the rest
// kept.
func (a *atifReader) metrics(attrs pcommon.Map, m *atif.Metrics) {
	var u [4]int64
	var has [4]bool
	for k, p := range []*int64{m.PromptTokens, m.CompletionTokens, m.CachedTokens} {
		if p != nil {
			u[k], has[k] = *p, true
		}
	}
	var extra map[string]json.RawMessage
	if len(m.Extra) > 0 {
		_ = json.Unmarshal(m.Extra, &extra)
	}
	if n, ok := memberInt(extra, "cache_creation_input_tokens"); ok {
		u[3], has[3] = n, true
	}
	putUsage(attrs, u, has, false) // ATIF's prompt_tokens include cached_tokens (v1.2)
	if n, ok := memberInt(extra, "reasoning_tokens"); ok {
		attrs.PutInt(semconv.UsageReasoningOutput, n)
	}
	if m.CostUSD != nil {
		attrs.PutDouble(semconv.UsageCost, *m.CostUSD)
	}
	putRaw(attrs, atifPrefix+"metrics.prompt_token_ids", m.PromptTokenIDs)
	putRaw(attrs, atifPrefix+"metrics.completion_token_ids", m.CompletionTokenIDs)
	putRaw(attrs, atifPrefix+"metrics.logprobs", m.Logprobs)
	putRaw(attrs, atifPrefix+"metrics.extra", m.Extra)
}

// stepAttrs puts a step's own members that have no GenAI attribute.
func (a *atifReader) stepAttrs(attrs pcommon.Map, s *atif.Step) {
	attrs.PutInt(atifPrefix+"step_id", s.StepID)
	if len(s.ReasoningEffort) > 0 {
		putJSONValue(attrs, atifPrefix+"reasoning_effort", s.ReasoningEffort)
	}
	if s.IsCopiedContext != nil {
		attrs.PutBool(atifPrefix+"is_copied_context", *s.IsCopiedContext)
	}
	if s.LLMCallCount != nil {
		attrs.PutInt(atifPrefix+"llm_call_count", *s.LLMCallCount)
	}
	putRaw(attrs, atifPrefix+"step.extra", ownExtra(s.Extra))
	a.unknownMembers(attrs, s.Unknown, "step member")
}

// ownExtra is a step's extra without what agenttrace keeps there, which
// the span says in its own attributes.
func ownExtra(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m[atif.ExtraKey] == nil {
		return raw
	}
	delete(m, atif.ExtraKey)
	if len(m) == 0 {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

// stepEvent keeps a step that is no model call (system, user, copied or
// callless agent steps) as an "atif.step" event of its agent span, with
// its members the conversation does not carry, and the results of no
// tool call.
func (a *atifReader) stepEvent(tr *atifTraj, s *atif.Step, ts uint64, events []func(ptrace.SpanEventSlice)) error {
	ev := tr.events().AppendEmpty()
	ev.SetName("atif.step")
	ev.SetTimestamp(pcommon.Timestamp(ts))
	attrs := ev.Attributes()
	attrs.PutStr(atifPrefix+"source", s.Source)
	putStr(attrs, semconv.RequestModel, s.ModelName)
	if s.Metrics != nil {
		a.metrics(attrs, s.Metrics)
	}
	a.stepAttrs(attrs, s)
	for _, e := range events {
		e(tr.events())
	}
	return nil
}

// events are the events the trajectory's agent span will carry.
func (tr *atifTraj) events() ptrace.SpanEventSlice {
	if tr.evs == nil {
		s := ptrace.NewSpanEventSlice()
		tr.evs = &s
	}
	return *tr.evs
}

// looseResult keeps a result of no tool call as an event.
func (a *atifReader) looseResult(evs ptrace.SpanEventSlice, r *atif.ObservationResult, ts uint64) {
	ev := evs.AppendEmpty()
	ev.SetName("atif.observation")
	ev.SetTimestamp(pcommon.Timestamp(ts))
	attrs := ev.Attributes()
	putStr(attrs, atifPrefix+"source_call_id", r.SourceCallID)
	if r.Content != nil {
		attrs.PutStr(atifPrefix+"content", resultString(*r.Content))
	}
	putRefs(attrs, r.SubagentTrajectoryRef)
	putRaw(attrs, atifPrefix+"result.extra", r.Extra)
}

// toolSpan is the execute_tool span of a tool call and its result.
func (a *atifReader) toolSpan(tr *atifTraj, s *atif.Step, tc *atif.ToolCall, res *atif.ObservationResult, key string, start, end uint64, depth int) error {
	id := spanIDFor(a.trace, key)
	if res != nil {
		subEnd, err := a.subagents(tr, res.SubagentTrajectoryRef, id, key, depth)
		if err != nil {
			return err
		}
		end = max(end, subEnd)
		tr.note(end)
	}
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, a.trace, key, tr.agentID, ptrace.SpanKindInternal, semconv.OpExecuteTool, tc.FunctionName, start)
	sp.SetEndTimestamp(pcommon.Timestamp(max(end, start)))
	putStr(attrs, semconv.ToolName, tc.FunctionName)
	putStr(attrs, semconv.ToolCallID, tc.ToolCallID)
	putStr(attrs, semconv.ConversationID, a.session)
	attrs.PutInt(atifPrefix+"step_id", s.StepID)
	if args, ok := extraArguments(tc.Extra); ok {
		attrs.PutStr(semconv.ToolCallArguments, args) // arguments that were no object, as agenttrace wrote them
	} else if len(tc.Arguments) > 0 && string(tc.Arguments) != "null" {
		attrs.PutStr(semconv.ToolCallArguments, compactJSON(tc.Arguments))
	}
	putRaw(attrs, atifPrefix+"tool_call.extra", tc.Extra)
	if res != nil {
		if res.Content != nil {
			attrs.PutStr(semconv.ToolCallResult, resultString(*res.Content))
		}
		putRefs(attrs, res.SubagentTrajectoryRef)
		putRaw(attrs, atifPrefix+"result.extra", res.Extra)
	}
	return a.send(sp)
}

// addEvaluations adds the verdicts agenttrace kept in an extra as the
// gen_ai.evaluation.result events they were.
func addEvaluations(evs ptrace.SpanEventSlice, list []semconv.Evaluation, ts uint64) {
	for _, e := range list {
		ev := evs.AppendEmpty()
		ev.SetName(semconv.EventEvaluationResult)
		ev.SetTimestamp(pcommon.Timestamp(ts))
		attrs := ev.Attributes()
		if e.Name != semconv.UnnamedEvaluation {
			putStr(attrs, semconv.EvaluationName, e.Name)
		}
		if e.Score != nil {
			attrs.PutDouble(semconv.EvaluationScoreValue, *e.Score)
		}
		putStr(attrs, semconv.EvaluationScoreLabel, e.Label)
		putStr(attrs, semconv.EvaluationExplanation, e.Explanation)
		putStr(attrs, semconv.ResponseID, e.ResponseID)
		putStr(attrs, semconv.ErrorType, e.ErrorType)
	}
}

// extraArguments reads the arguments text agenttrace keeps in a tool
// call's extra when they were no JSON object (atif.ExtraKey).
func extraArguments(extra json.RawMessage) (string, bool) {
	var x map[string]struct {
		Arguments *string `json:"arguments"`
	}
	if len(extra) == 0 || json.Unmarshal(extra, &x) != nil || x[atif.ExtraKey].Arguments == nil {
		return "", false
	}
	return *x[atif.ExtraKey].Arguments, true
}

// resultString is a result as an attribute: its string, or its parts'
// JSON.
func resultString(c atif.Content) string {
	if c.Parts == nil {
		return c.Text
	}
	b, err := json.Marshal(c.Parts)
	if err != nil {
		return c.String()
	}
	return string(b)
}

// putRefs keeps subagent refs as JSON, for LinkATIF and for reading.
func putRefs(attrs pcommon.Map, refs []atif.SubagentRef) {
	if len(refs) == 0 {
		return
	}
	if b, err := json.Marshal(refs); err == nil {
		attrs.PutStr(atifAttrSubagentRef, string(b))
	}
}

// subagents nests the embedded trajectories refs name under parent; it
// returns when the last of them ended (0 for none).
func (a *atifReader) subagents(tr *atifTraj, refs []atif.SubagentRef, parent pcommon.SpanID, key string, depth int) (uint64, error) {
	var end uint64
	for k, ref := range refs {
		sub := tr.embedded(ref)
		if sub == nil {
			continue // a file: kept on the span, for LinkATIF
		}
		tr.used[sub] = true
		e, err := a.trajectory(sub, parent, key+":sub:"+strconv.Itoa(k)+"/", depth+1)
		if err != nil {
			return 0, err
		}
		end = max(end, e)
	}
	return end, nil
}

// embedded is the embedded trajectory ref names and not yet nested: by
// trajectory_id (v1.7), else by session_id (as before v1.7).
func (tr *atifTraj) embedded(ref atif.SubagentRef) *atif.Trajectory {
	for _, match := range []func(*atif.Trajectory) bool{
		func(t *atif.Trajectory) bool { return ref.TrajectoryID != "" && t.TrajectoryID == ref.TrajectoryID },
		func(t *atif.Trajectory) bool {
			return ref.TrajectoryID == "" && ref.SessionID != "" && t.SessionID == ref.SessionID
		},
	} {
		for _, t := range tr.t.SubagentTrajectories {
			if !tr.used[t] && match(t) {
				return t
			}
		}
	}
	return nil
}

// putMarshal puts v as its JSON text.
func putMarshal(attrs pcommon.Map, key string, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		attrs.PutStr(key, string(bytes.TrimRight(b.Bytes(), "\n")))
	}
}
