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
func traceIDFor(shape Shape, key string) (id pcommon.TraceID) {
	var buf [256]byte
	b := append(buf[:0], "agenttrace/import/"...)
	b = append(b, shape...)
	b = append(b, 0)
	hashID(id[:], append(b, key...))
	return id
}

// spanIDFor returns the id of the span that key names in trace.
func spanIDFor(trace pcommon.TraceID, key string) (id pcommon.SpanID) {
	var buf [128]byte
	b := append(buf[:0], trace[:]...)
	hashID(id[:], append(b, key...))
	return id
}

// hashID fills id with the first bytes of b's SHA-256, never all zeros.
func hashID(id, b []byte) {
	h := sha256.Sum256(b)
	copy(id, h[:])
	if allZero(id) {
		id[len(id)-1] = 1
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
