package importer

import (
	"crypto/sha256"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Imported spans get ids derived from their content, so importing the same
// input twice gives the same trace and span ids (and a re-import replaces
// rather than duplicates in a backend that deduplicates by id).
//
//	trace id = SHA-256("agenttrace/import/" + shape + "\x00" + key)[:16]
//	span id  = SHA-256(trace id + key)[:8]
//
// The trace key is whatever names the trace stably in the shape (a session
// id, or the first line when there is none); the span key names the span
// stably within its trace (a record id, a tool-call id, a line number).
// Distinct keys must name distinct spans: callers prefix them by what they
// are ("tool:", "line:", ...). Neither id is ever all zeros, which OTLP
// reads as "no id".

// traceIDFor returns the trace id of the trace that key names in an input
// of the given shape.
func traceIDFor(shape Shape, key string) pcommon.TraceID {
	var buf [256]byte
	b := append(buf[:0], "agenttrace/import/"...)
	b = append(b, shape...)
	b = append(b, 0)
	b = append(b, key...)
	h := sha256.Sum256(b)
	var id pcommon.TraceID
	copy(id[:], h[:16])
	if id.IsEmpty() {
		id[15] = 1
	}
	return id
}

// spanIDFor returns the id of the span that key names in trace.
func spanIDFor(trace pcommon.TraceID, key string) pcommon.SpanID {
	var buf [128]byte
	b := append(buf[:0], trace[:]...)
	b = append(b, key...)
	h := sha256.Sum256(b)
	var id pcommon.SpanID
	copy(id[:], h[:8])
	if id.IsEmpty() {
		id[7] = 1
	}
	return id
}
