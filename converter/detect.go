package converter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// Format is the kind of an input file.
type Format uint8

// Input formats Detect tells apart.
const (
	FormatUnknown Format = iota
	// FormatArtifact is agenttrace JSONL (including tool-dispatch traces).
	FormatArtifact
	// FormatOTLPJSON is one OTLP/JSON TracesData (or export request) document.
	FormatOTLPJSON
	// FormatOTLPJSONLines is one OTLP/JSON TracesData per line, as the
	// collector's file exporter writes.
	FormatOTLPJSONLines
	// FormatOTLPProto is a binary OTLP TracesData (or export request).
	FormatOTLPProto
	// FormatOTLPLogsJSON is one OTLP/JSON LogsData (or export request).
	FormatOTLPLogsJSON
	// FormatOTLPLogsJSONLines is one OTLP/JSON LogsData per line.
	FormatOTLPLogsJSONLines
	// FormatOTLPLogsProto is a binary OTLP LogsData (or export request).
	FormatOTLPLogsProto
)

var formatNames = [...]string{"unknown", "jsonl", "otlp-json", "otlp-json-lines", "otlp-proto",
	"otlp-logs-json", "otlp-logs-json-lines", "otlp-logs-proto"}

// IsLogs reports whether f is an OTLP logs format: the official GenAI
// instrumentations send message content as log records, next to the
// spans, and a reader must not take them for a broken trace payload.
func (f Format) IsLogs() bool {
	return f == FormatOTLPLogsJSON || f == FormatOTLPLogsJSONLines || f == FormatOTLPLogsProto
}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "unknown"
}

// ErrUnknownFormat: the input is none of the formats Detect knows.
var ErrUnknownFormat = errors.New("unknown input format: not an agenttrace artifact, OTLP/JSON or OTLP protobuf")

// ErrNotOTLP: a JSON document read as OTLP/JSON has no resourceSpans.
var ErrNotOTLP = errors.New("no resourceSpans: not OTLP")

// ErrNotOTLPLogs: a line read as OTLP/JSON logs has no resourceLogs.
var ErrNotOTLPLogs = errors.New("no resourceLogs: not OTLP logs")

// CheckOTLPJSON refuses a JSON document that is not OTLP before pdata
// decodes it: pdata ignores members it does not know, so an artifact line
// or a Jaeger document given as OTLP (convert --from otlp-json) would read
// as a batch of no spans, and its spans would vanish without a word. An
// object with resourceSpans passes, and so does {} (no spans, said so).
func CheckOTLPJSON(b []byte) error {
	switch firstKeys(b) {
	case "otlp":
		return nil
	case "artifact":
		return fmt.Errorf("%w (an agenttrace artifact line)", ErrNotOTLP)
	}
	var s jsonlex.Scanner
	s.Reset(bytes.TrimSpace(bytes.TrimPrefix(b, bom)))
	if s.Open('{') {
		if first := true; !s.More(&first, '}') && s.Err == nil {
			return nil // {}
		}
	}
	return ErrNotOTLP
}

// DetectSize is how much of an input Detect wants to see.
const DetectSize = 64 << 10

var bom = []byte{0xEF, 0xBB, 0xBF}

// Detect tells an input's format from its first bytes (up to DetectSize).
// It looks at content only, never at a file name.
func Detect(head []byte) Format {
	head = bytes.TrimPrefix(head, bom)
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 {
		return FormatUnknown
	}
	if trimmed[0] != '{' {
		// TracesData and ExportTraceServiceRequest both start with field 1,
		// length-delimited: tag byte 0x0A. So do LogsData and
		// ExportLogsServiceRequest: the first span or log record tells.
		if head[0] == 0x0A {
			if protoIsLogs(head) {
				return FormatOTLPLogsProto
			}
			return FormatOTLPProto
		}
		return FormatUnknown
	}
	line := trimmed
	complete := false
	if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
		line = trimmed[:i]
		var s jsonlex.Scanner
		s.Reset(line)
		s.SkipValue()
		s.End()
		complete = s.Err == nil
	}
	switch firstKeys(line) {
	case "otlp":
		if complete {
			return FormatOTLPJSONLines
		}
		return FormatOTLPJSON
	case "otlplogs":
		if complete {
			return FormatOTLPLogsJSONLines
		}
		return FormatOTLPLogsJSON
	case "artifact":
		return FormatArtifact
	}
	if !complete {
		// Pretty-printed: the first line holds no key; look further.
		switch firstKeys(trimmed) {
		case "otlp":
			return FormatOTLPJSON
		case "otlplogs":
			return FormatOTLPLogsJSON
		}
	}
	return FormatUnknown
}

// firstKeys reads the top-level keys of the object at the start of b until
// one decides the format, tolerating b ending mid-object.
func firstKeys(b []byte) string {
	var s jsonlex.Scanner
	s.Reset(b)
	if !s.Open('{') {
		return ""
	}
	for first := true; s.More(&first, '}'); {
		k := s.Key()
		if s.Err != nil {
			return ""
		}
		switch string(k) {
		case "resourceSpans", "resource_spans":
			return "otlp"
		case "resourceLogs", "resource_logs":
			return "otlplogs"
		case "kind", "v":
			return "artifact"
		}
		s.SkipValue()
	}
	return ""
}

// ReadOTLP reads OTLP traces in format f (one of the OTLP formats) from r,
// decoding with pdata. name is used in errors.
func ReadOTLP(r io.Reader, f Format, name string) (ptrace.Traces, error) {
	switch f {
	case FormatOTLPJSON, FormatOTLPProto:
		b, err := io.ReadAll(r)
		if err != nil {
			return ptrace.Traces{}, fmt.Errorf("%s: %w", name, err)
		}
		var td ptrace.Traces
		if f == FormatOTLPJSON {
			b = bytes.TrimPrefix(b, bom)
			if oneValuePerLine(b) {
				// Detect saw a first line longer than its window: the
				// collector's file exporter writes a batch per line.
				return ReadOTLP(bytes.NewReader(b), FormatOTLPJSONLines, name)
			}
		}
		if err = GuardOTLP(b, f, GuardOptions{Strict: true}); err != nil {
			return ptrace.Traces{}, guardError(name, 0, f, err)
		}
		if f == FormatOTLPJSON {
			td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
		} else {
			td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
		}
		if err != nil {
			return ptrace.Traces{}, fmt.Errorf("%s: %s: %w", name, f, err)
		}
		return td, nil
	case FormatOTLPJSONLines:
		td := ptrace.NewTraces()
		br := bufio.NewReaderSize(r, 64<<10)
		var u ptrace.JSONUnmarshaler
		for n := 1; ; n++ {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				line = bytes.TrimPrefix(line, bom)
				if gerr := GuardOTLP(line, f, GuardOptions{Strict: true}); gerr != nil {
					return ptrace.Traces{}, guardError(name, n, f, gerr)
				}
				part, perr := u.UnmarshalTraces(line)
				if perr != nil {
					return ptrace.Traces{}, fmt.Errorf("%s:%d: OTLP/JSON: %w", name, n, perr)
				}
				part.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
			}
			if err == io.EOF {
				return td, nil
			}
			if err != nil {
				return ptrace.Traces{}, fmt.Errorf("%s:%d: %w", name, n, err)
			}
		}
	}
	return ptrace.Traces{}, fmt.Errorf("%s: %w", name, ErrUnknownFormat)
}

// oneValuePerLine reports whether b's first line is a whole JSON value and
// more lines follow: OTLP/JSON lines rather than one document.
func oneValuePerLine(b []byte) bool {
	i := bytes.IndexByte(b, '\n')
	if i < 0 || len(bytes.TrimSpace(b[i+1:])) == 0 {
		return false
	}
	return jsonlex.Valid(b[:i])
}

// protoIsLogs reports whether a protobuf payload (possibly cut short) is
// OTLP logs: it follows the first resource (field 1) to its first scope
// (field 2) and that scope's first item (field 2), a span or a log
// record, and reads the wire types of the item's fields, which differ
// between the two messages (a span's field 1 is its trace id, a log
// record's its time). A payload with no item is taken for traces.
func protoIsLogs(b []byte) bool {
	for _, res := range protoFields(b, 1) {
		for _, scope := range protoFields(res, 2) {
			for _, item := range protoFields(scope, 2) {
				if logs, sure := itemIsLog(item); sure {
					return logs
				}
			}
		}
	}
	return false
}

// protoFields returns the values of the length-delimited fields numbered
// num in b, the last one cut at b's end if b is.
func protoFields(b []byte, num protowire.Number) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			return out
		}
		b = b[m:]
		if typ == protowire.BytesType {
			l, k := protowire.ConsumeVarint(b)
			if k < 0 {
				return out
			}
			b = b[k:]
			end := uint64(len(b))
			if l < end {
				end = l
			}
			if n == num {
				out = append(out, b[:end])
			}
			b = b[end:]
			continue
		}
		k := protowire.ConsumeFieldValue(n, typ, b)
		if k < 0 {
			return out
		}
		b = b[k:]
	}
	return out
}

// itemWire are the wire types a span and a log record give the fields
// whose types differ: field number -> (span's, log record's).
var itemWire = map[protowire.Number][2]protowire.Type{
	1:  {protowire.BytesType, protowire.Fixed64Type},   // trace_id / time_unix_nano
	2:  {protowire.BytesType, protowire.VarintType},    // span_id / severity_number
	6:  {protowire.VarintType, protowire.BytesType},    // kind / attributes
	7:  {protowire.Fixed64Type, protowire.VarintType},  // start_time / dropped_attributes_count
	8:  {protowire.Fixed64Type, protowire.Fixed32Type}, // end_time / flags
	11: {protowire.BytesType, protowire.Fixed64Type},   // events / observed_time_unix_nano
}

// itemIsLog tells a span from a log record by its fields' wire types.
func itemIsLog(b []byte) (logs, sure bool) {
	for len(b) > 0 {
		n, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			return false, false
		}
		if w, ok := itemWire[n]; ok {
			switch typ {
			case w[0]:
				return false, true
			case w[1]:
				return true, true
			}
		}
		b = b[m:]
		k := protowire.ConsumeFieldValue(n, typ, b)
		if k < 0 {
			return false, false
		}
		b = b[k:]
	}
	return false, false
}
