package artifact

import (
	"errors"
	"io"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ReadTraces reads every remaining record into OTLP, grouped by resource
// and scope like [ToTraces]. It is the fast path from an artifact to OTLP:
// each span is decoded in place and moved into its group, rather than
// allocated on its own as Next must. Problems are reported as with Next.
//
// On a fatal error it returns what was read before it, and the error.
func (r *Reader) ReadTraces() (ptrace.Traces, error) {
	b := newTracesBuilder()
	rec := Record{Span: ptrace.NewSpan()}
	for {
		err := r.next(&rec)
		if errors.Is(err, io.EOF) {
			return b.td, nil
		}
		if err != nil {
			return b.td, err
		}
		b.add(&rec) // moves the span out, leaving rec.Span empty for the next line
	}
}
