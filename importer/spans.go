package importer

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// rootKey is the span key of a trace's root (see ids.go).
const rootKey = "root"

// Attributes and error types that more than one reader writes.
const (
	attrTruncated   = "agenttrace.truncated"    // the shape cut the value short
	attrTruncatedAt = "agenttrace.truncated_at" // the length kept, when the full one is unknown
	attrFullLength  = "agenttrace.full_length"  // the length before the cut
	errIncomplete   = "incomplete"              // still open at the end of the input
	errTool         = "tool_error"              // the tool call failed
)

// startSpan fills sp with what every span an importer synthesizes has: its
// trace, the span id key names in it (see ids.go), its parent (none for a
// root), the name "{op} {name}" (op alone when name is ""), the kind, the
// start, and gen_ai.operation.name op. It returns sp's attributes for the
// rest.
func startSpan(sp ptrace.Span, trace pcommon.TraceID, key string, parent pcommon.SpanID, kind ptrace.SpanKind,
	op, name string, start uint64) pcommon.Map {
	sp.SetTraceID(trace)
	sp.SetSpanID(spanIDFor(trace, key))
	sp.SetParentSpanID(parent)
	sp.SetName(spanName(op, name))
	sp.SetKind(kind)
	sp.SetStartTimestamp(pcommon.Timestamp(start))
	attrs := sp.Attributes()
	attrs.PutStr(semconv.OperationName, op)
	return attrs
}

// spanName is "{op} {name}", op alone when name is "".
func spanName(op, name string) string {
	if name == "" {
		return op
	}
	return strings.TrimSpace(op + " " + name)
}

// putStr puts a string attribute, unless it is "".
func putStr(m pcommon.Map, key, v string) {
	if v != "" {
		m.PutStr(key, v)
	}
}

// setError sets sp's status to Error with msg and its error.type to code.
func setError(sp ptrace.Span, code, msg string) {
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Status().SetMessage(msg)
	sp.Attributes().PutStr(semconv.ErrorType, code)
}

// addException records an error as an "exception" event on sp, with the
// exception.type, .message and .stacktrace that are not "".
func addException(sp ptrace.Span, ts uint64, typ, msg, stack string) {
	ev := sp.Events().AppendEmpty()
	ev.SetName("exception")
	ev.SetTimestamp(pcommon.Timestamp(ts))
	putStr(ev.Attributes(), "exception.type", typ)
	putStr(ev.Attributes(), "exception.message", msg)
	putStr(ev.Attributes(), "exception.stacktrace", stack)
}

// keepError is setError for a span that may have failed already: the
// first error status and the first error.type stay.
func keepError(sp ptrace.Span, code, msg string) {
	if sp.Status().Code() != ptrace.StatusCodeError {
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage(msg)
	}
	if _, ok := sp.Attributes().Get(semconv.ErrorType); !ok {
		sp.Attributes().PutStr(semconv.ErrorType, code)
	}
}

// GenAI messages (the v1.41 message schema) are written by hand, strings
// with artifact.AppendJSONString, so that every importer writes them
// alike.

// chatPart is a text or reasoning part of a message.
type chatPart struct {
	Type    string // "text" or "reasoning"
	Content string
}

// appendPart appends the part {"type":typ,"content":content}.
func appendPart(dst []byte, typ, content string) []byte {
	dst = append(dst, `{"type":`...)
	dst = artifact.AppendJSONString(dst, typ)
	dst = append(dst, `,"content":`...)
	dst = artifact.AppendJSONString(dst, content)
	return append(dst, '}')
}

// appendMessages appends a one-message array [{"role", "parts",
// "finish_reason"}]; finish "" leaves finish_reason out.
func appendMessages(dst []byte, role, finish string, parts ...chatPart) []byte {
	n := len(`[{"role":"","parts":[],"finish_reason":""}]`) + len(role) + len(finish)
	for _, p := range parts {
		n += len(`{"type":"","content":""},`) + len(p.Type) + len(p.Content)
	}
	dst = slices.Grow(dst, n) // enough unless there is much to escape
	dst = append(dst, `[{"role":`...)
	dst = artifact.AppendJSONString(dst, role)
	dst = append(dst, `,"parts":[`...)
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendPart(dst, p.Type, p.Content)
	}
	dst = append(dst, ']')
	if finish != "" {
		dst = append(dst, `,"finish_reason":`...)
		dst = artifact.AppendJSONString(dst, finish)
	}
	return append(dst, "}]"...)
}
