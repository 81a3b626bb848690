package importer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// evConv is an open conversation: its root span and what is open under it.
type evConv struct {
	id      string
	trace   pcommon.TraceID
	prefix  string // span id key prefix of this root's turn
	root    ptrace.Span
	start   uint64
	last    uint64
	calls   map[string]*evCall
	open    []*evCall // open calls in the order they began
	callsN  map[string]int
	chat    *evChat
	chatsN  int
	started bool // start is known
}

func (s *eventsState) conv(id string, ts uint64, known bool) *evConv {
	if c, ok := s.convs[id]; ok {
		if known && (!c.started || ts < c.start) {
			c.start, c.started = ts, true
		}
		return c
	}
	s.turns[id]++
	c := &evConv{
		id:     id,
		trace:  traceIDFor(Events, id),
		prefix: "turn:" + strconv.Itoa(s.turns[id]) + ":",
		root:   ptrace.NewSpan(),
		start:  ts,
		last:   ts,
		calls:  make(map[string]*evCall),
		callsN: make(map[string]int),
	}
	c.started = known
	attrs := startSpan(c.root, c.trace, c.prefix+rootKey, pcommon.SpanID{}, ptrace.SpanKindInternal, semconv.OpInvokeAgent, "", ts)
	putStr(attrs, semconv.ConversationID, id)
	for _, kv := range s.row {
		putJSONValue(attrs, eventsRowPrefix+kv[0], []byte(kv[1]))
	}
	putStr(attrs, attrSourceTraceID, s.rowTrace)
	s.convs[id] = c
	s.order = append(s.order, id)
	return c
}

// endConv closes c's open tool calls as errors of type code, then its root.
func (s *eventsState) endConv(c *evConv, ts uint64, code, msg string) error {
	if err := s.endCalls(c, ts, code, msg); err != nil {
		return err
	}
	delete(s.convs, c.id)
	for i, id := range s.order {
		if id == c.id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	c.root.SetStartTimestamp(pcommon.Timestamp(c.start))
	c.root.SetEndTimestamp(pcommon.Timestamp(max(ts, c.last, c.start)))
	return s.send(c.root)
}

// endCalls closes c's open tool calls as errors of type code.
func (s *eventsState) endCalls(c *evConv, ts uint64, code, msg string) error {
	for _, call := range append([]*evCall(nil), c.open...) {
		call.fail(code, msg)
		if err := s.endCall(c, call, ts); err != nil {
			return err
		}
	}
	return nil
}

// evCall is an open tool call.
type evCall struct {
	span    ptrace.Span
	tool    string
	started bool
	outputs []json.RawMessage
}

// call returns the open call with id, opening it when it is not open.
func (c *evConv) call(id string, ts uint64) *evCall {
	if call, ok := c.calls[id]; ok {
		return call
	}
	c.callsN[id]++
	key := c.prefix + "tool:" + strconv.Itoa(c.callsN[id]) + ":" + id
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, c.trace, key, c.root.SpanID(), ptrace.SpanKindInternal, semconv.OpExecuteTool, "", ts)
	putStr(attrs, semconv.ToolCallID, id)
	call := &evCall{span: sp}
	c.calls[id] = call
	c.open = append(c.open, call)
	return call
}

func (c *evConv) removeOpen(call *evCall) {
	for i, o := range c.open {
		if o == call {
			c.open = append(c.open[:i], c.open[i+1:]...)
			return
		}
	}
}

func (call *evCall) setTool(name string) {
	call.tool = name
	call.span.SetName(spanName(semconv.OpExecuteTool, name))
	call.span.Attributes().PutStr(semconv.ToolName, name)
}

func (call *evCall) fail(code, msg string) { setError(call.span, code, msg) }

func (s *eventsState) endCall(c *evConv, call *evCall, end uint64) error {
	if res, ok := joinOutputs(call.outputs); ok {
		call.span.Attributes().PutStr(semconv.ToolCallResult, res)
	}
	call.span.SetEndTimestamp(pcommon.Timestamp(max(end, uint64(call.span.StartTimestamp()))))
	id, _ := call.span.Attributes().Get(semconv.ToolCallID)
	if c.calls[id.Str()] == call {
		delete(c.calls, id.Str())
	}
	c.removeOpen(call)
	return s.send(call.span)
}

// joinOutputs makes one tool result of a call's outputs: strings are
// concatenated (chunks of one output), anything else kept as JSON.
func joinOutputs(outs []json.RawMessage) (string, bool) {
	if len(outs) == 0 {
		return "", false
	}
	var b strings.Builder
	allStr := true
	for _, o := range outs {
		var str string
		if json.Unmarshal(o, &str) != nil {
			allStr = false
			break
		}
		b.WriteString(str)
	}
	if allStr {
		return b.String(), true
	}
	if len(outs) == 1 {
		return jsonText(outs[0])
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, o := range outs {
		if i > 0 {
			buf.WriteByte(',')
		}
		if json.Compact(&buf, o) != nil {
			buf.Write(o)
		}
	}
	buf.WriteByte(']')
	return buf.String(), true
}

// evChat is an assistant turn being streamed: its thinking and text.
type evChat struct {
	start uint64
	parts []chatPart
	delta bool // the last part was built from delta chunks
}

// turn returns the open assistant turn, opening one at ts.
func (c *evConv) turn(ts uint64) *evChat {
	if c.chat == nil {
		c.chat = &evChat{start: ts}
	}
	return c.chat
}

// add adds streamed content: thinking events and text chunks (delta) run
// on in the last part of their type; a whole text after its chunks
// replaces them, another whole text is a part of its own.
func (t *evChat) add(typ, content string, delta bool) {
	n := len(t.parts)
	last := func() *chatPart { return &t.parts[n-1] }
	switch {
	case n > 0 && last().Type == typ && typ == "reasoning":
		last().Content += content
	case n > 0 && last().Type == typ && delta && t.delta:
		last().Content += content
	case n > 0 && last().Type == typ && !delta && t.delta && strings.HasPrefix(content, last().Content):
		last().Content = content
	default:
		t.parts = append(t.parts, chatPart{Type: typ, Content: content})
	}
	t.delta = delta && typ == "text"
}

// closeChat ends the open assistant turn, if any, at ts.
func (s *eventsState) closeChat(c *evConv, ts uint64, finish, responseID string) error {
	t := c.chat
	if t == nil {
		return nil
	}
	c.chat = nil
	c.chatsN++
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, c.trace, c.prefix+"chat:"+strconv.Itoa(c.chatsN), c.root.SpanID(), ptrace.SpanKindClient, semconv.OpChat, "", t.start)
	sp.SetEndTimestamp(pcommon.Timestamp(max(ts, t.start)))
	putStr(attrs, semconv.ResponseID, responseID)
	attrs.PutStr(semconv.OutputMessages, string(appendMessages(nil, "assistant", finish, t.parts...)))
	return s.send(sp)
}
