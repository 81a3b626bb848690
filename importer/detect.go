package importer

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
)

// Detect tells an input's shape from its first bytes (up to
// converter.DetectSize; give it that much when the input has it). It looks
// at content only, never at a file name, and returns Unknown when no shape
// fits.
func Detect(head []byte) Shape {
	if isOTLPStream(head) {
		return OTLPStream
	}
	switch converter.Detect(head) {
	case converter.FormatArtifact:
		return Artifact
	case converter.FormatOTLPJSON:
		return OTLPJSON
	case converter.FormatOTLPJSONLines:
		return OTLPJSONLine
	case converter.FormatOTLPProto:
		// converter says protobuf for anything starting with 0x0A, which a
		// JSON document after a blank line does too; protobuf TracesData
		// never has '[' or '{' after its leading white-space-like bytes.
		if c := firstByte(bytes.TrimPrefix(head, byteOrderMark)); c != '[' && c != '{' {
			return OTLPProto
		}
	}
	return sniffJSON(head)
}

// isOTLPStream reports whether head starts like the file exporter's
// length-prefixed protobuf: a big-endian length no larger than the input
// (or than MaxStreamRecord when head is only the input's start), then a
// TracesData, whose first byte is the tag 0x0A. A record wholly in head
// must decode.
func isOTLPStream(head []byte) bool {
	if len(head) < 5 || head[4] != 0x0A {
		return false
	}
	n := int(binary.BigEndian.Uint32(head))
	if n == 0 || n > MaxStreamRecord {
		return false
	}
	if 4+n > len(head) {
		return len(head) >= converter.DetectSize
	}
	if err := converter.GuardOTLP(head[4:4+n], converter.FormatOTLPProto, converter.GuardOptions{}); err != nil {
		return false
	}
	if _, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(head[4 : 4+n]); err != nil {
		return false
	}
	if rest := head[4+n:]; len(rest) >= 5 {
		m := binary.BigEndian.Uint32(rest)
		return m <= MaxStreamRecord && (m == 0 || rest[4] == 0x0A)
	}
	return true
}

// jsonHead is what sniffJSON saw of the first JSON object: its top-level
// keys, their string values, and the first object under "data".
type jsonHead struct {
	keys     map[string]bool
	strs     map[string]string
	data     *jsonHead // the first object under "data" (Jaeger)
	events   *jsonHead // the first object under "events" (a stored trace of streaming events)
	entries  *jsonHead // the first object under "entries" (an AgentEval trace)
	complete bool
}

// sniffJSON recognises the JSON shapes by the keys of their first object
// (the first element of an array): head may end anywhere.
func sniffJSON(head []byte) Shape {
	head = bytes.TrimPrefix(head, byteOrderMark)
	if rest, ok := bytes.CutPrefix(head, []byte("data:")); ok { // server-sent events, as the chat app streams them
		if s := sniffJSON(bytes.TrimLeft(rest, " \t")); s == Events {
			return Events
		}
		return Unknown
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil {
		return Unknown
	}
	inArray := false
	if tok == json.Delim('[') {
		inArray = true
		if tok, err = dec.Token(); err != nil {
			return Unknown
		}
	}
	if tok != json.Delim('{') {
		return Unknown
	}
	h := readHead(dec, !inArray)
	typ := h.strs["type"]
	switch {
	case !inArray && isPastTenseType(typ) && (h.keys["sessionId"] || h.keys["transcriptId"] || !h.complete):
		return Transcript
	case !inArray && typ == "metadata" && h.keys["session_id"]:
		return Trajectory
	case !inArray && typ != "" && h.keys["task_id"]:
		return Trajectory
	case eventTypes[typ] && isStreamEvent(h):
		return Events
	case !inArray && h.events != nil && !h.keys["type"] && eventTypes[h.events.strs["type"]] && isStreamEvent(h.events):
		return Events // a stored trace, {"events":[…]}
	case !inArray && isATIF(h):
		return ATIF
	case isAgentEvalEntry(h):
		return AgentEval // a bare list of TraceEntry
	case !inArray && h.entries != nil && isAgentEvalEntry(h.entries):
		return AgentEval
	case !inArray && (h.keys["entries"] || h.keys["Entries"]) && h.entries == nil &&
		(h.keys["traceName"] || h.keys["capturedAt"] || h.keys["TraceName"] || h.keys["CapturedAt"]):
		return AgentEval // an AgentTrace whose first entry is past the head, or none
	case h.keys["traceID"] && (h.keys["spans"] || h.keys["processes"]):
		return Jaeger
	case h.data != nil && (h.data.keys["traceID"] || h.data.keys["spans"]):
		return Jaeger
	}
	return Unknown
}

// isATIF reports whether an object reads as an ATIF trajectory: its
// schema_version says so, or (a version-less producer, or the version
// past the head) it has an agent and steps with a session or trajectory
// id, the members only ATIF's root has together.
func isATIF(h *jsonHead) bool {
	if strings.HasPrefix(h.strs["schema_version"], "ATIF-") {
		return true
	}
	return h.keys["agent"] && h.keys["steps"] && (h.keys["session_id"] || h.keys["trajectory_id"]) && !h.keys["type"]
}

// isStreamEvent reports whether an object whose type is a streaming event
// type has a member only streaming events have: conversation_id is
// optional (and a number in the seed's own types), so the others count too.
func isStreamEvent(h *jsonHead) bool {
	for _, k := range [...]string{"conversation_id", "tool_call_id", "timestamp", "content", "message_id",
		"error_code", "reason", "trace_id", "delta", "output", "tool_name", "tool_args", "status", "duration_ms",
		"error_message", "user_message_id", "partial_message_id", "truncated", "full_length"} {
		if h.keys[k] {
			return true
		}
	}
	return false
}

// isAgentEvalEntry reports whether an object reads as an AgentEval
// TraceEntry: its type one of the entry types, with an index.
func isAgentEvalEntry(h *jsonHead) bool {
	switch cmp.Or(h.strs["type"], h.strs["Type"]) {
	case "Request", "Response", "ToolCall", "StreamChunk":
		return h.keys["index"] || h.keys["Index"]
	}
	return false
}

// eventTypes are the types of streaming trace events (dialects.md §4).
var eventTypes = map[string]bool{
	"tool_start": true, "tool_output": true, "tool_end": true, "thinking": true,
	"text": true, "final": true, "cancelled": true, "error": true,
}

// isPastTenseType reports whether typ reads <entity>[.<sub>].<verb>ed, as
// transcript record types do ("session.started", "tools.added").
func isPastTenseType(typ string) bool {
	segs := strings.Split(typ, ".")
	if len(segs) < 2 || !strings.HasSuffix(segs[len(segs)-1], "ed") {
		return false
	}
	for _, s := range segs {
		if s == "" {
			return false
		}
		for _, c := range s {
			if (c < 'a' || c > 'z') && c != '_' {
				return false
			}
		}
	}
	return true
}

// readHead reads the members of the object whose '{' dec just returned,
// descending into "data" and "events" when withData is set; it stops quietly where the
// input ends.
func readHead(dec *json.Decoder, withData bool) *jsonHead {
	h := &jsonHead{keys: make(map[string]bool), strs: make(map[string]string)}
	for {
		tok, err := dec.Token()
		if err != nil {
			return h
		}
		if tok == json.Delim('}') {
			h.complete = true
			return h
		}
		key, ok := tok.(string)
		if !ok {
			return h
		}
		h.keys[key] = true
		v, err := dec.Token()
		if err != nil {
			return h
		}
		switch v {
		case json.Delim('{'):
			if withData && key == "data" {
				h.data = readHead(dec, false)
				if !h.data.complete {
					return h
				}
				continue
			}
			if !skipContainer(dec) {
				return h
			}
		case json.Delim('['):
			var dst **jsonHead
			switch {
			case withData && key == "data":
				dst = &h.data
			case withData && key == "events":
				dst = &h.events
			case withData && strings.EqualFold(key, "entries"):
				dst = &h.entries
			}
			if dst != nil { // the first element, when an object
				t, err := dec.Token()
				switch {
				case err != nil:
					return h
				case t == json.Delim(']'):
					continue
				case t == json.Delim('{'):
					if *dst = readHead(dec, false); !(*dst).complete {
						return h
					}
				case t == json.Delim('[') && !skipContainer(dec):
					return h
				}
			}
			if !skipContainer(dec) {
				return h
			}
		default:
			if s, ok := v.(string); ok {
				h.strs[key] = s
			}
		}
	}
}

// skipContainer consumes tokens up to the end of the container whose
// opening delimiter dec just returned; false when the input ends first.
func skipContainer(dec *json.Decoder) bool {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return true
}

// For returns the reader of shape s; false for Unknown or a shape it does
// not know.
func For(s Shape) (Func, bool) {
	switch s {
	case Artifact:
		return readArtifact, true
	case OTLPJSON:
		return readOTLPWhole(converter.FormatOTLPJSON), true
	case OTLPProto:
		return readOTLPWhole(converter.FormatOTLPProto), true
	case OTLPJSONLine:
		return readOTLPLines, true
	case OTLPStream:
		return ReadOTLPStream, true
	case Events:
		return ReadEvents, true
	case Jaeger:
		return ReadJaeger, true
	case Transcript:
		return ReadTranscript, true
	case Trajectory:
		return ReadTrajectory, true
	case AgentEval:
		return ReadAgentEval, true
	case ATIF:
		return ReadATIF, true
	}
	return nil, false
}

// ForGrowing is For for a file still being written, as serve follows one:
// what the input leaves open at its end — a tool call without its result,
// a model request without its response, a session or run without its end
// — is a span in flight (a start record, artifact.Record.InFlight), not an
// error "incomplete", since the next lines may close it. Shapes that have
// no such spans read as For reads them.
func ForGrowing(s Shape) (Func, bool) {
	switch s {
	case Transcript:
		return growing(readTranscript), true
	case Trajectory:
		return growing(readTrajectory), true
	case Events:
		return growing(readEvents), true
	}
	return For(s)
}

// growing is read for a file still being written.
func growing(read func(io.Reader, string, func(*artifact.Record) error, bool) (Stats, error)) Func {
	return func(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
		return read(r, name, emit, true)
	}
}

// readArtifact reads an agenttrace artifact (tool-dispatch traces
// included) with converter's Reader.
func readArtifact(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	var st Stats
	rd := artifact.NewReader(r, artifact.WithSource(name), artifact.WithProblemHandler(func(le *artifact.LineError) {
		st.Problems = append(st.Problems, le)
		st.Skipped++
	}))
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, err
		}
		st.Records++
		if err := emit(rec); err != nil {
			return st, err
		}
	}
	if n := rd.Stats().Unknown; n > 0 {
		st.Unknown = map[string]int64{"unknown kind": n}
	}
	return st, nil
}

// readOTLPWhole reads one OTLP document (JSON or protobuf), which is read
// whole, and emits its spans in the order they end.
func readOTLPWhole(f converter.Format) Func {
	return func(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
		s := sink{name: name, emit: emit}
		td, err := converter.ReadOTLP(r, f, name)
		if err == nil {
			err = s.putAll(artifact.Records(td))
		}
		return s.done(), err
	}
}

// readOTLPLines reads OTLP/JSON lines one line at a time: a line that does
// not decode is reported and skipped.
func readOTLPLines(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	s := sink{name: name, emit: emit}
	lines := artifact.NewLineReader(r, artifact.DefaultMaxLineSize)
	var u ptrace.JSONUnmarshaler
	err := s.eachLine(lines, func(line []byte) error {
		err := converter.GuardOTLP(line, converter.FormatOTLPJSON, converter.GuardOptions{Strict: true})
		var td ptrace.Traces
		if err == nil {
			td, err = u.UnmarshalTraces(line)
		}
		if ie := (*converter.InputError)(nil); errors.As(err, &ie) {
			// The problem has the line; the guard's message says OTLP/JSON.
			s.problem(lines.Line(), fmt.Errorf("column %d: %w", ie.Column, ie.Err))
			return nil
		}
		if err != nil {
			s.problem(lines.Line(), fmt.Errorf("OTLP/JSON: %w", err))
			return nil
		}
		return s.putAll(artifact.Records(td))
	})
	return s.done(), err
}
