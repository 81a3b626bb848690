package converter

import (
	"errors"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// SpanKey identifies a span: within an artifact (which may hold several
// traces), the pair is unique.
type SpanKey struct {
	Trace pcommon.TraceID
	Span  pcommon.SpanID
}

// Adopted is what an artifact left on disk holds, for a writer that goes on
// appending to it (a restarted process, an artifact reopened for a late
// span): its header stays the only one, and the trailers written from then
// on count what it already holds.
type Adopted struct {
	// Meta is the header. When a trailer names a budget, Meta.Budget is
	// that one: the budget the run was finally held to.
	Meta *Meta
	// Tally counts the records, and the drops the last trailer reported.
	// Pass it to Writer.Resume.
	Tally Tally
	// Spans are the records' ids, to skip a span written before.
	Spans map[SpanKey]struct{}
	// RootEnded tells that a local root span is among the records.
	RootEnded bool
}

// Adopt reads the artifact at path so that a writer can continue it. It
// returns nil, and no error, when there is no such file or it is empty. A
// torn last line (a crash mid-write) is closed off with a newline, so the
// next record starts a line of its own and the torn one stays a reported,
// skipped line. A header of a newer version is an error: appending to it
// would make a file no reader understands.
func Adopt(path string) (*Adopted, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adopt artifact: %w", err)
	}
	defer f.Close()
	r := NewReader(f, WithSource(path))
	ad := &Adopted{Spans: make(map[SpanKey]struct{})}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot append to %s: %w", path, err)
		}
		ad.Tally.Add(rec)
		ad.Spans[SpanKey{rec.Span.TraceID(), rec.Span.SpanID()}] = struct{}{}
		if IsLocalRoot(rec.Span) {
			ad.RootEnded = true
		}
	}
	if r.Stats().Lines == 0 {
		return nil, nil
	}
	ad.Meta = r.Meta()
	if sum := r.Summary(); sum != nil {
		ad.Tally.Drop(sum.Dropped)
		if b := sum.Budget; b != nil && b.BudgetTokens > 0 {
			ad.Meta.Budget = &Budget{Tokens: b.BudgetTokens, WarnThreshold: b.WarnThreshold}
		}
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if err := appendNewline(path); err != nil {
				return nil, err
			}
		}
	}
	return ad, nil
}

func appendNewline(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("adopt artifact: %w", err)
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		f.Close()
		return fmt.Errorf("adopt artifact: %w", err)
	}
	return f.Close()
}

// IsLocalRoot reports whether sp is the root of its trace in its process:
// no parent, or a parent in another process (the OTLP span flags "has
// is_remote" 0x100 and "is remote" 0x200, as the OTel SDKs set them). When
// it ends, the trace's work in this process is done.
func IsLocalRoot(sp ptrace.Span) bool {
	return sp.ParentSpanID().IsEmpty() || sp.Flags()&0x300 == 0x300
}
