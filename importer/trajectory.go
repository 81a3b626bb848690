package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// ReadTrajectory reads a trajectory log (dialects.md §3) and emits its
// spans. It is a [Func].
//
// # Mapping
//
// The file is one trace, whose id is derived from the metadata's
// session_id (from the first line when there is none).
//
//   - The metadata line is the root invoke_agent span: gen_ai.agent.name
//     from its agent (agent, agent_name, product) or else the product, the
//     model as gen_ai.request.model, session_id as gen_ai.conversation.id,
//     the line itself as agenttrace.trajectory.metadata. The product is
//     named by the version key ("coditect_version": service.name
//     "coditect", service.version its value) and goes on the resource.
//     The root runs from started_at to final's ended_at, widened to cover
//     every span of the file; it is emitted last. final's members are kept
//     as agenttrace.final.<key>, and a final_status other than a success
//     (success, completed, ok, done…) is an error status with that
//     error.type. A final that says the run completed wins over error
//     records of the run itself (the seed's logger writes "completed" after
//     errors it recovered from): they stay on the root as events named
//     "error", with the exception.* attributes, and the root does not fail.
//     A log without a final record was cut short: its root has an error
//     status (error.type "incomplete" unless an error record set one).
//     final's total_tokens has no input/output split and is only kept.
//   - task_id and parent_task_id give the agent tree: agent_dispatch opens
//     an "invoke_agent {agent_type}" span for its task under the span of
//     its parent task (parent_task_id, else the task id's prefix: A.1.1
//     under A.1), agent_complete closes it with its usage (gen_ai.usage.*),
//     result_preview as output message and child_calls. An agent's usage
//     covers its model calls and its sub-agents'; the seed's iterations
//     carry none, so the part of it that no record below was counted for
//     becomes one leaf "chat" record under the agent, marked
//     agenttrace.trajectory.usage_of "agent_complete": the totals count
//     each token once (agent spans never count). A record belongs to
//     the innermost open agent span of its task id or the task id's
//     prefixes, else to the root. An agent span never completed is closed
//     as an error span "incomplete" at final, or at the end of the input.
//   - tool_call is an "execute_tool {tool_name}" span ending at its
//     timestamp and starting duration_ms before; tool_input is the
//     arguments, output the result. success false is an error status,
//     error.type the error's type or "tool_error". An output the log
//     truncated (an explicit flag, or exactly 5000 characters, the log's
//     cap) keeps what is there, with agenttrace.truncated true and
//     agenttrace.full_length when the log gives the original length, else
//     agenttrace.truncated_at, the length kept.
//   - skill_invoke is the same with gen_ai.tool.type "skill".
//   - iteration is a "chat {model}" CLIENT span: the log gives only its end,
//     so it starts at the previous record of the same agent (its dispatch,
//     the last tool call's end, the last iteration), which is when the
//     agent loop turned to the model. prompt_preview is its input message,
//     thinking (a reasoning part) and response_preview its output message,
//     whose finish_reason is "tool_call" when tool_calls_in_response says
//     tools were called, else "stop". Usage, when present, is
//     gen_ai.usage.*.
//   - error is an "exception" event (exception.type, .message,
//     .stacktrace) on the span the record belongs to, which gets an error
//     status and error.type.
//
// Usage objects use Anthropic's names (input_tokens, output_tokens,
// cache_read_input_tokens, cache_creation_input_tokens) and, like
// Anthropic's, their input excludes the cached tokens, which are added to
// gen_ai.usage.input_tokens (OTel counts them in it); see [ReadTranscript].
//
// Timestamps are ISO 8601; one without a zone is UTC. Records of types the
// shape does not define are counted in Stats.Unknown; lines that are not
// JSON are reported in Stats.Problems and skipped. Only open agent spans
// and the root are held.
func ReadTrajectory(r io.Reader, name string, emit func(*converter.Record) error) (Stats, error) {
	t := trajectoryReader{io: newLineIO(r, name, emit), tasks: map[string]*trajectoryTask{}}
	err := t.io.each(t.line)
	if err == nil {
		err = t.finish()
	}
	return t.io.done(), err
}

// Attributes the trajectory reader writes besides the GenAI ones.
const (
	trajectoryAttrMetadata    = "agenttrace.trajectory.metadata"
	trajectoryAttrPayload     = "agenttrace.trajectory.payload"
	trajectoryAttrTaskID      = "agenttrace.trajectory.task_id"
	trajectoryAttrParentTask  = "agenttrace.trajectory.parent_task_id"
	trajectoryAttrDepth       = "agenttrace.trajectory.depth"
	trajectoryAttrChildCalls  = "agenttrace.trajectory.child_calls"
	trajectoryAttrIteration   = "agenttrace.trajectory.iteration"
	trajectoryAttrToolCallsIn = "agenttrace.trajectory.tool_calls_in_response"
	trajectoryFinalPrefix     = "agenttrace.final."
	trajectoryUsageOf         = "agent_complete"
	trajectoryAttrUsageOf     = "agenttrace.trajectory.usage_of"
	// trajectoryRecoveredError names the event of an error record on the
	// root of a run whose final says it completed.
	trajectoryRecoveredError = "error"
	trajectoryOutputCap      = 5000 // characters the log keeps of a tool's output
)

type trajectoryReader struct {
	io      *lineIO
	started bool // the trace's identity is set
	trace   pcommon.TraceID
	rootID  pcommon.SpanID
	root    ptrace.Span
	convID  string
	model   string
	agent   string

	hasMetaStart     bool // rootStart is the metadata's started_at
	rootStart        uint64
	final            bool
	finalEnd         uint64
	minStart, maxEnd uint64
	spans            bool // minStart/maxEnd are set
	rootLast         uint64
	lastTime         uint64

	tasks map[string]*trajectoryTask // open agent spans by task id

	rootCounted [4]int64 // usage counted under the root, outside any open agent
	finalOK     bool     // final's status is a success
}

// trajectoryTask is an open agent span.
type trajectoryTask struct {
	id    string
	span  ptrace.Span
	line  int
	depth int
	last  uint64 // time of the last record under it
	// counted is the usage the records below it were counted for (model
	// calls', and sub-agents' reported usage), as the log has it.
	counted [4]int64
}

// start sets the trace's identity and the resource, from the first line.
func (t *trajectoryReader) start(line []byte, f map[string]json.RawMessage, isMeta bool) {
	t.started = true
	key := "line:" + string(line)
	if isMeta {
		t.convID = memberStr(f, "session_id", "sessionid")
		if t.convID != "" {
			key = "session:" + t.convID
		}
		t.model = memberStr(f, "model")
		product, version := trajectoryProduct(line)
		t.agent = cmp.Or(memberStr(f, "agent", "agent_name", "product", "product_name"), product)
		// The resource names no service until the metadata does.
		attrs := t.io.res.Attributes()
		if service := cmp.Or(product, memberStr(f, "product", "product_name"), t.agent); service != "" {
			attrs.PutStr("service.name", service)
		}
		if product != "" {
			attrs.PutStr("service.version", version)
		}
	}
	t.trace = traceIDFor(Trajectory, key)
	t.rootID = spanIDFor(t.trace, rootKey)
	t.root = ptrace.NewSpan()
	if isMeta {
		t.root.Attributes().PutStr(trajectoryAttrMetadata, string(line))
	}
}

// trajectoryProduct returns the product the metadata's version key names
// ("coditect_version": "coditect") and the version: the first key, in
// the line's order, ending in _version (or Version) that is not the
// version of something else (python_version, schema_version…).
func trajectoryProduct(line []byte) (product, version string) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", ""
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		k, _ := tok.(string)
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return "", ""
		}
		p, ok := strings.CutSuffix(k, "_version")
		if !ok {
			p, ok = strings.CutSuffix(k, "Version")
		}
		if !ok || p == "" {
			continue
		}
		switch strings.ToLower(p) {
		case "python", "node", "schema", "format", "os", "api", "sdk", "protocol", "log", "trajectory",
			"go", "runtime", "model", "file", "spec":
			continue
		}
		if v := rawString(raw); v != "" {
			return p, v
		}
	}
	return "", ""
}

func (t *trajectoryReader) line(line []byte) error {
	f, err := objectFields(line)
	if err != nil {
		t.io.bad(err)
		return nil
	}
	typ := memberStr(f, "type", "event", "event_type")
	if typ == "" {
		t.io.bad(errors.New(`record has no "type"`))
		return nil
	}
	if !t.started {
		t.start(line, f, typ == "metadata")
		if typ == "metadata" {
			if ts, ok := t.time(f, "started_at", "start_time", "timestamp"); ok {
				t.hasMetaStart, t.rootStart, t.rootLast, t.lastTime = true, ts, ts, ts
			}
			return nil
		}
	}
	switch typ {
	case "metadata", "tool_call", "skill_invoke", "agent_dispatch", "agent_complete", "iteration", "error", "final":
	default:
		t.io.unknown(typ)
		return nil
	}
	ts, ok := t.time(f, "timestamp", "time", "ts")
	if !ok {
		ts = t.lastTime
	}
	t.lastTime = max(t.lastTime, ts)
	task := memberStr(f, "task_id", "taskid")
	switch typ {
	case "metadata": // a second one: kept on the root
		ev := t.root.Events().AppendEmpty()
		ev.SetName(typ)
		ev.SetTimestamp(pcommon.Timestamp(ts))
		ev.Attributes().PutStr(trajectoryAttrPayload, string(line))
		t.cover(ts, ts)
	case "tool_call", "skill_invoke":
		return t.tool(f, typ, task, ts)
	case "agent_dispatch":
		return t.dispatch(f, task, ts)
	case "agent_complete":
		return t.complete(f, task, ts)
	case "iteration":
		return t.iteration(f, task, ts)
	case "error":
		t.errorEvent(f, task, ts)
	case "final":
		return t.finalRecord(f, ts)
	}
	return nil
}

// time reads a time member; one that cannot be read is reported.
func (t *trajectoryReader) time(f map[string]json.RawMessage, names ...string) (uint64, bool) {
	if k := memberKey(f, names...); k != "" {
		return t.io.time(f[k])
	}
	return 0, false
}

// cover widens the root to cover [start, end].
func (t *trajectoryReader) cover(start, end uint64) {
	if !t.spans {
		t.minStart, t.maxEnd, t.spans = start, end, true
		return
	}
	t.minStart = min(t.minStart, start)
	t.maxEnd = max(t.maxEnd, end)
}

// trajectoryParentTask is the task id's parent: A.1 for A.1.1, "" for A.
func trajectoryParentTask(id string) string {
	if i := strings.LastIndexByte(id, '.'); i > 0 {
		return id[:i]
	}
	return ""
}

// owner returns the innermost open agent span of task or its prefixes,
// nil for the root.
func (t *trajectoryReader) owner(task string) *trajectoryTask {
	for id := task; id != ""; id = trajectoryParentTask(id) {
		if tk := t.tasks[id]; tk != nil {
			return tk
		}
	}
	return nil
}

func (t *trajectoryReader) spanID(tk *trajectoryTask) pcommon.SpanID {
	if tk == nil {
		return t.rootID
	}
	return tk.span.SpanID()
}

// touch records that something under tk (nil: the root) happened at ts,
// and returns when the record before it happened.
func (t *trajectoryReader) touch(tk *trajectoryTask, ts uint64) (prev uint64) {
	if tk == nil {
		prev, t.rootLast = t.rootLast, max(t.rootLast, ts)
		return prev
	}
	prev, tk.last = tk.last, max(tk.last, ts)
	return prev
}

// newSpan returns the span of the current line under parent (see
// startSpan), ending at end, with the trace's conversation id and the
// record's task id.
func (t *trajectoryReader) newSpan(parent pcommon.SpanID, kind ptrace.SpanKind, op, name, task string, start, end uint64) ptrace.Span {
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, t.trace, t.lineKey(), parent, kind, op, name, start)
	sp.SetEndTimestamp(pcommon.Timestamp(max(end, start)))
	putStr(attrs, semconv.ConversationID, t.convID)
	putStr(attrs, trajectoryAttrTaskID, task)
	return sp
}

func (t *trajectoryReader) lineKey() string { return "line:" + strconv.Itoa(t.io.lines.Line()) }

// send emits sp, which the root covers.
func (t *trajectoryReader) send(sp ptrace.Span) error {
	t.cover(uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp()))
	return t.io.send(sp)
}

func (t *trajectoryReader) tool(f map[string]json.RawMessage, typ, task string, ts uint64) error {
	tk := t.owner(task)
	t.touch(tk, ts)
	start := durationStart(f, ts, "duration_ms", "durationms", "elapsed_ms")
	var name, argsKey, resKey string
	if typ == "skill_invoke" {
		name = memberStr(f, "skill_name", "skill", "name")
		argsKey = memberKey(f, "args", "skill_input", "input", "arguments")
		resKey = memberKey(f, "result", "output")
	} else {
		name = memberStr(f, "tool_name", "tool", "name")
		argsKey = memberKey(f, "tool_input", "input", "args", "arguments")
		resKey = memberKey(f, "output", "result", "tool_output")
	}
	sp := t.newSpan(t.spanID(tk), ptrace.SpanKindInternal, semconv.OpExecuteTool, name, task, start, ts)
	attrs := sp.Attributes()
	putStr(attrs, semconv.ToolName, name)
	if typ == "skill_invoke" {
		attrs.PutStr(semconv.ToolType, "skill")
	}
	putStr(attrs, semconv.ToolCallID, memberStr(f, "tool_call_id", "tool_use_id", "call_id"))
	if raw, ok := f[argsKey]; ok && argsKey != "" && string(raw) != "null" {
		attrs.PutStr(semconv.ToolCallArguments, resultText(raw))
	}
	if raw, ok := f[resKey]; ok && resKey != "" && string(raw) != "null" {
		out := resultText(raw)
		attrs.PutStr(semconv.ToolCallResult, out)
		if typ == "tool_call" && firstByte(raw) == '"' {
			t.truncation(f, attrs, out)
		}
	}
	t.status(f, sp, errTool)
	return t.send(sp)
}

// truncation records that the log cut a tool's output.
func (t *trajectoryReader) truncation(f map[string]json.RawMessage, attrs pcommon.Map, out string) {
	flag := false
	if k := memberKey(f, "output_truncated", "truncated"); k != "" {
		flag = string(bytes.TrimSpace(f[k])) == "true"
	}
	full, hasFull := memberInt(f, "output_length", "full_length", "original_length", "output_full_length",
		"total_length", "output_chars")
	n := -1
	if len(out) >= trajectoryOutputCap {
		n = utf8.RuneCountInString(out)
		if n != trajectoryOutputCap && trajectoryUTF16Len(out) == trajectoryOutputCap {
			n = trajectoryOutputCap // a JavaScript writer counts UTF-16 units
		}
	}
	switch {
	case hasFull && full > int64(max(n, utf8.RuneCountInString(out))):
		attrs.PutBool(attrTruncated, true)
		attrs.PutInt(attrFullLength, full)
	case flag:
		attrs.PutBool(attrTruncated, true)
		if hasFull {
			attrs.PutInt(attrFullLength, full)
		} else {
			attrs.PutInt(attrTruncatedAt, int64(utf8.RuneCountInString(out)))
		}
	case n == trajectoryOutputCap:
		attrs.PutBool(attrTruncated, true)
		attrs.PutInt(attrTruncatedAt, trajectoryOutputCap)
	}
}

func trajectoryUTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// status sets an error status when the record says it failed: success
// false, a failure status, or an error. error.type is the error's type, or
// code when it has none.
func (t *trajectoryReader) status(f map[string]json.RawMessage, sp ptrace.Span, code string) {
	okKey := memberKey(f, "success", "ok")
	failed := okKey != "" && string(bytes.TrimSpace(f[okKey])) == "false"
	if st := strings.ToLower(memberStr(f, "status")); st == "error" || st == "failed" || st == "failure" {
		failed = true
	}
	errType, errMsg := "", ""
	if k := memberKey(f, "error"); k != "" {
		raw := f[k]
		switch firstByte(raw) {
		case '{':
			ef, _ := objectFields(raw)
			errType = memberStr(ef, "type", "error_type", "name", "code")
			errMsg = memberStr(ef, "message", "error_message", "msg")
		case '"':
			errMsg = rawString(raw)
		}
		if okKey == "" && (errType != "" || errMsg != "") {
			failed = true // an error and no success flag
		}
	}
	errType = cmp.Or(errType, memberStr(f, "error_type"))
	errMsg = cmp.Or(errMsg, memberStr(f, "error_message"))
	if failed {
		setError(sp, cmp.Or(errType, code), shortMessage(errMsg))
	}
}

// agentSpan is the invoke_agent span of task from start to end, under the
// open agent span of its parent task (parent_task_id, else the task id's
// prefix), which it returns with the parent_task_id the record names.
func (t *trajectoryReader) agentSpan(f map[string]json.RawMessage, task string, start, end uint64) (
	sp ptrace.Span, parent *trajectoryTask, parentTask string) {
	parentTask = memberStr(f, "parent_task_id", "parenttaskid")
	parent = t.owner(cmp.Or(parentTask, trajectoryParentTask(task)))
	agentType := memberStr(f, "agent_type", "agent", "agent_name")
	sp = t.newSpan(t.spanID(parent), ptrace.SpanKindInternal, semconv.OpInvokeAgent, agentType, task, start, end)
	putStr(sp.Attributes(), semconv.AgentName, agentType)
	return sp, parent, parentTask
}

// durationStart is when a record that ends at ts started, by its duration
// in milliseconds (the member named one of names); ts when it has none.
func durationStart(f map[string]json.RawMessage, ts uint64, names ...string) uint64 {
	if d, ok := memberDuration(f, names...); ok && d > 0 {
		return ts - min(uint64(d), ts)
	}
	return ts
}

func (t *trajectoryReader) dispatch(f map[string]json.RawMessage, task string, ts uint64) error {
	if old := t.tasks[task]; old != nil { // dispatched again while open
		if err := t.closeIncomplete(old, ts); err != nil {
			return err
		}
	}
	sp, parent, parentTask := t.agentSpan(f, task, ts, ts)
	t.touch(parent, ts)
	attrs := sp.Attributes()
	putStr(attrs, trajectoryAttrParentTask, parentTask)
	depth, hasDepth := memberInt(f, "depth")
	if hasDepth {
		attrs.PutInt(trajectoryAttrDepth, depth)
	} else {
		depth = int64(strings.Count(task, "."))
	}
	if p := memberStr(f, "prompt_preview", "prompt"); p != "" {
		attrs.PutStr(semconv.InputMessages, string(appendMessages(nil, "user", "", chatPart{"text", p})))
	}
	if task == "" { // an agent without a task id cannot be completed: it ends at the end
		task = t.lineKey()
	}
	t.tasks[task] = &trajectoryTask{id: task, span: sp, line: t.io.lines.Line(), depth: int(depth), last: ts}
	return nil
}

func (t *trajectoryReader) complete(f map[string]json.RawMessage, task string, ts uint64) error {
	tk := t.tasks[task]
	if tk == nil { // its dispatch is not in the log
		sp, _, _ := t.agentSpan(f, task, durationStart(f, ts, "duration_ms", "durationms"), ts)
		tk = &trajectoryTask{id: task, span: sp, line: t.io.lines.Line()}
	} else {
		delete(t.tasks, task)
	}
	sp := tk.span
	sp.SetEndTimestamp(pcommon.Timestamp(max(ts, uint64(sp.StartTimestamp()))))
	t.touch(t.owner(trajectoryParentTask(tk.id)), ts)
	if p, ok := sp.Attributes().Get(trajectoryAttrParentTask); ok {
		t.touch(t.owner(p.Str()), ts)
	}
	attrs := sp.Attributes()
	if r := memberStr(f, "result_preview", "result"); r != "" {
		attrs.PutStr(semconv.OutputMessages, string(appendMessages(nil, "assistant", "stop", chatPart{"text", r})))
	}
	if n, ok := memberInt(f, "child_calls"); ok {
		attrs.PutInt(trajectoryAttrChildCalls, n)
	}
	u, has := t.usage(f, attrs)
	t.status(f, sp, "agent_error")
	if err := t.reportedUsage(tk, u, has, ts); err != nil {
		return err
	}
	return t.send(sp)
}

// reportedUsage accounts for the usage an agent_complete reports (u, as
// the log has it): the usage of the agent's model calls, its sub-agents'
// included. What the records below the agent were not already counted for
// (the seed's iterations carry no usage, so usually all of it) becomes one
// "chat" record under the agent, marked agenttrace.trajectory.usage_of
// "agent_complete": a leaf model-call record, so the totals count it once
// (the agent span keeps the whole usage too, which they never count). Its
// subtree's counted usage then goes to the agent's parent.
func (t *trajectoryReader) reportedUsage(tk *trajectoryTask, u [4]int64, has [4]bool, ts uint64) error {
	counted := tk.counted
	var rest [4]int64
	var restHas [4]bool
	any := false
	for i := range u {
		if !has[i] {
			continue
		}
		if u[i] > counted[i] {
			rest[i], restHas[i], any = u[i]-counted[i], true, true
		}
		counted[i] = max(counted[i], u[i])
	}
	t.countUnder(t.parentOf(tk), counted)
	if !any {
		return nil
	}
	sp := t.newSpan(tk.span.SpanID(), ptrace.SpanKindClient, semconv.OpChat, t.model, tk.id,
		uint64(tk.span.StartTimestamp()), ts)
	attrs := sp.Attributes()
	putStr(attrs, semconv.RequestModel, t.model)
	attrs.PutStr(trajectoryAttrUsageOf, trajectoryUsageOf)
	putUsage(attrs, rest, restHas, true)
	return t.send(sp)
}

// parentOf is the open agent span an agent's usage rolls up to (nil: the
// root).
func (t *trajectoryReader) parentOf(tk *trajectoryTask) *trajectoryTask {
	if p, ok := tk.span.Attributes().Get(trajectoryAttrParentTask); ok && p.Str() != "" {
		if o := t.owner(p.Str()); o != nil && o != tk {
			return o
		}
	}
	if o := t.owner(trajectoryParentTask(tk.id)); o != tk {
		return o
	}
	return nil
}

// countUnder adds usage counted below tk (nil: the root).
func (t *trajectoryReader) countUnder(tk *trajectoryTask, u [4]int64) {
	dst := &t.rootCounted
	if tk != nil {
		dst = &tk.counted
	}
	for i := range u {
		dst[i] += u[i]
	}
}

// usage puts the record's usage (a usage object, or top-level token
// counts) on attrs, and returns it as the log has it.
func (t *trajectoryReader) usage(f map[string]json.RawMessage, attrs pcommon.Map) ([4]int64, [4]bool) {
	uf := f
	if k := memberKey(f, "usage", "token_usage", "tokens"); k != "" && firstByte(f[k]) == '{' {
		uf, _ = objectFields(f[k])
	}
	u, has := usageMembers(uf)
	putUsage(attrs, u, has, true)
	return u, has
}

func (t *trajectoryReader) iteration(f map[string]json.RawMessage, task string, ts uint64) error {
	tk := t.owner(task)
	start := min(t.touch(tk, ts), ts)
	if start == 0 {
		start = ts
	}
	model := cmp.Or(memberStr(f, "model"), t.model)
	sp := t.newSpan(t.spanID(tk), ptrace.SpanKindClient, semconv.OpChat, model, task, start, ts)
	attrs := sp.Attributes()
	putStr(attrs, semconv.RequestModel, model)
	if n, ok := memberInt(f, "iteration"); ok {
		attrs.PutInt(trajectoryAttrIteration, n)
	}
	calls := false
	if k := memberKey(f, "tool_calls_in_response"); k != "" {
		raw := f[k]
		if n, ok := memberInt(f, k); ok {
			attrs.PutInt(trajectoryAttrToolCallsIn, n)
			calls = n > 0
		} else if s := string(bytes.TrimSpace(raw)); s != "null" {
			attrs.PutStr(trajectoryAttrToolCallsIn, resultText(raw))
			calls = s != "[]" && s != "false" && s != `""`
		}
	}
	if p := memberStr(f, "prompt_preview", "prompt"); p != "" {
		attrs.PutStr(semconv.InputMessages, string(appendMessages(nil, "user", "", chatPart{"text", p})))
	}
	var parts []chatPart
	if thinking := memberStr(f, "thinking", "reasoning"); thinking != "" {
		parts = append(parts, chatPart{"reasoning", thinking})
	}
	if response := memberStr(f, "response_preview", "response"); response != "" {
		parts = append(parts, chatPart{"text", response})
	}
	if len(parts) > 0 {
		finish := "stop"
		if calls {
			finish = "tool_call"
		}
		attrs.PutStr(semconv.OutputMessages, string(appendMessages(nil, "assistant", finish, parts...)))
	}
	u, _ := t.usage(f, attrs)
	t.countUnder(tk, u)
	t.status(f, sp, "model_error")
	return t.send(sp)
}

// errorEvent records an error on the span of its task (the root when no
// agent span of the task is open).
func (t *trajectoryReader) errorEvent(f map[string]json.RawMessage, task string, ts uint64) {
	tk := t.owner(task)
	t.touch(tk, ts)
	sp := t.root
	if tk != nil {
		sp = tk.span
	} else {
		t.cover(ts, ts)
	}
	typ := memberStr(f, "error_type", "exception_type", "type_name")
	msg := memberStr(f, "error_message", "message", "error")
	addException(sp, ts, typ, msg, memberStr(f, "traceback", "stacktrace", "stack"))
	keepError(sp, cmp.Or(typ, "agent_error"), shortMessage(msg))
}

func (t *trajectoryReader) finalRecord(f map[string]json.RawMessage, ts uint64) error {
	end := ts
	if e, ok := t.time(f, "ended_at", "end_time"); ok {
		end = e
	}
	t.final = true
	t.finalEnd = max(t.finalEnd, end)
	if err := t.closeOpen(end); err != nil {
		return err
	}
	keys := make([]string, 0, len(f))
	for k := range f {
		switch k {
		case "type", "timestamp", "task_id":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := t.root.Attributes()
	for _, k := range keys {
		if raw := f[k]; string(raw) != "null" {
			putJSONValue(attrs, trajectoryFinalPrefix+k, raw)
		}
	}
	st := memberStr(f, "final_status", "status")
	t.finalOK = st == "" || trajectorySuccess(st)
	if !t.finalOK {
		setError(t.root, st, "final status "+st)
	}
	if t.hasMetaStart {
		return nil
	}
	if d, ok := memberDuration(f, "total_duration_ms"); ok && d > 0 && uint64(d) <= end {
		t.rootStart, t.hasMetaStart = end-uint64(d), true
	}
	return nil
}

func trajectorySuccess(status string) bool {
	switch strings.ToLower(status) {
	case "success", "succeeded", "successful", "complete", "completed", "ok", "done", "finished", "end_turn", "stop":
		return true
	}
	return false
}

// closeOpen closes every open agent span as incomplete at end, innermost
// first.
func (t *trajectoryReader) closeOpen(end uint64) error {
	open := make([]*trajectoryTask, 0, len(t.tasks))
	for _, tk := range t.tasks {
		open = append(open, tk)
	}
	slices.SortFunc(open, func(a, b *trajectoryTask) int {
		return cmp.Or(cmp.Compare(b.depth, a.depth), cmp.Compare(b.line, a.line))
	})
	for _, tk := range open {
		if err := t.closeIncomplete(tk, max(end, tk.last)); err != nil {
			return err
		}
	}
	return nil
}

func (t *trajectoryReader) closeIncomplete(tk *trajectoryTask, end uint64) error {
	delete(t.tasks, tk.id)
	sp := tk.span
	sp.SetEndTimestamp(pcommon.Timestamp(max(end, uint64(sp.StartTimestamp()))))
	keepError(sp, errIncomplete, "the agent did not complete before the end of the log")
	return t.send(sp)
}

// finish closes what is open at the end of the input and emits the root.
func (t *trajectoryReader) finish() error {
	if !t.started {
		return nil // no records
	}
	if err := t.closeOpen(t.lastTime); err != nil {
		return err
	}
	start, end := t.rootStart, t.finalEnd
	if !t.final {
		end = t.lastTime
	}
	if !t.hasMetaStart {
		start = end
		if t.spans {
			start = t.minStart
		}
	}
	if t.spans {
		start, end = min(start, t.minStart), max(end, t.maxEnd)
	}
	// The root has held the events and final's members; it is emitted as
	// it is.
	sp := t.root
	attrs := startSpan(sp, t.trace, rootKey, pcommon.SpanID{}, ptrace.SpanKindInternal, semconv.OpInvokeAgent, t.agent, start)
	sp.SetEndTimestamp(pcommon.Timestamp(max(end, start)))
	putStr(attrs, semconv.AgentName, t.agent)
	putStr(attrs, semconv.RequestModel, t.model)
	putStr(attrs, semconv.ConversationID, t.convID)
	switch {
	case !t.final:
		keepError(sp, errIncomplete, "the log ends without a final record")
	case t.finalOK && sp.Status().Code() == ptrace.StatusCodeError:
		// The run's errors were recovered from: final says it completed
		// (the seed's end_session writes final_status "completed" after
		// any log_error). The errors stay, as events named by their
		// record type rather than "exception", which would fail the run.
		sp.Status().SetCode(ptrace.StatusCodeUnset)
		sp.Status().SetMessage("")
		sp.Attributes().Remove(semconv.ErrorType)
		for _, ev := range sp.Events().All() {
			if ev.Name() == "exception" {
				ev.SetName(trajectoryRecoveredError)
			}
		}
	}
	return t.io.send(sp)
}
