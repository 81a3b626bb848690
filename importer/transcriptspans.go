package importer

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// callSpan is a tool call's span with what the call knows when it opens.
func callSpan(s *transcriptSession, c *transcriptCall) ptrace.Span {
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, s.trace, c.key, s.rootID, ptrace.SpanKindInternal, semconv.OpExecuteTool, c.name, c.start)
	putStr(attrs, semconv.ToolName, c.name)
	putStr(attrs, semconv.ToolCallID, c.id)
	putStr(attrs, semconv.ToolCallArguments, c.args)
	putStr(attrs, semconv.ConversationID, s.id)
	return sp
}

// chatSpan is a model call's span; an incomplete one has no response.
func chatSpan(s *transcriptSession, inf *transcriptInference, incomplete bool) ptrace.Span {
	start, end := inf.reqTime, inf.respTime
	if incomplete {
		end = max(s.end, start)
	} else {
		switch {
		case inf.hasLat && inf.latency >= 0 && uint64(inf.latency) <= end:
			start = end - uint64(inf.latency)
		case !inf.requested:
			start = end
		}
		start = min(start, end)
	}
	sp := ptrace.NewSpan()
	attrs := startSpan(sp, s.trace, inf.key, s.rootID, ptrace.SpanKindClient, semconv.OpChat, inf.model, start)
	sp.SetEndTimestamp(pcommon.Timestamp(end))
	putStr(attrs, semconv.ProviderName, inf.provider)
	putStr(attrs, semconv.RequestModel, inf.model)
	putStr(attrs, semconv.ConversationID, s.id)
	if inf.hasMax {
		attrs.PutInt(semconv.RequestMaxTokens, inf.maxTokens)
	}
	if inf.stop != "" {
		attrs.PutEmptySlice(semconv.ResponseFinishReasons).AppendEmpty().SetStr(inf.stop)
	}
	putUsage(attrs, inf.usage, inf.hasUsage, !transcriptInclusiveCache(inf.provider))
	if inf.hasTurn {
		attrs.PutInt(transcriptAttrTurn, inf.turn)
	}
	for _, d := range inf.digests {
		attrs.PutStr("agenttrace.transcript."+d[0], d[1])
	}
	if inf.fromMsgs {
		attrs.PutBool(transcriptAttrFromMessages, true)
	}
	putStr(attrs, semconv.InputMessages, inf.input)
	putStr(attrs, semconv.OutputMessages, inf.output.text(inf.stop))
	if incomplete {
		setError(sp, errIncomplete, "no response before the end of the log")
	}
	return sp
}

// closeSession emits what the session still holds and then its root.
// Its open model requests and tool calls were open at the end of the
// input (synth.openAtEnd); the root, which no record of a log ends, spans
// its first to its last record, live or not.
func (t *transcriptReader) closeSession(s *transcriptSession) error {
	if err := t.flushPending(s); err != nil {
		return err
	}
	if err := t.io.openAtEnd(func() error { return t.closeOpen(s) }); err != nil {
		return err
	}
	return t.sendRoot(s)
}

// closeOpen emits the session's open model requests and tool calls.
func (t *transcriptReader) closeOpen(s *transcriptSession) error {
	for _, inf := range s.inferences {
		if err := t.io.send(chatSpan(s, inf, true)); err != nil {
			return err
		}
	}
	s.inferences = nil
	calls := make([]*transcriptCall, 0, len(s.calls))
	for _, c := range s.calls {
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(a, b *transcriptCall) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.line, b.line), strings.Compare(a.key, b.key))
	})
	for _, c := range calls {
		sp := callSpan(s, c)
		sp.SetEndTimestamp(pcommon.Timestamp(max(s.end, c.start)))
		setError(sp, errIncomplete, "no tool result before the end of the log")
		if err := t.io.send(sp); err != nil {
			return err
		}
	}
	clear(s.calls)
	return nil
}

// sendRoot emits the session's root, which has held its events.
func (t *transcriptReader) sendRoot(s *transcriptSession) error {
	attrs := startSpan(s.root, s.trace, rootKey, pcommon.SpanID{}, ptrace.SpanKindInternal, semconv.OpInvokeAgent, s.agent, s.start)
	// Messages appended after the last model call, which no call answered.
	putStr(attrs, transcriptAttrUnanswered, s.input.text(""))
	s.input.buf = s.input.buf[:0]
	s.root.SetEndTimestamp(pcommon.Timestamp(max(s.end, s.start)))
	putStr(attrs, semconv.ConversationID, s.id)
	putStr(attrs, semconv.AgentName, s.agent)
	putStr(attrs, semconv.ProviderName, s.provider)
	putStr(attrs, semconv.RequestModel, s.model)
	return t.io.send(s.root)
}

// transcriptInclusiveCache reports whether a provider's input count already
// includes cached tokens (OpenAI's prompt_tokens does; Anthropic's
// input_tokens does not).
func transcriptInclusiveCache(provider string) bool {
	switch semconv.NormalizeProvider(provider) {
	case "openai", "azure.ai.openai":
		return true
	}
	return false
}

// transcriptGenAIMessage converts a log message into the GenAI v1.41
// message schema: {"role", "parts":[…]}. Text blocks are text parts (with
// their source, e.g. "reminder"), tool_use blocks tool_call parts,
// tool_result blocks tool_call_response parts, thinking blocks reasoning
// parts; other blocks (images, documents) are kept as they are.
func transcriptGenAIMessage(dst []byte, role, text string, isText bool, content json.RawMessage,
	blocks []transcriptBlock, raws []json.RawMessage, toolID string) []byte {
	dst = append(dst, `{"role":`...)
	dst = artifact.AppendJSONString(dst, role)
	dst = append(dst, `,"parts":[`...)
	switch {
	case isText && role == "tool" && toolID != "":
		dst = append(dst, `{"type":"tool_call_response","id":`...)
		dst = artifact.AppendJSONString(dst, toolID)
		dst = append(dst, `,"response":`...)
		dst = artifact.AppendJSONString(dst, text)
		dst = append(dst, '}')
	case isText:
		dst = appendPart(dst, "text", text)
	case blocks == nil && len(content) > 0 && string(content) != "null":
		dst = append(dst, `{"type":"unknown","content":`...)
		dst = append(dst, content...)
		dst = append(dst, '}')
	}
	for i := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		b := &blocks[i]
		switch b.Type {
		case "text":
			dst = appendPart(dst, "text", b.Text)
			if firstByte(b.Source) == '"' { // where the text came from ("reminder")
				dst = append(dst[:len(dst)-1], `,"source":`...)
				dst = append(dst, b.Source...)
				dst = append(dst, '}')
			}
		case "tool_use", "server_tool_use":
			dst = append(dst, `{"type":"tool_call","id":`...)
			dst = artifact.AppendJSONString(dst, b.ID)
			dst = append(dst, `,"name":`...)
			dst = artifact.AppendJSONString(dst, b.Name)
			if len(b.Input) > 0 {
				dst = append(dst, `,"arguments":`...)
				dst = append(dst, b.Input...)
			}
			dst = append(dst, '}')
		case "tool_result":
			dst = append(dst, `{"type":"tool_call_response","id":`...)
			dst = artifact.AppendJSONString(dst, cmp.Or(b.ToolUseID, b.ToolUseID2))
			if len(b.Content) > 0 {
				dst = append(dst, `,"response":`...)
				dst = append(dst, b.Content...)
			}
			dst = append(dst, '}')
		case "thinking":
			dst = appendPart(dst, "reasoning", b.Thinking)
		default:
			dst = append(dst, raws[i]...)
		}
	}
	return append(dst, "]}"...)
}

// messageList is a JSON array of GenAI messages being built, without its
// closing bracket.
type messageList struct{ buf []byte }

// next returns buf ready for the next message to be appended.
func (l *messageList) next() []byte {
	if len(l.buf) == 0 {
		return append(l.buf, '[')
	}
	return append(l.buf, ',')
}

// text returns the array, "" when it has no message. With a stop reason,
// the last message gets its finish_reason (the schema requires one on
// output messages).
func (l *messageList) text(stop string) string {
	if len(l.buf) == 0 {
		return ""
	}
	if stop == "" {
		return string(append(l.buf, ']'))
	}
	var reason [64]byte
	r := artifact.AppendJSONString(reason[:0], semconv.NormalizeFinishReason(stop))
	var b strings.Builder
	b.Grow(len(l.buf) + len(`,"finish_reason":}]`) + len(r))
	b.Write(l.buf[:len(l.buf)-1]) // the last message without its closing brace
	b.WriteString(`,"finish_reason":`)
	b.Write(r)
	b.WriteString("}]")
	return b.String()
}

// transcriptResultMessage is a failed result as a status message: the
// text of its text blocks when it is a list of blocks, else res.
func transcriptResultMessage(content json.RawMessage, res string) string {
	if firstByte(content) != '[' {
		return res
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return res
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	if len(texts) == 0 {
		return res
	}
	return strings.Join(texts, "\n")
}
