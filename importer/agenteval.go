package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// ReadAgentEval reads an AgentEval trace (seed 002: the AgentTrace
// document its recorders write, {"version", "traceName", "capturedAt",
// "agentName", "modelId", "entries":[TraceEntry…], "performance",
// "metadata"}, or the bare list of TraceEntry) and emits its spans. It is
// a [Func]; the document is read whole.
//
// # Mapping
//
// The document is one trace, whose id is derived from its traceName and
// capturedAt (from its content when it has neither). Its root is an
// invoke_agent span named by agentName, with the model, and the document's
// other members (version, traceName, performance, metadata) kept as
// agenttrace.agenteval.<member>.
//
// An entry's scope is its recording layer: AgentInvocation (also a missing
// or null scope: v1.0 traces, TraceRecordingAgent), ChatTurn (one model
// round-trip at the IChatClient boundary) or ToolExecution (one function
// execution). A Request and the Response with the same scope and index
// (the pairing key) are one span:
//
//   - ChatTurn and AgentInvocation pairs are "chat {model}" CLIENT spans:
//     the prompt as a user message in gen_ai.input.messages, systemPrompt
//     as gen_ai.system_instructions, toolDefinitions as
//     gen_ai.tool.definitions, the response text and its toolCalls as
//     gen_ai.output.messages, finishReason, tokenUsage (promptTokens,
//     completionTokens) as gen_ai.usage.*, requestOptions (modelId,
//     temperature, maxOutputTokens, …) and providerMetadata kept. It runs
//     from the request to the response (or durationMs before it); an error
//     is an error status with its type and an exception event.
//   - An AgentInvocation span holds the ChatTurn and ToolExecution entries
//     recorded while it was open, or stamped with its correlationId: the
//     agent boundary reports one call per invocation with the usage of all
//     its round-trips, which the chat boundary records one by one. It is
//     then a wrapper of those model calls, counted as a span by the totals
//     (converter.Wrappers); alone (no chat-boundary recorder) it is the
//     model call. A trace recorded with both layers around the same calls
//     is the double wrapping the seed's doctor warns of; judge.Audit
//     reports it as double_instrumentation.
//   - A ToolExecution entry (type ToolCall) is an "execute_tool {name}"
//     span per tool call it lists: arguments, result, from startedAt (else
//     the entry's time less durationMs) for durationMs; succeeded false or
//     an error is an error status "tool_error". An AgentInvocation
//     response's toolCalls that carry a result are executions the agent
//     reports; they become execute_tool spans only when the trace has no
//     ToolExecution entries (a v1.0 trace), so no call counts twice.
//   - correlationId is kept on every span as agenttrace.agenteval.
//     correlation_id, index as agenttrace.agenteval.index.
//   - A request without its response is an error span "incomplete"; a
//     response without its request starts durationMs before its time.
//     StreamChunk entries and streamingChunks are kept on their span (the
//     one of their index, else the root) as JSON.
//
// Member names are matched without regard to case, "_" or "-" (the
// writer's camelCase, or the PascalCase of a serializer without naming
// policy); enum values too ("ChatTurn", "chatTurn", 1).
func ReadAgentEval(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", name, err)
	}
	a := &agentEvalReader{synth: newSynth(name, emit)}
	err = a.read(bytes.TrimPrefix(data, byteOrderMark))
	return a.done(), err
}

// Attributes the AgentEval reader writes besides the GenAI ones.
const (
	agentEvalPrefix          = "agenttrace.agenteval."
	agentEvalAttrCorrelation = agentEvalPrefix + "correlation_id"
	agentEvalAttrIndex       = agentEvalPrefix + "index"
	agentEvalAttrScope       = agentEvalPrefix + "scope"
)

// The entry scopes (TraceEntryScope) and types (TraceEntryType).
const (
	aeAgent = "agentinvocation"
	aeChat  = "chatturn"
	aeTool  = "toolexecution"

	aeRequest  = "request"
	aeResponse = "response"
	aeToolCall = "toolcall"
	aeChunk    = "streamchunk"
)

type agentEvalReader struct {
	synth
	trace  pcommon.TraceID
	rootID pcommon.SpanID
	model  string
	lines  *offsetLines
}

// aeEntry is one TraceEntry, its members raw.
type aeEntry struct {
	f           map[string]json.RawMessage
	line        int
	typ, scope  string
	index       int64
	hasIndex    bool
	ts          uint64
	hasTime     bool
	correlation string
}

// aeCall is a Request/Response pair (either may be missing) or a tool
// execution entry: one span.
type aeCall struct {
	key       string
	scope     string
	req, resp *aeEntry
	tool      *aeEntry
	parent    *aeCall // the AgentInvocation it was recorded under
	start     uint64
	end       uint64
	chunks    [][]byte
	toolIndex int // the tool call of a ToolExecution entry
}

func (a *agentEvalReader) read(data []byte) error {
	a.lines = newOffsetLines(data)
	var doc map[string]json.RawMessage
	var entriesRaw json.RawMessage
	switch firstByte(data) {
	case '[':
		entriesRaw = data
	case '{':
		if err := json.Unmarshal(data, &doc); err != nil {
			a.problem(1, fmt.Errorf("%w: %w", artifact.ErrBadRecord, err))
			return nil
		}
		k := memberKey(doc, "entries")
		if k == "" || firstByte(doc[k]) != '[' {
			a.problem(1, fmt.Errorf("%w: an AgentEval trace has an \"entries\" list", artifact.ErrBadRecord))
			return nil
		}
		entriesRaw = doc[k]
	default:
		a.problem(1, fmt.Errorf("%w: an AgentEval trace is a JSON object or a list of entries", artifact.ErrBadRecord))
		return nil
	}
	entries := a.entries(data, entriesRaw)

	// The trace's identity and the root.
	key := "content:" + string(data[:min(len(data), 4096)])
	if name, at := memberStr(doc, "tracename", "name"), memberStr(doc, "capturedat"); name != "" || at != "" {
		key = "trace:" + name + "\x00" + at
	}
	a.trace = traceIDFor(AgentEval, key)
	a.rootID = spanIDFor(a.trace, rootKey)
	a.model = memberStr(doc, "modelid", "model")
	agent := memberStr(doc, "agentname", "agent")
	if agent != "" {
		a.res.Attributes().PutStr("service.name", agent)
	}
	root := ptrace.NewSpan()
	rootStart, hasStart := uint64(0), false
	if k := memberKey(doc, "capturedat"); k != "" {
		rootStart, hasStart = parseTime(doc[k])
	}

	calls := a.pair(entries)
	anyToolExecution := false
	for _, c := range calls {
		if c.scope == aeTool {
			anyToolExecution = true
		}
	}
	a.nest(calls)
	end := rootStart
	for _, c := range calls {
		if !hasStart || c.start < rootStart {
			rootStart, hasStart = c.start, true
		}
		end = max(end, c.end)
	}
	end = max(end, rootStart)
	// Children end before their parents are emitted: tool executions and
	// chat turns first, then the agent invocations, then the root.
	for _, pass := range []bool{false, true} {
		for _, c := range calls {
			if (c.scope == aeAgent) != pass {
				continue
			}
			if err := a.emitCall(c, !anyToolExecution); err != nil {
				return err
			}
		}
	}
	for _, e := range entries {
		if e.typ == aeChunk && e.scope == "" {
			ev := root.Events().AppendEmpty()
			ev.SetName("stream_chunk")
			ev.SetTimestamp(pcommon.Timestamp(cmp.Or(e.ts, rootStart)))
			ev.Attributes().PutStr(agentEvalPrefix+"entry", string(entryJSON(e.f)))
		}
	}
	attrs := startSpan(root, a.trace, rootKey, pcommon.SpanID{}, ptrace.SpanKindInternal, semconv.OpInvokeAgent, agent, rootStart)
	root.SetEndTimestamp(pcommon.Timestamp(end))
	putStr(attrs, semconv.AgentName, agent)
	putStr(attrs, semconv.RequestModel, a.model)
	keys := make([]string, 0, len(doc))
	for k := range doc {
		if !keyEq(k, "entries") && !keyEq(k, "agentname") && !keyEq(k, "modelid") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := doc[k]; string(v) != "null" {
			putJSONValue(attrs, agentEvalPrefix+k, v)
		}
	}
	return a.send(root)
}

// entries decodes the entry list; an entry that is not an object is
// reported with its line and skipped.
func (a *agentEvalReader) entries(data, list json.RawMessage) []*aeEntry {
	base := 0
	if i := bytes.Index(data, list); i >= 0 {
		base = i
	}
	dec := json.NewDecoder(bytes.NewReader(list))
	if _, err := dec.Token(); err != nil {
		a.problem(a.lines.at(base), fmt.Errorf("%w: %w", artifact.ErrBadRecord, err))
		return nil
	}
	var out []*aeEntry
	for dec.More() {
		off := base + jsonValueStart(list, int(dec.InputOffset()))
		line := a.lines.at(off)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			a.problem(line, fmt.Errorf("%w: entries: %w", artifact.ErrBadRecord, err))
			return out
		}
		f, err := objectFields(raw)
		if err != nil {
			a.problem(line, fmt.Errorf("%w: entry: %w", artifact.ErrBadRecord, err))
			continue
		}
		e := &aeEntry{f: f, line: line, typ: aeEnum(f, "type"), scope: aeEnum(f, "scope"),
			correlation: memberStr(f, "correlationid")}
		e.index, e.hasIndex = memberInt(f, "index")
		if k := memberKey(f, "timestamp"); k != "" && string(f[k]) != "null" {
			if e.ts, e.hasTime = parseTime(f[k]); !e.hasTime {
				a.problem(line, fmt.Errorf("cannot read the time %s", f[k]))
			}
		}
		switch e.typ {
		case aeRequest, aeResponse, aeToolCall, aeChunk:
		default:
			a.unknown("entry type " + cmp.Or(memberStr(f, "type"), "(none)"))
			continue
		}
		if e.scope == "" || e.scope == "0" {
			e.scope = aeAgent
		}
		switch e.scope {
		case "1":
			e.scope = aeChat
		case "2":
			e.scope = aeTool
		}
		if e.typ == aeToolCall && e.scope == aeAgent {
			e.scope = aeTool // a v1.0 ToolCall entry
		}
		out = append(out, e)
	}
	return out
}

// aeEnum reads an enum member as its lower-case name without separators
// ("ChatTurn" → "chatturn"), or its number as text.
func aeEnum(f map[string]json.RawMessage, name string) string {
	s := memberStr(f, name)
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// pair makes the spans: a request and the response of the same scope and
// index are one; tool executions one each.
func (a *agentEvalReader) pair(entries []*aeEntry) []*aeCall {
	var calls []*aeCall
	open := map[string]*aeCall{}
	var last uint64
	for i, e := range entries {
		if e.hasTime {
			last = max(last, e.ts)
		} else {
			e.ts = last
		}
		pk := e.scope + ":" + strconv.FormatInt(e.index, 10)
		if !e.hasIndex {
			pk = e.scope + ":entry:" + strconv.Itoa(i)
		}
		switch e.typ {
		case aeRequest:
			if old := open[pk]; old != nil && old.resp == nil {
				pk += ":entry:" + strconv.Itoa(i) // the same index again: its own span
			}
			c := &aeCall{key: pk, scope: e.scope, req: e}
			open[pk] = c
			calls = append(calls, c)
		case aeResponse:
			c := open[pk]
			if c == nil || c.resp != nil {
				c = &aeCall{key: pk + ":response:" + strconv.Itoa(i), scope: e.scope}
				calls = append(calls, c)
			}
			c.resp = e
			delete(open, pk)
		case aeToolCall:
			n := 1
			if k := memberKey(e.f, "toolcalls"); k != "" {
				var list []json.RawMessage
				if json.Unmarshal(e.f[k], &list) == nil && len(list) > 0 {
					n = len(list)
				}
			}
			for j := range n {
				calls = append(calls, &aeCall{key: "tool:" + pk + ":" + strconv.Itoa(i) + ":" + strconv.Itoa(j),
					scope: aeTool, tool: e, toolIndex: j})
			}
		case aeChunk:
			if c := open[pk]; c != nil {
				c.chunks = append(c.chunks, entryJSON(e.f))
			} else {
				e.scope = "" // kept on the root
			}
		}
	}
	for _, c := range calls {
		c.start, c.end = a.times(c)
	}
	return calls
}

// times is when a span ran.
func (a *agentEvalReader) times(c *aeCall) (start, end uint64) {
	switch {
	case c.tool != nil:
		e := c.tool
		end = e.ts
		d, hasD := memberDuration(e.f, "durationms")
		if tc := aeToolCalls(e.f); c.toolIndex < len(tc) {
			if dd, ok := memberDuration(tc[c.toolIndex], "durationms"); ok {
				d, hasD = dd, true
			}
			if k := memberKey(tc[c.toolIndex], "startedat"); k != "" {
				if s, ok := parseTime(tc[c.toolIndex][k]); ok {
					start = s
					if hasD && d > 0 {
						return s, s + uint64(d)
					}
					return s, max(s, end)
				}
			}
		}
		if hasD && d > 0 {
			return end - min(uint64(d), end), end
		}
		return end, end
	case c.resp != nil:
		end = c.resp.ts
		if c.req != nil {
			return min(c.req.ts, end), end
		}
		if d, ok := memberDuration(c.resp.f, "durationms"); ok && d > 0 {
			return end - min(uint64(d), end), end
		}
		return end, end
	}
	return c.req.ts, c.req.ts
}

// nest puts each chat turn and tool execution under the agent invocation
// it was recorded in: the one of its correlation id, else the one open
// (by time, then by list order) when it was recorded.
func (a *agentEvalReader) nest(calls []*aeCall) {
	byCorr := map[string]*aeCall{}
	var agents []*aeCall
	for _, c := range calls {
		if c.scope != aeAgent {
			continue
		}
		agents = append(agents, c)
		if corr := c.correlation(); corr != "" {
			byCorr[corr] = c
		}
	}
	if len(agents) == 0 {
		return
	}
	for _, c := range calls {
		if c.scope == aeAgent {
			continue
		}
		if p := byCorr[c.correlation()]; p != nil && c.correlation() != "" {
			c.parent = p
		} else {
			for _, ag := range agents {
				if ag.start <= c.start && c.end <= ag.end && (c.parent == nil || ag.start >= c.parent.start) {
					c.parent = ag
				}
			}
		}
	}
}

func (c *aeCall) correlation() string {
	for _, e := range []*aeEntry{c.req, c.resp, c.tool} {
		if e != nil && e.correlation != "" {
			return e.correlation
		}
	}
	return ""
}

func (c *aeCall) first() *aeEntry { return cmp.Or(c.req, c.resp, c.tool) }

func (a *agentEvalReader) spanID(c *aeCall) pcommon.SpanID {
	if c == nil {
		return a.rootID
	}
	return spanIDFor(a.trace, c.key)
}
