package artifact

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/pricing"
)

// Problem is one way a file departs from the format. Line is 1-based; 0
// means the file as a whole (empty, not text).
type Problem struct {
	Source string
	Line   int
	Err    error // errors.Is works with converter's sentinels for line problems
}

// Error is "source:line: problem", or "source: problem" for the file.
func (p Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", p.Source, p.Line, p.Err)
	}
	return fmt.Sprintf("%s: %v", p.Source, p.Err)
}

// Unwrap gives errors.Is and errors.As the problem's cause.
func (p Problem) Unwrap() error { return p.Err }

// Note is what is valid but worth saying, at a line (0: the file).
type Note struct {
	Line int
	Text string
}

// Report is what Validate found in one file.
type Report struct {
	Source   string
	Problems []Problem
	Notes    []Note
	// Records and Logs count the span records and log records read;
	// Truncated the values a writer marked as cut short.
	Records, Logs, Truncated int64
}

// Valid reports whether the file has no problem.
func (r *Report) Valid() bool { return len(r.Problems) == 0 }

// NoteString is a note as a line: "source:line: note: text".
func (r *Report) NoteString(n Note) string {
	if n.Line > 0 {
		return fmt.Sprintf("%s:%d: note: %s", r.Source, n.Line, n.Text)
	}
	return fmt.Sprintf("%s: note: %s", r.Source, n.Text)
}

// Validate reads one artifact to the end and reports every problem: a line
// that is not valid JSON or not a valid record, a torn last line, a
// missing header, a line over the size limit, a header of a newer schema
// version, a span_id used twice, a record that finishes before it starts,
// and a summary trailer that disagrees with the records (counts, tokens,
// truncation count, budget, and a cost budget's dollars recounted with the
// vendored price data; a trailer that reports dropped records may count
// more tokens and dollars than the records hold, never less). The error is
// for a file that cannot be read (I/O); every finding is in the Report.
func Validate(r io.Reader, opts ...ReaderOption) (*Report, error) {
	c := readerConfig{source: "artifact"}
	for _, o := range opts {
		o.applyReader(&c)
	}
	v := &validation{rep: &Report{Source: c.source}}
	br := bufio.NewReaderSize(r, headSize)
	head, err := br.Peek(headSize)
	if len(head) == 0 && errors.Is(err, io.EOF) {
		v.problem(0, "empty file: no meta header")
		return v.rep, nil
	}
	if at := binaryAt(head); at >= 0 {
		// One problem, not one per line of a PNG or a protobuf.
		v.problem(0, "not text (binary data at byte %d): not an agenttrace artifact", at)
		return v.rep, nil
	}
	ropts := append([]ReaderOption{WithSource(c.source)}, opts...)
	ropts = append(ropts, WithProblemHandler(v.lineProblem),
		WithLogs(func(*LogRecord) {}), // decoded, so a bad log line is reported
		WithInFlight())                // checked: an end must come, or no trailer yet
	cr := NewReader(br, ropts...)
	if err := v.records(cr); err != nil {
		return v.rep, err
	}
	v.inFlight(cr.SummaryLine())
	v.summary(cr, cr.Meta())
	if n := cr.Stats().Unknown; n > 0 {
		v.note(0, "%d line(s) of an unknown kind skipped", n)
	}
	v.rep.Records, v.rep.Logs, v.rep.Truncated = v.tally.Records(), cr.Stats().Logs, v.truncated
	return v.rep, nil
}

// binaryAt returns the offset of the first byte in head that no JSONL
// artifact holds (a NUL, or a byte that is not UTF-8), or -1. A multi-byte
// character cut by the end of head is not counted.
func binaryAt(head []byte) int {
	for i := 0; i < len(head); {
		if head[i] == 0 {
			return i
		}
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(head[i:]) {
				return -1 // a character cut by the end of head
			}
			return i
		}
		i += n
	}
	return -1
}

// validation is the state of checking one file.
type validation struct {
	rep   *Report
	tally Tally // the records read from lines
	// truncated counts the values records mark as cut short when written.
	truncated int64
	// rootBudget is the token budget a local root span carries
	// (agenttrace.budget.tokens), when one does: a writer judges the
	// trailer against it, not the header's, when it arrived after the
	// header was written (docs/format.md §3).
	rootBudget int64 // 0: none
	// flying are the start records read ("in_flight":true), each span's
	// last, at its line; ended the spans whose ended record was read.
	flying map[SpanKey]int
	ended  map[SpanKey]bool
}

// lineProblem records a problem the reader found at a line.
func (v *validation) lineProblem(le *LineError) {
	v.rep.Problems = append(v.rep.Problems, Problem{Source: v.rep.Source, Line: le.Line, Err: le.Err})
}

// problem records a finding, at a line when line > 0.
func (v *validation) problem(line int, format string, a ...any) {
	v.rep.Problems = append(v.rep.Problems, Problem{Source: v.rep.Source, Line: line, Err: fmt.Errorf(format, a...)})
}

// note records what is valid but worth saying.
func (v *validation) note(line int, format string, a ...any) {
	v.rep.Notes = append(v.rep.Notes, Note{Line: line, Text: fmt.Sprintf(format, a...)})
}

// records checks each record and tallies it. A fatal reader error (an
// I/O error) is returned; a line's error (a newer schema version too) is
// a problem.
func (v *validation) records(r *Reader) error {
	first := map[SpanKey]int{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var le *LineError
			if errors.As(err, &le) {
				v.lineProblem(le)
				return nil
			}
			return err
		}
		line := r.Line()
		if line == 0 {
			// The root the reader synthesizes for records without ids:
			// not in the file, so neither checked nor in its trailer.
			continue
		}
		k := SpanKey{Trace: rec.Span.TraceID(), Span: rec.Span.SpanID()}
		if rec.InFlight {
			// A start record: neither a duplicate of its span's ended
			// record nor counted in the trailer.
			if v.flying == nil {
				v.flying = map[SpanKey]int{}
			}
			v.flying[k] = line
			continue
		}
		if v.ended == nil {
			v.ended = map[SpanKey]bool{}
		}
		v.ended[k] = true
		v.record(rec, line, first)
	}
}

// inFlight reports the spans a start record says started and no ended
// record ended, in an artifact a trailer at line trailer (0: none)
// finalized after it: a start record without an end is fine only while
// the artifact is being written (no trailer after it), and a finalized
// artifact still holding one lost that span's end (its writer crashed).
func (v *validation) inFlight(trailer int) {
	keys := make([]SpanKey, 0, len(v.flying))
	open := 0 // started, not ended, no trailer after: still running, or its writer stopped
	for k, line := range v.flying {
		switch {
		case v.ended[k]:
		case trailer > line:
			keys = append(keys, k)
		default:
			open++
		}
	}
	slices.SortFunc(keys, func(a, b SpanKey) int { return v.flying[a] - v.flying[b] })
	for _, k := range keys {
		v.problem(v.flying[k], "span %s of trace %s is in flight (a start record) and never ended, in a finalized artifact", k.Span, k.Trace)
	}
	if open > 0 {
		v.note(0, "%d span(s) started and not ended, and no trailer: the run is still being written, or its writer stopped without an end", open)
	}
}

// record checks one record read at line.
func (v *validation) record(rec *Record, line int, first map[SpanKey]int) {
	sp := rec.Span
	k := SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}
	if at, dup := first[k]; dup {
		v.problem(line, "duplicate span_id %s in trace %s (first on line %d)", k.Span, k.Trace, at)
	} else {
		first[k] = line
	}
	if start, end := sp.StartTimestamp(), sp.EndTimestamp(); end != 0 && end < start {
		v.problem(line, "finished_at %s is before started_at %s", stamp(end), stamp(start))
	}
	v.tally.Add(rec)
	if IsLocalRoot(sp) {
		if b, _ := BudgetAttrs(sp.Attributes()); b > 0 {
			v.rootBudget = b
		}
	}
	Truncated(sp, func(where, key string, size int64) {
		v.truncated++
		if where != "" {
			key = where + ": " + key
		}
		v.note(line, "span %s: %s truncated when written (%d bytes originally)", sp.SpanID(), key, size)
	})
}

func stamp(ts pcommon.Timestamp) string {
	return ts.AsTime().UTC().Format(time.RFC3339Nano)
}

// priceVersion names the vendored price data, for messages.
func priceVersion() string {
	if t, err := pricing.Default(); err == nil {
		return t.Version
	}
	return "(not loaded)"
}

// headSize is how much of a file Validate looks at first for binary data
// (a PNG, a protobuf: one problem, not one a line). It is the size
// converter.Detect looks at too, but neither depends on the other.
const headSize = 64 << 10
