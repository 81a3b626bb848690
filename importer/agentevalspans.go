package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// emitCall makes and emits the span of c (and, for an agent invocation of
// a v1.0 trace, the tool executions its response reports).
func (a *agentEvalReader) emitCall(c *aeCall, v10Tools bool) error {
	if c.tool != nil {
		return a.send(a.toolSpan(c, c.tool, aeToolCalls(c.tool.f), c.toolIndex, a.spanID(c.parent), c.key))
	}
	sp := ptrace.NewSpan()
	req := map[string]json.RawMessage{}
	if c.req != nil {
		req = c.req.f
	}
	resp := map[string]json.RawMessage{}
	if c.resp != nil {
		resp = c.resp.f
	}
	opts := map[string]json.RawMessage{}
	if k := memberKey(req, "requestoptions"); k != "" {
		opts, _ = objectFields(req[k])
	}
	model := cmp.Or(memberStr(opts, "modelid", "model"), a.model)
	attrs := startSpan(sp, a.trace, c.key, a.spanID(c.parent), ptrace.SpanKindClient, semconv.OpChat, model, c.start)
	sp.SetEndTimestamp(pcommon.Timestamp(max(c.end, c.start)))
	putStr(attrs, semconv.RequestModel, model)
	putStr(attrs, agentEvalAttrScope, c.scope)
	putStr(attrs, agentEvalAttrCorrelation, c.correlation())
	if e := c.first(); e.hasIndex {
		attrs.PutInt(agentEvalAttrIndex, e.index)
	}
	if k := memberKey(opts, "temperature"); k != "" {
		putJSONValue(attrs, semconv.RequestTemperature, opts[k])
	}
	if n, ok := memberInt(opts, "maxoutputtokens", "maxtokens"); ok {
		attrs.PutInt(semconv.RequestMaxTokens, n)
	}
	if k := memberKey(req, "requestoptions"); k != "" && string(req[k]) != "null" {
		attrs.PutStr(agentEvalPrefix+"request_options", compactJSON(req[k]))
	}
	if sys := memberStr(req, "systemprompt"); sys != "" {
		attrs.PutStr(semconv.SystemInstructions, string(appendPartList(nil, chatPart{"text", sys})))
	}
	if k := memberKey(req, "tooldefinitions"); k != "" && string(req[k]) != "null" {
		attrs.PutStr(semconv.ToolDefinitions, compactJSON(req[k]))
	}
	if p := memberStr(req, "prompt"); p != "" || c.req != nil && memberKey(req, "prompt") != "" {
		attrs.PutStr(semconv.InputMessages, string(appendMessages(nil, "user", "", chatPart{"text", p})))
	}
	finish := memberStr(resp, "finishreason")
	if finish != "" {
		attrs.PutEmptySlice(semconv.ResponseFinishReasons).AppendEmpty().SetStr(finish)
	}
	calls := aeToolCalls(resp)
	if c.resp != nil {
		out := aeOutput(memberStr(resp, "text"), calls, finish)
		if out != "" {
			attrs.PutStr(semconv.OutputMessages, out)
		}
		if k := memberKey(resp, "tokenusage", "usage"); k != "" && firstByte(resp[k]) == '{' {
			uf, _ := objectFields(resp[k])
			u, has := usageMembers(uf)
			putUsage(attrs, u, has, false) // MEAI's input count includes cached tokens
		}
		if k := memberKey(resp, "providermetadata"); k != "" && string(resp[k]) != "null" {
			attrs.PutStr(agentEvalPrefix+"provider_metadata", compactJSON(resp[k]))
		}
		if k := memberKey(resp, "isstreaming"); k != "" && string(resp[k]) != "null" {
			putJSONValue(attrs, agentEvalPrefix+"is_streaming", resp[k])
		}
		if k := memberKey(resp, "streamingchunks"); k != "" && string(resp[k]) != "null" {
			attrs.PutStr(agentEvalPrefix+"streaming_chunks", compactJSON(resp[k]))
		}
	}
	if len(c.chunks) > 0 {
		attrs.PutStr(agentEvalPrefix+"stream_chunk_entries", "["+string(bytes.Join(c.chunks, []byte(",")))+"]")
	}
	for _, f := range []map[string]json.RawMessage{req, resp} {
		if k := memberKey(f, "error"); k != "" && firstByte(f[k]) == '{' {
			ef, _ := objectFields(f[k])
			typ, msg := memberStr(ef, "type"), memberStr(ef, "message")
			addException(sp, uint64(sp.EndTimestamp()), typ, msg, memberStr(ef, "stacktrace"))
			setError(sp, cmp.Or(typ, "model_error"), shortMessage(msg))
		}
	}
	if c.resp == nil {
		setError(sp, errIncomplete, "no response in the trace")
	}
	if c.scope == aeAgent && v10Tools && c.resp != nil {
		// A v1.0 trace: the executions the agent reports are the only ones.
		for j, tc := range calls {
			if memberKey(tc, "result") == "" && memberKey(tc, "succeeded") == "" {
				continue
			}
			if err := a.send(a.toolSpan(c, c.resp, calls, j, sp.SpanID(), c.key+":reported:"+strconv.Itoa(j))); err != nil {
				return err
			}
		}
	}
	return a.send(sp)
}

// toolSpan is the execute_tool span of tool call j of entry e.
func (a *agentEvalReader) toolSpan(c *aeCall, e *aeEntry, calls []map[string]json.RawMessage, j int, parent pcommon.SpanID, key string) ptrace.Span {
	var tc map[string]json.RawMessage
	if j < len(calls) {
		tc = calls[j]
	}
	name := memberStr(tc, "name", "toolname")
	start, end := c.start, c.end
	if c.tool == nil { // reported by an agent response: its own times, if any
		start, end = e.ts, e.ts
		if k := memberKey(tc, "startedat"); k != "" {
			if s, ok := parseTime(tc[k]); ok {
				start = s
			}
		}
		if d, ok := memberDuration(tc, "durationms"); ok && d > 0 {
			end = start + uint64(d)
		}
	}
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, a.trace, key, parent, ptrace.SpanKindInternal, semconv.OpExecuteTool, name, start)
	sp.SetEndTimestamp(pcommon.Timestamp(max(end, start)))
	putStr(attrs, semconv.ToolName, name)
	putStr(attrs, agentEvalAttrCorrelation, e.correlation)
	putStr(attrs, agentEvalAttrScope, e.scope)
	if e.hasIndex {
		attrs.PutInt(agentEvalAttrIndex, e.index)
	}
	putStr(attrs, semconv.ToolCallID, memberStr(tc, "callid", "id", "toolcallid"))
	if k := memberKey(tc, "arguments"); k != "" && string(tc[k]) != "null" {
		attrs.PutStr(semconv.ToolCallArguments, resultText(tc[k]))
	}
	if k := memberKey(tc, "result"); k != "" && string(tc[k]) != "null" {
		attrs.PutStr(semconv.ToolCallResult, resultText(tc[k]))
	}
	failed := false
	if k := memberKey(tc, "succeeded"); k != "" && string(bytes.TrimSpace(tc[k])) == "false" {
		failed = true
	}
	msg := memberStr(tc, "error")
	if msg == "" {
		if k := memberKey(e.f, "error"); k != "" && firstByte(e.f[k]) == '{' && c.tool != nil {
			ef, _ := objectFields(e.f[k])
			msg = memberStr(ef, "message")
		}
	}
	if failed || msg != "" {
		setError(sp, errTool, shortMessage(msg))
	}
	return sp
}

// aeToolCalls returns the toolCalls of an entry, each an object.
func aeToolCalls(f map[string]json.RawMessage) []map[string]json.RawMessage {
	k := memberKey(f, "toolcalls")
	if k == "" {
		return nil
	}
	var raws []json.RawMessage
	if json.Unmarshal(f[k], &raws) != nil {
		return nil
	}
	out := make([]map[string]json.RawMessage, 0, len(raws))
	for _, r := range raws {
		m, err := objectFields(r)
		if err != nil {
			m = map[string]json.RawMessage{}
		}
		out = append(out, m)
	}
	return out
}

// aeOutput is a response as gen_ai.output.messages: its text and the tool
// calls the model asked for.
func aeOutput(text string, calls []map[string]json.RawMessage, finish string) string {
	if text == "" && len(calls) == 0 {
		return ""
	}
	b := []byte(`[{"role":"assistant","parts":[`)
	n := 0
	if text != "" {
		b = appendPart(b, "text", text)
		n++
	}
	for _, tc := range calls {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"type":"tool_call","name":`...)
		b = artifact.AppendJSONString(b, memberStr(tc, "name", "toolname"))
		if id := memberStr(tc, "callid", "id", "toolcallid"); id != "" {
			b = append(b, `,"id":`...)
			b = artifact.AppendJSONString(b, id)
		}
		if k := memberKey(tc, "arguments"); k != "" && string(tc[k]) != "null" {
			args := tc[k]
			if s := rawString(args); firstByte(args) == '"' && json.Valid([]byte(s)) {
				args = json.RawMessage(s) // a JSON string of the arguments object
			}
			b = append(b, `,"arguments":`...)
			b = append(b, compactJSON(args)...)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if finish != "" {
		b = append(b, `,"finish_reason":`...)
		b = artifact.AppendJSONString(b, semconv.NormalizeFinishReason(finish))
	}
	return string(append(b, "}]"...))
}

// appendPartList appends a list of parts (gen_ai.system_instructions).
func appendPartList(dst []byte, parts ...chatPart) []byte {
	dst = append(dst, '[')
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendPart(dst, p.Type, p.Content)
	}
	return append(dst, ']')
}

// compactJSON returns raw JSON without insignificant white space.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// entryJSON is an entry as compact JSON, its members in order.
func entryJSON(f map[string]json.RawMessage) json.RawMessage {
	b, err := json.Marshal(f)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}
