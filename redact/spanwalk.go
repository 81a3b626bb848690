package redact

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// A SpanWalk redacts spans inside a walk another reader makes of their
// attributes: the encoder's, which reads each attribute once for the
// redaction, the record's fields and its line (artifact.Encoder's
// SetRedactor). For each span, Begin redacts what is not an attribute
// (the name, the status message, events and links), Attr each attribute
// as the reader meets it, before the reader looks at its value, and End
// follows the span. What it changes is what [Redactor.Span] changes. A
// SpanWalk is not safe for concurrent use: one per goroutine, kept as
// long as its owner likes.
type SpanWalk struct {
	r *Redactor
	w *walker // Begin's, until End
}

// Walk returns a SpanWalk of r, nil when r can change nothing.
func (r *Redactor) Walk() *SpanWalk {
	if !r.Enabled() {
		return nil
	}
	return &SpanWalk{r: r}
}

// Of reports whether s is a walk of r.
func (s *SpanWalk) Of(r *Redactor) bool { return s != nil && s.r == r }

// Begin starts span sp: its name, status message, events and links are
// redacted now, its attributes by Attr.
func (s *SpanWalk) Begin(sp ptrace.Span) {
	s.w = s.r.get()
	s.w.rest(sp)
}

// Attr redacts the attribute key of the span begun, whose value is v, in
// place.
func (s *SpanWalk) Attr(key string, v pcommon.Value) {
	s.w.pvalue(bytesOf(key), true, v, 0)
}

// End ends the span begun.
func (s *SpanWalk) End() {
	s.r.put(s.w)
	s.w = nil
}

// Names reports whether r replaces the value of an attribute named key
// whatever it holds (a named key): a writer that reads an attribute before
// the redaction reaches it (a header's budget) knows from this whether
// the redaction could change what it reads.
func (r *Redactor) Names(key string) bool {
	return r != nil && r.named(bytesOf(key))
}
