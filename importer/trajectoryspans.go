package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

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
	// Agents that did not complete were open at the end (synth.openAtEnd).
	if err := t.io.openAtEnd(func() error { return t.closeOpen(t.lastTime) }); err != nil {
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
	case !t.final && !t.io.growing:
		// (A log still being written may get its final record yet: its
		// root spans what it has so far.)
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
