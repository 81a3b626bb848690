package importer

import (
	"cmp"
	"encoding/json"
	"errors"
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

// ReadTranscript reads a transcript event log (dialects.md §2) and emits
// its spans. It is a [Func].
//
// # Mapping
//
// One session (sessionId) is one trace, whose id is derived from the
// session id (see ids.go). A file may hold several sessions, interleaved
// or one after another; a record without a sessionId belongs to the
// session of the record before it (or, at the start of the file, to a
// session named by the first line).
//
//   - The session is an invoke_agent root span (gen_ai.operation.name
//     invoke_agent, gen_ai.conversation.id the session id) from its first
//     to its last record, emitted at the end of the input. It is named
//     "invoke_agent {agent}" when session.started names the agent.
//   - An inference pair (inference.requested and inference.responded of the
//     same turn; a response without a turn pairs with the latest open
//     request) is a "chat {model}" CLIENT span: provider, request model,
//     max_tokens, stop reason as gen_ai.response.finish_reasons, usage, and
//     the request's digests as agenttrace.transcript.<key>. It starts at
//     the response time minus the reported latency (the request time when
//     there is no latency) and ends at the response time.
//   - A session without inference records (recorded before the inference
//     recorder existed) still has its conversation: each assistant turn is
//     a "chat" span made from the messages (agenttrace.transcript.
//     from_messages true), its input the messages since the previous turn,
//     its output the assistant's messages, without usage or stop reason,
//     which the log does not have. Messages no model call answered (after
//     the last one) are kept on the root in agenttrace.transcript.
//     unanswered_messages.
//   - Records written before the record rename are read too:
//     transcript.started/forked/compacted as session.*, their payload
//     under "system", the session id as transcriptId.
//   - Messages are recorded in the GenAI v1.41 message schema. A chat
//     span's gen_ai.input.messages are the messages appended since the
//     previous model response (the new user turn or the tool results: what
//     this call added to the conversation, not the whole history, which
//     the log holds once and which would make memory grow with the
//     session). Its gen_ai.output.messages are the assistant messages
//     appended while the call was open or right after its response. The
//     chat span is therefore emitted when the next non-assistant record
//     arrives, not at the response itself.
//   - An assistant message's tool_use blocks open tool calls; a tool_result
//     block (in any message) or a role "tool" message naming the call
//     closes one: an "execute_tool {name}" span from the assistant message
//     to the result, with gen_ai.tool.call.id, the arguments (JSON text) and
//     the result (the text itself when it is a string, else JSON text). A
//     result marked is_error gives the span an error status and error.type
//     "tool_error".
//   - session.started/forked/compacted, state.patched, system.section.* and
//     tools.added/removed become span events on the root, named by the
//     type, with the payload as JSON text in agenttrace.transcript.payload,
//     so nothing vanishes. A forked session's root links to the root of
//     the session it was forked from.
//
// A tool call or a model request still open at the end of the input
// becomes an error span with error.type "incomplete", ending at the
// session's last record.
//
// # Usage
//
// OTel counts cached tokens inside gen_ai.usage.input_tokens. The log's
// usage has Anthropic's four counts (input, output, cache read, cache
// create), and like Anthropic's API its input does not include the cached
// tokens, so input_tokens = input + cache read + cache create. The one
// exception is an OpenAI-family provider (openai, azure.ai.openai), whose
// prompt count already includes cached tokens and is taken as it is.
//
// # Input
//
// The time is "time" or "timestamp": RFC 3339, or without a zone (UTC), or
// epoch milliseconds (a number or a string of digits). A record with no
// time takes the time of the record before it; one whose time cannot be
// read too, and the line is reported in Stats.Problems. Payload keys are
// matched without regard to case, "_" or "-" (stop_reason, stopReason).
// Lines that are not JSON are reported and skipped; types the shape does
// not define are counted in Stats.Unknown and skipped. Lines are read one
// at a time, up to 16 MiB each; only open calls, open model requests, the
// messages of the current turn and the roots' events are held.
func ReadTranscript(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	return readTranscript(r, name, emit, false)
}

// readTranscript is ReadTranscript, of a log still being written when
// growing (see ForGrowing).
func readTranscript(r io.Reader, name string, emit func(*artifact.Record) error, growing bool) (Stats, error) {
	t := transcriptReader{io: newLineIO(r, name, emit), sessions: map[string]*transcriptSession{}}
	t.io.growing = growing
	err := t.io.each(t.line)
	for i := 0; err == nil && i < len(t.order); i++ {
		err = t.closeSession(t.order[i])
	}
	return t.io.done(), err
}

// Attributes the line-oriented importers write besides the GenAI ones.
const (
	transcriptAttrPayload   = "agenttrace.transcript.payload"
	transcriptAttrRecordID  = "agenttrace.transcript.record_id"
	transcriptAttrTurn      = "agenttrace.transcript.turn"
	transcriptAttrUnmatched = "agenttrace.transcript.unmatched"
	transcriptAttrRelation  = "agenttrace.transcript.relation"
	// transcriptAttrFromMessages marks a model call made from a session's
	// messages, which has no inference record.
	transcriptAttrFromMessages = "agenttrace.transcript.from_messages"
	// transcriptAttrUnanswered holds, on the root, the messages appended
	// after the session's last model call (GenAI messages, JSON).
	transcriptAttrUnanswered = "agenttrace.transcript.unanswered_messages"
)

// transcriptLine is one record of the log. Payloads stay raw until used.
type transcriptLine struct {
	Type       string             `json:"type"`
	ID         json.RawMessage    `json:"id"`
	SessionID  string             `json:"sessionId"`
	SessionID2 string             `json:"session_id"`
	SessionID3 string             `json:"transcriptId"` // before the record rename
	Time       json.RawMessage    `json:"time"`
	Timestamp  json.RawMessage    `json:"timestamp"`
	Session    json.RawMessage    `json:"session"`
	Message    *transcriptMessage `json:"message"`
	State      json.RawMessage    `json:"state"`
	Inference  json.RawMessage    `json:"inference"`
	System     json.RawMessage    `json:"system"`
	Tools      json.RawMessage    `json:"tools"`
}

type transcriptReader struct {
	io       *lineIO
	sessions map[string]*transcriptSession
	order    []*transcriptSession
	current  *transcriptSession
	rec      transcriptLine
	lastTime uint64
}

// transcriptSession is one session's open state.
type transcriptSession struct {
	id          string
	trace       pcommon.TraceID
	rootID      pcommon.SpanID
	root        ptrace.Span // events accumulate here until the end
	start, end  uint64
	hasTime     bool
	agent       string
	provider    string
	model       string
	inferences  []*transcriptInference // requested, not yet responded
	pending     *transcriptInference   // responded, collecting output messages
	calls       map[string]*transcriptCall
	input       messageList // GenAI messages appended since the last request
	inputStart  uint64      // when the first of them was appended
	parentLinks map[string]bool
	// inferenceRecords says the session has had inference.* records. Until
	// it has (sessions recorded before the inference recorder existed),
	// each assistant turn is made a model call from its messages alone.
	inferenceRecords bool
	turns            int // model calls made from messages
}

type transcriptInference struct {
	key       string
	turn      int64
	hasTurn   bool
	reqTime   uint64
	respTime  uint64
	requested bool
	provider  string
	model     string
	maxTokens int64
	hasMax    bool
	digests   [][2]string
	input     string      // gen_ai.input.messages
	output    messageList // gen_ai.output.messages so far
	stop      string
	latency   int64 // ns
	hasLat    bool
	usage     [4]int64 // input, output, cache read, cache create as the log has them
	hasUsage  [4]bool
	fromMsgs  bool // made from the messages: the log has no inference record of it
}

type transcriptCall struct {
	key   string
	id    string
	name  string
	args  string
	start uint64
	line  int
}

func (t *transcriptReader) line(line []byte) error {
	rec := &t.rec
	*rec = transcriptLine{}
	if err := json.Unmarshal(line, rec); err != nil {
		t.io.bad(err)
		return nil
	}
	if rec.Type == "" {
		t.io.bad(errors.New(`record has no "type"`))
		return nil
	}
	var payload json.RawMessage
	switch rec.Type {
	case "session.started", "session.forked", "session.compacted":
		payload = rec.Session
	case "transcript.started", "transcript.forked", "transcript.compacted":
		// Written before the record rename: the lifecycle payload was under
		// "system" (Record.System), the session id transcriptId.
		payload = rec.Session
		if len(payload) == 0 {
			payload = rec.System
		}
	case "message.appended":
		payload = line // decoded already, into rec.Message
	case "state.patched":
		payload = rec.State
	case "inference.requested", "inference.responded":
		payload = rec.Inference
	case "system.section.added", "system.section.removed":
		payload = rec.System
	case "tools.added", "tools.removed":
		payload = rec.Tools
	default:
		t.io.unknown(rec.Type)
		return nil
	}
	if len(payload) == 0 || string(payload) == "null" {
		payload = line // a writer that put the payload's fields at the top level
	}
	s := t.session(rec, line)
	ts, ok := t.time(rec)
	if ok {
		t.lastTime = ts
		if !s.hasTime || ts < s.start {
			s.start = ts
		}
		s.end = max(s.end, ts)
		s.hasTime = true
	} else {
		ts = max(t.lastTime, s.end)
	}
	switch rec.Type {
	case "message.appended":
		m := rec.Message
		if m == nil { // a writer that put the message's fields at the top level
			m = new(transcriptMessage)
			if err := json.Unmarshal(line, m); err != nil {
				t.io.bad(fmt.Errorf("message: %w", err))
				return nil
			}
		}
		return t.message(s, m, ts)
	case "inference.requested", "inference.responded":
		s.inferenceRecords = true
		if err := t.flushPending(s); err != nil {
			return err
		}
		f, err := objectFields(payload)
		if err != nil {
			t.io.bad(fmt.Errorf("inference: %w", err))
		} else if rec.Type == "inference.requested" {
			t.requested(s, rec, f, ts)
		} else {
			t.responded(s, f, ts)
		}
		return nil
	}
	t.event(s, rec, payload, ts)
	return nil
}

// time reads the record's time; a time that cannot be read is reported.
func (t *transcriptReader) time(rec *transcriptLine) (uint64, bool) {
	if len(rec.Time) == 0 || string(rec.Time) == "null" {
		return t.io.time(rec.Timestamp)
	}
	return t.io.time(rec.Time)
}

// session returns the session rec belongs to, starting it if new.
func (t *transcriptReader) session(rec *transcriptLine, line []byte) *transcriptSession {
	id := cmp.Or(rec.SessionID, rec.SessionID2, rec.SessionID3)
	if id == "" && t.current != nil {
		return t.current
	}
	if s, ok := t.sessions[id]; ok {
		t.current = s
		return s
	}
	key := "session:" + id
	if id == "" {
		key = "line:" + string(line)
	}
	s := &transcriptSession{id: id, trace: traceIDFor(Transcript, key), root: ptrace.NewSpan(),
		calls: map[string]*transcriptCall{}}
	s.rootID = spanIDFor(s.trace, rootKey)
	t.sessions[id] = s
	t.order = append(t.order, s)
	t.current = s
	return s
}

// transcriptSessionTrace is the trace id of the session named id.
func transcriptSessionTrace(id string) pcommon.TraceID { return traceIDFor(Transcript, "session:"+id) }

// event records a session-level record as an event on the root.
func (t *transcriptReader) event(s *transcriptSession, rec *transcriptLine, payload json.RawMessage, ts uint64) {
	ev := s.root.Events().AppendEmpty()
	ev.SetName(rec.Type)
	ev.SetTimestamp(pcommon.Timestamp(ts))
	if id := rawString(rec.ID); id != "" {
		ev.Attributes().PutStr(transcriptAttrRecordID, id)
	}
	ev.Attributes().PutStr(transcriptAttrPayload, string(payload))
	switch rec.Type { // only these two are read beyond their payload
	case "session.started", "transcript.started":
		fields, _ := objectFields(payload)
		s.agent = cmp.Or(s.agent, memberStr(fields, "agent", "agentname", "name"))
		s.model = cmp.Or(s.model, memberStr(fields, "model"))
		s.provider = cmp.Or(s.provider, memberStr(fields, "provider"))
	case "session.forked", "transcript.forked":
		fields, _ := objectFields(payload)
		parent := memberStr(fields, "parentsessionid", "forkedfrom", "forkedfromsessionid",
			"fromsessionid", "sourcesessionid", "originsessionid", "parentid")
		if parent != "" && parent != s.id && !s.parentLinks[parent] {
			if s.parentLinks == nil {
				s.parentLinks = map[string]bool{}
			}
			s.parentLinks[parent] = true
			trace := transcriptSessionTrace(parent)
			l := s.root.Links().AppendEmpty()
			l.SetTraceID(trace)
			l.SetSpanID(spanIDFor(trace, rootKey))
			l.Attributes().PutStr(transcriptAttrRelation, "forked_from")
			l.Attributes().PutStr(semconv.ConversationID, parent)
		}
	}
}

// requested opens a model call of s: f is the request's payload.
func (t *transcriptReader) requested(s *transcriptSession, rec *transcriptLine, f map[string]json.RawMessage, ts uint64) {
	key := rawString(rec.ID)
	if key == "" {
		key = "line:" + strconv.Itoa(t.io.lines.Line())
	}
	inf := &transcriptInference{key: "chat:" + key, reqTime: ts, requested: true,
		provider: memberStr(f, "provider", "providername"),
		model:    memberStr(f, "model", "requestmodel")}
	inf.turn, inf.hasTurn = memberInt(f, "turn", "turnnumber")
	inf.maxTokens, inf.hasMax = memberInt(f, "maxtokens", "maxoutputtokens")
	for k, v := range f {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "sha256") || strings.Contains(lk, "digest") || strings.Contains(lk, "hash") {
			if str := rawString(v); str != "" {
				inf.digests = append(inf.digests, [2]string{k, str})
			}
		}
	}
	slices.SortFunc(inf.digests, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	inf.input = s.input.text("")
	s.input.buf = s.input.buf[:0] // kept for the next turn's messages
	s.provider = cmp.Or(s.provider, inf.provider)
	s.model = cmp.Or(s.model, inf.model)
	s.inferences = append(s.inferences, inf)
}

// responded closes the model call of s that the response (payload f)
// answers; the call then collects its output messages.
func (t *transcriptReader) responded(s *transcriptSession, f map[string]json.RawMessage, ts uint64) {
	turn, hasTurn := memberInt(f, "turn", "turnnumber")
	idx := -1
	for i := len(s.inferences) - 1; i >= 0; i-- {
		if !hasTurn || !s.inferences[i].hasTurn || s.inferences[i].turn == turn {
			idx = i
			break
		}
	}
	var inf *transcriptInference
	if idx >= 0 {
		inf = s.inferences[idx]
		s.inferences = slices.Delete(s.inferences, idx, idx+1)
	} else { // a response whose request is not in the log
		inf = &transcriptInference{key: "chat:line:" + strconv.Itoa(t.io.lines.Line()), turn: turn, hasTurn: hasTurn,
			provider: memberStr(f, "provider", "providername"), model: memberStr(f, "model")}
	}
	inf.respTime = ts
	inf.stop = memberStr(f, "stopreason", "finishreason")
	if m := memberStr(f, "model", "responsemodel"); m != "" && inf.model == "" {
		inf.model = m
	}
	inf.latency, inf.hasLat = memberDuration(f, "latencyms", "latency", "durationms")
	if u, ok := f[memberKey(f, "usage")]; ok {
		uf, _ := objectFields(u)
		inf.usage, inf.hasUsage = usageMembers(uf)
	}
	s.pending = inf
}

// flushPending emits the model call that was collecting its output.
func (t *transcriptReader) flushPending(s *transcriptSession) error {
	inf := s.pending
	if inf == nil {
		return nil
	}
	s.pending = nil
	return t.io.send(chatSpan(s, inf, false))
}
