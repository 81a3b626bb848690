package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Attributes the importers write that no convention defines.
const (
	attrSourceTraceID    = "agenttrace.source_trace_id"
	attrUserMessageID    = "agenttrace.user_message_id"
	attrPartialMessageID = "agenttrace.partial_message_id"
)

// errCancelled is the error type of a tool call or stream cut by a
// cancelled event (tool_end with status error is errTool, a tool call
// still open when the stream ended errIncomplete).
const errCancelled = "cancelled"

// streamEvent is one streaming trace event (dialects.md §4). Fields whose
// JSON type varies between producers are kept raw and read leniently.
type streamEvent struct {
	Type             string          `json:"type"`
	ConversationID   json.RawMessage `json:"conversation_id"` // a number in the seed's types, a string in others
	Timestamp        json.RawMessage `json:"timestamp"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolName         string          `json:"tool_name"`
	ToolArgs         json.RawMessage `json:"tool_args"`
	Output           json.RawMessage `json:"output"`
	Truncated        json.RawMessage `json:"truncated"`
	FullLength       json.RawMessage `json:"full_length"`
	Status           string          `json:"status"`
	DurationMS       json.RawMessage `json:"duration_ms"`
	ErrorMessage     string          `json:"error_message"`
	Content          string          `json:"content"`
	Delta            json.RawMessage `json:"delta"`
	MessageID        json.RawMessage `json:"message_id"` // database ids: numbers or strings
	UserMessageID    json.RawMessage `json:"user_message_id"`
	TraceID          string          `json:"trace_id"`
	Reason           string          `json:"reason"`
	PartialMessageID json.RawMessage `json:"partial_message_id"`
	ErrorCode        string          `json:"error_code"`
}

// ReadEvents reads streaming trace events (dialects.md §4; seed 003) and
// emits one trace per conversation_id. It is a [Func]. The events come as
// a JSON array, one event per line, the stored trace object
// {"events":[…]} (written out over several lines, or one agent_traces row
// per line with its other columns, kept on the roots as
// agenttrace.events.<column>), or the server-sent events the chat app
// streams ("data: {…}" lines). conversation_id is a number in the seed's
// own types, or a string; an event without one belongs to the
// conversation of the event before it (the stored events and the app's
// cancelled event name none).
//
// # Mapping
//
//   - The conversation is an invoke_agent root span (gen_ai.conversation.id)
//     from its first event to its final, cancelled or last event; it is
//     emitted last. final's trace_id (an opaque id, not an OTel one) is
//     kept as agenttrace.source_trace_id and user_message_id as
//     agenttrace.user_message_id. Events of a conversation after its final
//     start a second root in the same trace.
//   - tool_start … tool_end with one tool_call_id is an
//     "execute_tool {tool_name}" span: gen_ai.tool.name, gen_ai.tool.call.id,
//     tool_args as gen_ai.tool.call.arguments (a JSON string), the
//     tool_output outputs as gen_ai.tool.call.result (string chunks
//     concatenated, other values as JSON). An output marked truncated sets
//     agenttrace.truncated and keeps full_length in agenttrace.full_length.
//     tool_end with status error is an error status with its
//     error_message and error.type "tool_error"; without a tool_start,
//     duration_ms gives the start.
//   - thinking and text events between tool calls are one chat span per
//     assistant turn, ended by the next tool_start, final, cancelled or
//     error: gen_ai.output.messages holds one assistant message with a
//     reasoning part (thinking) and text parts (delta chunks concatenated;
//     a whole text after its chunks replaces them), and a finish_reason
//     (tool_call, stop, cancelled, error). final's message_id is the last
//     turn's gen_ai.response.id (the root's when no turn is open). The
//     shape carries no model and no usage.
//   - cancelled makes every tool call still open an error span with
//     error.type "cancelled" and the reason as message, and the root an
//     error too. error makes the root an error (error.type = error_code)
//     with an "exception" event. A tool call still open when the input
//     ends is an error span "incomplete".
//
// # Input
//
// Times are RFC 3339 (no zone: UTC) or epoch seconds, milliseconds,
// microseconds or nanoseconds; an event without one takes the time of the
// conversation's event before it. Events that are not JSON objects or have
// no type are reported in Stats.Problems with their line, and skipped;
// other types are counted in Stats.Unknown. The line form is read a line
// at a time (up to 16 MiB each) and holds only open conversations; the
// array form is read whole.
func ReadEvents(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	return readEvents(r, name, emit, false)
}

// readEvents is ReadEvents, of a stream still being written when growing
// (see ForGrowing).
func readEvents(r io.Reader, name string, emit func(*artifact.Record) error, growing bool) (Stats, error) {
	st := newEventsState(name, emit)
	st.growing = growing
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := peekNonSpace(br)
	if err != nil && !errors.Is(err, io.EOF) {
		return Stats{}, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case first == '[':
		err = st.readArray(br)
	case first == '{' && !firstLineIsValue(br):
		err = st.readObject(br) // a stored trace written out with indentation
	default:
		err = st.readLines(artifact.NewLineReader(br, artifact.DefaultMaxLineSize))
	}
	if err == nil {
		err = st.flushAll()
	}
	return st.done(), err
}

// eventsState is the reading state: the conversations still open.
type eventsState struct {
	synth
	convs map[string]*evConv
	order []string       // open conversations, first seen first
	turns map[string]int // roots started per conversation
	// lastConv is the conversation of the event before: an event that
	// names none (the seed's cancelled and stored events) belongs to it.
	lastConv string
	// row holds the members of a stored trace object besides "events"
	// (the agent_traces row: trace_id, conversation_id, status, ...), put
	// on every root it holds as agenttrace.events.<key>; its trace_id (the
	// row's own, an opaque uuid) as agenttrace.source_trace_id.
	row      [][2]string
	rowTrace string
}

// convID is the conversation an event belongs to: the one it names (a
// number, as the seed's TypeScript types say, or a string), else the one
// of the event before.
func (s *eventsState) convID(raw json.RawMessage) string {
	if id := rawString(raw); id != "" {
		s.lastConv = id
		return id
	}
	return s.lastConv
}

func newEventsState(name string, emit func(*artifact.Record) error) *eventsState {
	return &eventsState{
		synth: newSynth(name, emit),
		convs: make(map[string]*evConv),
		turns: make(map[string]int),
	}
}

// eventsRowPrefix prefixes the members of a stored trace object kept on
// its roots.
const eventsRowPrefix = "agenttrace.events."

// readLines reads the line form: a line over the limit is reported and
// skipped, a blank one skipped. A line may also be a stored trace object
// ({"events":[…]}, one row per line), or a server-sent-events line as the
// chat app streams them ("data: {…}"; the stream's other fields and
// comments carry no event and are passed over).
func (s *eventsState) readLines(lr *artifact.LineReader) error {
	return s.eachLine(lr, func(line []byte) error {
		line = bytes.TrimPrefix(line, byteOrderMark)
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			line = bytes.TrimSpace(rest)
		} else if sseField(line) {
			return nil
		}
		if isStoredTrace(line) {
			return s.storedTrace(line, lr.Line())
		}
		return s.handleRaw(line, lr.Line())
	})
}

// sseField reports whether line is a server-sent-events line other than
// data: a comment (":…") or an event, id or retry field.
func sseField(line []byte) bool {
	if len(line) > 0 && line[0] == ':' {
		return true
	}
	for _, f := range [...]string{"event:", "id:", "retry:"} {
		if bytes.HasPrefix(line, []byte(f)) {
			return true
		}
	}
	return false
}

// isStoredTrace reports whether an object is a stored trace (it has an
// "events" member and no "type"), not an event.
func isStoredTrace(raw []byte) bool {
	if firstByte(raw) != '{' || !bytes.Contains(raw, []byte(`"events"`)) {
		return false
	}
	var probe struct {
		Type   *json.RawMessage `json:"type"`
		Events *json.RawMessage `json:"events"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.Type == nil && probe.Events != nil && firstByte(*probe.Events) == '['
}

// firstLineIsValue reports whether the input's first line is a whole JSON
// value (the line form), as opposed to the start of a document written
// over several lines.
func firstLineIsValue(br *bufio.Reader) bool {
	p, _ := br.Peek(br.Size())
	i := bytes.IndexByte(p, '\n')
	if i < 0 {
		if len(p) == br.Size() {
			return true // a first line longer than the buffer: read as lines
		}
		i = len(p)
	}
	return json.Valid(bytes.TrimPrefix(bytes.TrimSpace(p[:i]), byteOrderMark))
}

// readObject reads a stored trace written out as one document
// ({"events":[…]} and the other members of its row), read whole.
func (s *eventsState) readObject(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	data = bytes.TrimPrefix(data, byteOrderMark)
	lines := newOffsetLines(data)
	if !isStoredTrace(data) {
		var probe map[string]json.RawMessage
		err := json.Unmarshal(data, &probe)
		if err == nil {
			err = errors.New(`an object of events has an "events" array`)
		}
		s.problem(1, fmt.Errorf("%w: %w", artifact.ErrBadRecord, err))
		return nil
	}
	return s.storedTraceAt(data, 0, lines)
}

// storedTrace reads a stored trace object that is one line of the input.
func (s *eventsState) storedTrace(line []byte, n int) error {
	lines := &offsetLines{data: line, line: n}
	return s.storedTraceAt(line, 0, lines)
}

// storedTraceAt reads the stored trace object at data[off:]: its members
// other than "events" go on the roots it holds, its events are read in
// order. The roots are closed at its end, so one row is one run.
func (s *eventsState) storedTraceAt(data []byte, off int, lines *offsetLines) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data[off:], &members); err != nil {
		s.problem(lines.at(off), fmt.Errorf("%w: %w", artifact.ErrBadRecord, err))
		return nil
	}
	s.row = s.row[:0]
	keys := make([]string, 0, len(members))
	for k := range members {
		if k != "events" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := members[k]; string(v) != "null" && k != "trace_id" && k != "conversation_id" {
			s.row = append(s.row, [2]string{k, string(v)})
		}
	}
	s.rowTrace = rawString(members["trace_id"])
	if id := rawString(members["conversation_id"]); id != "" {
		s.lastConv = id
	}
	dec := json.NewDecoder(bytes.NewReader(data[off:]))
	if _, err := dec.Token(); err != nil { // '{'
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if tok != "events" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if _, err := dec.Token(); err != nil { // '['
			return nil
		}
		for dec.More() {
			at := jsonValueStart(data, off+int(dec.InputOffset()))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				s.problem(lines.at(at), fmt.Errorf("events array: %w", err))
				return nil
			}
			if err := s.handleRaw(raw, lines.at(at)); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil
		}
	}
	err := s.flushAll()
	s.row, s.rowTrace = s.row[:0], ""
	return err
}

// readArray reads the array form whole and takes its events one by one, so
// a bad event is reported with its line and skipped.
func (s *eventsState) readArray(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	data = bytes.TrimPrefix(data, byteOrderMark)
	lines := newOffsetLines(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '['
		s.problem(lines.at(int(dec.InputOffset())), err)
		return nil
	}
	for dec.More() {
		off := jsonValueStart(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			s.problem(lines.at(off), fmt.Errorf("events array: %w", err))
			return nil
		}
		if err := s.handleRaw(raw, lines.at(off)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		s.problem(lines.at(int(dec.InputOffset())), fmt.Errorf("events array: %w", err))
		return nil
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		s.problem(lines.at(int(dec.InputOffset())), errors.New("data after the events array"))
	}
	return nil
}

// handleRaw decodes one event and applies it; only an emit error is
// returned, problems with the event are recorded.
func (s *eventsState) handleRaw(raw []byte, line int) error {
	if firstByte(raw) != '{' {
		s.problem(line, fmt.Errorf("%w: an event is a JSON object", artifact.ErrBadRecord))
		return nil
	}
	var ev streamEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			s.problem(line, fmt.Errorf("%w: %w", artifact.ErrBadRecord, err))
			return nil
		}
		// The other fields decoded: report the odd one and go on.
		s.problem(line, fmt.Errorf("event %q: %w", ev.Type, err))
	}
	if ev.Type == "" {
		s.problem(line, fmt.Errorf("%w: event has no type", artifact.ErrBadRecord))
		return nil
	}
	return s.apply(&ev, line)
}

func (s *eventsState) apply(ev *streamEvent, line int) error {
	if !eventTypes[ev.Type] {
		s.unknown(ev.Type)
		return nil
	}
	ts, ok, err := eventTime(ev.Timestamp)
	if err != nil {
		s.problem(line, fmt.Errorf("%s event: timestamp: %w", ev.Type, err))
	}
	c := s.conv(s.convID(ev.ConversationID), ts, ok)
	if !ok {
		ts = c.last
	}
	c.last = max(c.last, ts)
	switch ev.Type {
	case "tool_start", "tool_output", "tool_end":
		return s.applyTool(c, ev, ts)
	case "thinking":
		c.turn(ts).add("reasoning", ev.Content, true)
	case "text":
		delta, _ := lenientBool(ev.Delta)
		c.turn(ts).add("text", ev.Content, delta)
	case "final":
		msgID := rawString(ev.MessageID)
		if msgID != "" && c.chat == nil {
			c.root.Attributes().PutStr(semconv.ResponseID, msgID)
		}
		if err := s.closeChat(c, ts, "stop", msgID); err != nil {
			return err
		}
		if ev.TraceID != "" {
			c.root.Attributes().PutStr(attrSourceTraceID, ev.TraceID)
		}
		putStr(c.root.Attributes(), attrUserMessageID, rawString(ev.UserMessageID))
		return s.endConv(c, ts, errIncomplete, "no tool_end before the final event")
	case "cancelled":
		partial := rawString(ev.PartialMessageID)
		if partial != "" && c.chat == nil {
			c.root.Attributes().PutStr(attrPartialMessageID, partial)
		}
		if err := s.closeChat(c, ts, errCancelled, partial); err != nil {
			return err
		}
		setError(c.root, errCancelled, ev.Reason)
		return s.endConv(c, ts, errCancelled, ev.Reason)
	case "error":
		if err := s.closeChat(c, ts, "error", ""); err != nil {
			return err
		}
		code := ev.ErrorCode
		if code == "" {
			code = "error"
		}
		setError(c.root, code, ev.ErrorMessage)
		addException(c.root, ts, code, ev.ErrorMessage, "")
	}
	return nil
}

// applyTool applies a tool event (tool_start, tool_output, tool_end) of
// conversation c at ts.
func (s *eventsState) applyTool(c *evConv, ev *streamEvent, ts uint64) error {
	switch ev.Type {
	case "tool_start":
		if err := s.closeChat(c, ts, "tool_call", ""); err != nil {
			return err
		}
		if old, ok := c.calls[ev.ToolCallID]; ok && old.started {
			old.fail(errIncomplete, "tool_start again before tool_end")
			if err := s.endCall(c, old, ts); err != nil {
				return err
			}
		}
		call := c.call(ev.ToolCallID, ts)
		call.started = true
		call.span.SetStartTimestamp(pcommon.Timestamp(ts))
		if ev.ToolName != "" {
			call.setTool(ev.ToolName)
		}
		if args, ok := jsonText(ev.ToolArgs); ok {
			call.span.Attributes().PutStr(semconv.ToolCallArguments, args)
		}
	case "tool_output":
		call := c.call(ev.ToolCallID, ts)
		if ev.ToolName != "" && call.tool == "" {
			call.setTool(ev.ToolName)
		}
		if len(ev.Output) > 0 && string(ev.Output) != "null" {
			call.outputs = append(call.outputs, append(json.RawMessage(nil), ev.Output...))
		}
		if b, ok := lenientBool(ev.Truncated); ok && b {
			call.span.Attributes().PutBool(attrTruncated, true)
			if n, ok := jsonInt(ev.FullLength); ok {
				call.span.Attributes().PutInt(attrFullLength, n)
			}
		}
	case "tool_end":
		call := c.call(ev.ToolCallID, ts)
		if ev.ToolName != "" && call.tool == "" {
			call.setTool(ev.ToolName)
		}
		end := ts
		if ms, ok := lenientFloat(ev.DurationMS); ok && ms >= 0 && !call.started {
			d := uint64(ms * 1e6)
			start := uint64(0)
			if d < end {
				start = end - d
			}
			call.span.SetStartTimestamp(pcommon.Timestamp(start))
			c.start = min(c.start, start)
		}
		if strings.EqualFold(ev.Status, "error") {
			call.fail(errTool, ev.ErrorMessage)
		}
		if err := s.endCall(c, call, end); err != nil {
			return err
		}
	}
	return nil
}

// flushAll ends the conversations the input left open, in the order they
// began: their open tool calls become error spans (or, in a stream still
// being written, spans in flight: synth.openAtEnd), nothing vanishes; a
// root spans its first to its last event.
func (s *eventsState) flushAll() error {
	for len(s.order) > 0 {
		c := s.convs[s.order[0]]
		if err := s.closeChat(c, c.last, "", ""); err != nil {
			return err
		}
		err := s.openAtEnd(func() error { return s.endCalls(c, c.last, errIncomplete, "the stream ended before tool_end") })
		if err != nil {
			return err
		}
		if err := s.endConv(c, c.last, "", ""); err != nil {
			return err
		}
	}
	return nil
}

// jsonText returns a JSON value as attribute text: a string as itself,
// anything else as compact JSON; false for a missing value or null.
func jsonText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw), true
	}
	return b.String(), true
}

// lenientFloat reads a number, also as a string.
func lenientFloat(raw json.RawMessage) (float64, bool) {
	t := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	if t == "" || t == "null" {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil
}

// peekNonSpace returns the first byte of br that is not white space (or a
// BOM) without consuming anything; 0 when the buffer holds only white
// space.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for n := 1; ; n++ {
		p, err := br.Peek(n)
		if len(p) < n {
			return 0, err
		}
		c := p[n-1]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case n <= 3 && bytes.HasPrefix(byteOrderMark, p):
		default:
			return c, nil
		}
		if n >= br.Size() {
			return 0, nil
		}
	}
}

// eventTime reads an event's timestamp (see parseTime). ok is false when
// there is none; err says that there is one that cannot be read.
func eventTime(raw json.RawMessage) (ns uint64, ok bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return 0, false, nil
	}
	if ns, ok = parseTime(raw); ok {
		return ns, true, nil
	}
	if raw[0] == '"' {
		return 0, false, fmt.Errorf("cannot read time %q", rawString(raw))
	}
	return 0, false, fmt.Errorf("cannot read time %s", raw)
}
