package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
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
func ReadTrajectory(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	return readTrajectory(r, name, emit, false)
}

// readTrajectory is ReadTrajectory, of a log still being written when
// growing (see ForGrowing).
func readTrajectory(r io.Reader, name string, emit func(*artifact.Record) error, growing bool) (Stats, error) {
	t := trajectoryReader{io: newLineIO(r, name, emit), tasks: map[string]*trajectoryTask{}}
	t.io.growing = growing
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
