package converter

// The OTLP input guard: one pass over OTLP bytes before pdata decodes them.
//
// pdata's unmarshalers recurse once per level of an AnyValue array or
// key-value list, with no limit: a 12 MB protobuf request nested ~1.3
// million levels overflows the goroutine stack, and Go cannot recover from
// that — the whole process exits (upstream open-telemetry/
// opentelemetry-collector issues 15301 and 15603). Every place agenttrace
// hands OTLP bytes to pdata (CLI input, the viewer's /convert, serve
// --otlp, the collector distribution's guard extension) calls GuardOTLP
// first.
//
// The limit is the artifact reader's, jsonlex.MaxDepth: a value the guard passes
// is one whose artifact line the reader accepts, so nothing written is
// unreadable (before, values nested 255 levels were written and then
// refused by the reader). The guard cannot see every encoding choice the
// writer will make without looking ahead, so it counts what the encoding
// can cost at most: each array level one, each key-value list two (a map
// of one '@' key is wrapped in {"@map":...}), one more for the innermost
// value (an {"@bytes":...} or {"@double":...} tag), plus the deepest place
// a value sits in a line (lineOverhead). Arrays can nest 251 levels, maps
// 125: far beyond anything an instrumentation sends.

import (
	"errors"
	"fmt"

	"github.com/agenttrace/agenttrace/artifact"
)

// ErrTooDeep: an OTLP attribute value or log body nests arrays or
// key-value lists deeper than an artifact can hold (and deeper than pdata
// can decode safely).
var ErrTooDeep = errors.New("OTLP value nested too deep")

// ErrOTLPSyntax: OTLP/JSON input that is not JSON, or has data after the
// document.
var ErrOTLPSyntax = errors.New("OTLP/JSON syntax error")

// ErrUnknownField: strict OTLP/JSON input has a member OTLP does not
// define in a span, resource, scope, event, link or log record (pdata
// would drop it without a word: "spanID" for "spanId" made a zero span id).
var ErrUnknownField = errors.New("unknown OTLP/JSON field")

// ErrZeroID: strict OTLP/JSON input has a span whose trace id or span id
// is absent or all zeros: no artifact can key it.
var ErrZeroID = errors.New("absent or all-zero id")

// ErrBadProto: protobuf input whose wire format is broken where the guard
// had to read it (pdata would refuse it too).
var ErrBadProto = errors.New("malformed OTLP protobuf")

// The depth budget of a value in an artifact line is the format's
// (artifact.MaxValueCost); the guard refuses what the line could not hold.
const (
	maxValueCost = artifact.MaxValueCost
	costArray    = artifact.CostArray
	costKVList   = artifact.CostKVList
)

// InputError is a problem at a place in a text input: 1-based line and
// column (in bytes). Its message is one line, "line:column: what", for a
// caller to prefix with the file's name.
type InputError struct {
	Line, Column int
	Err          error
}

func (e *InputError) Error() string { return fmt.Sprintf("%d:%d: %v", e.Line, e.Column, e.Err) }

// Unwrap returns the sentinel-wrapping cause.
func (e *InputError) Unwrap() error { return e.Err }

// GuardOptions says what GuardOTLP checks beyond nesting.
type GuardOptions struct {
	// Strict refuses OTLP/JSON members OTLP does not define (in spans,
	// resources, scopes, events, links, log records and the objects that
	// hold them) and spans with an absent or all-zero trace or span id.
	// Files a person wrote or edited want it; a network receiver does
	// not (OTLP asks receivers to ignore unknown fields, and the receiver
	// answers bad ids with a partial rejection instead).
	Strict bool
}

// GuardOTLP checks OTLP bytes in format f before pdata decodes them:
// nesting for every format (ErrTooDeep), and for OTLP/JSON also syntax,
// data after the document (ErrOTLPSyntax) and, with opts.Strict, unknown
// members and zero ids. f is FormatOTLPJSON, FormatOTLPProto,
// FormatOTLPLogsJSON or FormatOTLPLogsProto (one line of a lines format
// is checked as the JSON one). JSON errors are *InputError with the
// position; protobuf errors give the byte offset. It never panics and
// allocates nothing for valid protobuf.
func GuardOTLP(b []byte, f Format, opts GuardOptions) error {
	switch f {
	case FormatOTLPProto:
		return guardProto(b, kindTracesReq)
	case FormatOTLPLogsProto:
		return guardProto(b, kindLogsReq)
	case FormatOTLPJSON, FormatOTLPJSONLines:
		return guardJSON(b, false, opts.Strict)
	case FormatOTLPLogsJSON, FormatOTLPLogsJSONLines:
		return guardJSON(b, true, opts.Strict)
	}
	return fmt.Errorf("guard: %s: %w", f, ErrUnknownFormat)
}

// GuardOTLPMetricsProto checks an ExportMetricsServiceRequest (or
// MetricsData) for nesting as GuardOTLP checks traces: agenttrace reads no
// metrics, but a collector's otlp receiver decodes them with the same
// recursive code, so the collector's guard checks them too.
func GuardOTLPMetricsProto(b []byte) error { return guardProto(b, kindMetricsReq) }

// GuardOTLPAny checks OTLP bytes whose signal is not known (an HTTP path
// the guard cannot map): as traces, logs and metrics, since pdata will
// read them as one of those and each reads different fields as values.
// OTLP/JSON is walked by its top-level member; metrics there are only
// skipped, within the scanner's bracket limit, which bounds pdata's
// recursion as well.
func GuardOTLPAny(b []byte, json bool) error {
	if json {
		// Lenient and signal-free: the document's top-level key decides
		// what pdata reads, so the walk follows it.
		return guardJSONAny(b)
	}
	for _, k := range []msgKind{kindTracesReq, kindLogsReq, kindMetricsReq} {
		if err := guardProto(b, k); err != nil {
			return err
		}
	}
	return nil
}

// position turns a byte offset in b into a 1-based line and column.
func position(b []byte, off int) (line, col int) {
	if off > len(b) {
		off = len(b)
	}
	line, start := 1, 0
	for i := range off {
		if b[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, off - start + 1
}

// guardError puts the input's name (and, for one line of a lines format,
// its line number) on a GuardOTLP error: "name:line:column: what" for a
// positioned one, "name: format: what" for the rest.
func guardError(name string, line int, f Format, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		if line > 0 {
			// A line is checked as a document of its own: its line 1 is
			// the file's line.
			ie = &InputError{Line: line + ie.Line - 1, Column: ie.Column, Err: ie.Err}
		}
		return fmt.Errorf("%s:%w", name, ie)
	}
	if line > 0 {
		return fmt.Errorf("%s:%d: %s: %w", name, line, f, err)
	}
	return fmt.Errorf("%s: %s: %w", name, f, err)
}
