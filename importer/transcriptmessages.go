package importer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/semconv"
)

// transcriptMessage is a message.appended payload.
type transcriptMessage struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	ToolCallID  string          `json:"tool_call_id"`
	ToolCallID2 string          `json:"toolCallId"`
	ToolUseID   string          `json:"tool_use_id"`
	ToolUseID2  string          `json:"toolUseId"`
	IsError     bool            `json:"is_error"`
	IsError2    bool            `json:"isError"`
	Name        string          `json:"name"`
}

// transcriptBlock is one content block.
type transcriptBlock struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	Source     json.RawMessage `json:"source"`
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id"`
	ToolUseID2 string          `json:"toolUseId"`
	Content    json.RawMessage `json:"content"`
	IsError    bool            `json:"is_error"`
	IsError2   bool            `json:"isError"`
	Thinking   string          `json:"thinking"`
}

func (t *transcriptReader) message(s *transcriptSession, m *transcriptMessage, ts uint64) error {
	var blocks []transcriptBlock
	var raws []json.RawMessage
	text, isText := "", false
	switch firstByte(m.Content) {
	case '"':
		if err := json.Unmarshal(m.Content, &text); err != nil {
			t.io.bad(fmt.Errorf("message content: %w", err))
			return nil
		}
		isText = true
	case '[':
		// One pass in the common case; blocks that are bare strings or of
		// types passed through as they are need each block's own text.
		if err := json.Unmarshal(m.Content, &blocks); err == nil && !transcriptNeedRaw(blocks) {
			break
		}
		if err := json.Unmarshal(m.Content, &raws); err != nil {
			t.io.bad(fmt.Errorf("message content: %w", err))
			return nil
		}
		blocks = make([]transcriptBlock, len(raws))
		for i, raw := range raws {
			if firstByte(raw) == '"' { // a bare string is a text block
				_ = json.Unmarshal(raw, &blocks[i].Text)
				blocks[i].Type = "text"
				continue
			}
			if err := json.Unmarshal(raw, &blocks[i]); err != nil {
				t.io.bad(fmt.Errorf("message content block %d: %w", i, err))
				return nil
			}
		}
	}
	role := cmp.Or(m.Role, "user")
	msgID := cmp.Or(m.ToolCallID, m.ToolCallID2, m.ToolUseID, m.ToolUseID2)
	add := func(l *messageList) {
		l.buf = transcriptGenAIMessage(l.next(), role, text, isText, m.Content, blocks, raws, msgID)
	}

	if role == "assistant" {
		inf := s.outputTarget()
		if inf == nil && !s.inferenceRecords {
			inf = t.turnFromMessages(s, ts)
		}
		if inf != nil {
			add(&inf.output)
		} else {
			add(&s.input)
		}
		line := t.io.lines.Line()
		for i := range blocks {
			b := &blocks[i]
			if b.Type != "tool_use" && b.Type != "server_tool_use" {
				continue
			}
			key := b.ID
			if key == "" {
				key = "line:" + strconv.Itoa(line) + ":" + strconv.Itoa(i)
			}
			if _, open := s.calls[key]; open {
				continue
			}
			c := &transcriptCall{key: "tool:" + key, id: b.ID, name: b.Name, start: ts, line: line}
			if len(b.Input) > 0 {
				c.args = string(b.Input)
			}
			s.calls[key] = c
		}
		return nil
	}
	// Anything but the assistant's own words ends the previous response.
	if err := t.flushPending(s); err != nil {
		return err
	}
	if len(s.input.buf) == 0 {
		s.inputStart = ts
	}
	add(&s.input)
	for i := range blocks {
		b := &blocks[i]
		if b.Type != "tool_result" {
			continue
		}
		if err := t.result(s, cmp.Or(b.ToolUseID, b.ToolUseID2), b.Content, b.IsError || b.IsError2, ts); err != nil {
			return err
		}
	}
	if role == "tool" && (msgID != "" || len(s.calls) == 1) && !transcriptHasType(blocks, "tool_result") {
		if msgID == "" {
			for k := range s.calls { // the one open call
				msgID = k
			}
		}
		return t.result(s, msgID, m.Content, m.IsError || m.IsError2, ts)
	}
	return nil
}

// transcriptNeedRaw reports whether a block is of a type passed through as
// it is (see transcriptGenAIMessage).
func transcriptNeedRaw(blocks []transcriptBlock) bool {
	for i := range blocks {
		switch blocks[i].Type {
		case "text", "tool_use", "server_tool_use", "tool_result", "thinking":
		default:
			return true
		}
	}
	return false
}

func transcriptHasType(blocks []transcriptBlock, typ string) bool {
	for i := range blocks {
		if blocks[i].Type == typ {
			return true
		}
	}
	return false
}

// turnFromMessages opens the model call an assistant message answers in a
// session without inference records: its input is the messages appended
// since the previous turn, it runs from the first of them to the
// assistant's message, and it collects the assistant messages that follow
// until another message or record ends it, as a responded call does. It
// carries no usage and no stop reason: the log has none.
func (t *transcriptReader) turnFromMessages(s *transcriptSession, ts uint64) *transcriptInference {
	s.turns++
	start := ts
	if len(s.input.buf) > 0 {
		start = min(s.inputStart, ts)
	}
	inf := &transcriptInference{key: "chat:messages:" + strconv.Itoa(s.turns), reqTime: start, respTime: ts,
		requested: true, provider: s.provider, model: s.model, fromMsgs: true}
	inf.input = s.input.text("")
	s.input.buf = s.input.buf[:0]
	s.pending = inf
	return inf
}

// outputTarget is the model call an assistant message is the output of:
// the one awaiting its output after its response, else the latest open one.
func (s *transcriptSession) outputTarget() *transcriptInference {
	if s.pending != nil {
		return s.pending
	}
	if n := len(s.inferences); n > 0 {
		return s.inferences[n-1]
	}
	return nil
}

// result closes the tool call id with content at ts.
func (t *transcriptReader) result(s *transcriptSession, id string, content json.RawMessage, isError bool, ts uint64) error {
	c, ok := s.calls[id]
	if ok {
		delete(s.calls, id)
	} else {
		key := id
		if key == "" {
			key = "line:" + strconv.Itoa(t.io.lines.Line())
		}
		c = &transcriptCall{key: "tool:" + key, id: id, start: ts, line: t.io.lines.Line()}
	}
	sp := callSpan(s, c)
	sp.SetEndTimestamp(pcommon.Timestamp(max(ts, c.start)))
	attrs := sp.Attributes()
	if !ok {
		attrs.PutBool(transcriptAttrUnmatched, true)
	}
	res := resultText(content)
	if len(content) > 0 {
		attrs.PutStr(semconv.ToolCallResult, res)
	}
	if isError {
		setError(sp, errTool, shortMessage(transcriptResultMessage(content, res)))
	}
	return t.io.send(sp)
}
