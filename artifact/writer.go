package artifact

import (
	"errors"
	"fmt"
	"io"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("artifact writer closed")

// A Writer writes an artifact: the header, one line per record, and the
// summary trailer on Close.
//
// Each line goes to the underlying writer in a single Write call, so an
// artifact opened with O_APPEND never interleaves half-lines, and a crash
// leaves at worst one torn last line. The Writer does not buffer or sync;
// wrap or sync the underlying file as durability requires. A Writer is not
// safe for concurrent use.
type Writer struct {
	w         io.Writer
	meta      *Meta
	enc       Encoder
	tally     Tally
	buf       []byte
	wroteMeta bool
	closed    bool
}

// WriterOption configures a Writer.
type WriterOption interface{ applyWriter(*Writer) }

// NewWriter returns a Writer to w. meta is the header; when nil, one is
// made from the first record (its start time, resource and scope).
//
// A record whose line would be longer than the line limit
// ([DefaultMaxLineSize] unless [WithMaxLineSize] says otherwise), which a
// Reader with the same limit would skip, is written with its largest
// values cut short, each marked with its original length (see
// [TruncatedPrefix]) and counted in the trailer's "truncated": what is
// written can be read back.
func NewWriter(w io.Writer, meta *Meta, opts ...WriterOption) *Writer {
	aw := &Writer{w: w, meta: meta}
	for _, o := range opts {
		o.applyWriter(aw)
	}
	return aw
}

// Meta returns the header written, or to be written.
func (w *Writer) Meta() *Meta { return w.meta }

// Tally returns the running tally of what was written.
func (w *Writer) Tally() *Tally { return &w.tally }

func (w *Writer) writeLine(b []byte) error {
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	return nil
}

func (w *Writer) header(rec *Record) error {
	if w.wroteMeta {
		return nil
	}
	if w.meta == nil {
		m := NewMeta(UnixNano(uint64(rec.Span.StartTimestamp())))
		m.Resource, m.ResourceSchemaURL = rec.Resource, rec.ResourceSchemaURL
		m.Scope, m.ScopeSchemaURL = rec.Scope, rec.ScopeSchemaURL
		fillService(m)
		w.meta = m
	}
	return w.WriteHeader()
}

// WriteHeader writes the header now. Write calls it before the first record
// when it has not been called.
func (w *Writer) WriteHeader() error {
	if w.closed {
		return ErrClosed
	}
	if w.wroteMeta {
		return nil
	}
	if w.meta == nil {
		w.meta = NewMeta(time.Now().UTC())
	}
	w.enc.SetDefaults(w.meta)
	w.buf = AppendMeta(w.buf[:0], w.meta)
	w.wroteMeta = true
	return w.writeLine(w.buf)
}

// Write writes one record.
func (w *Writer) Write(rec *Record) error {
	if w.closed {
		return ErrClosed
	}
	if err := w.header(rec); err != nil {
		return err
	}
	w.buf = w.enc.AppendRecord(w.buf[:0], rec)
	if w.enc.Skipped() {
		// Too many small values to cut: not written, but counted, its
		// usage included, like a record a cap drops.
		w.tally.AddDropped(rec.Span, w.enc.Reading())
		return nil
	}
	w.tally.AddReading(rec.Span, w.enc.Reading())
	w.tally.Truncate(w.enc.Truncated())
	err := w.writeLine(w.buf)
	if cap(w.buf) > maxKeptBuf {
		w.buf = nil // a writer kept per open artifact must not hold a huge line
	}
	return err
}

// maxKeptBuf is the largest line buffer a Writer keeps between records.
const maxKeptBuf = 1 << 20

// MaxLineSize returns the longest line w writes, newline not counted.
func (w *Writer) MaxLineSize() int { return w.enc.MaxLineSize() }

// WriteTraces writes every span of td, in td's order.
func (w *Writer) WriteTraces(td ptrace.Traces) error {
	var rec Record
	for _, rs := range td.ResourceSpans().All() {
		rec.Resource, rec.ResourceSchemaURL = rs.Resource(), rs.SchemaUrl()
		for _, ss := range rs.ScopeSpans().All() {
			rec.Scope, rec.ScopeSchemaURL = ss.Scope(), ss.SchemaUrl()
			for _, sp := range ss.Spans().All() {
				rec.Span = sp
				if err := w.Write(&rec); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Drop counts n spans that were not written; the trailer reports them.
func (w *Writer) Drop(n int64) { w.tally.Drop(n) }

// Resume makes w continue an artifact whose header is already written (an
// artifact reopened to append late records): it writes no header, and its
// trailer counts t, the tally of what the artifact already holds, as well.
func (w *Writer) Resume(t Tally) {
	if w.meta == nil {
		w.meta = NewMeta(time.Now().UTC())
	}
	w.enc.SetDefaults(w.meta)
	w.wroteMeta = true
	w.tally = t
}

// Close writes the summary trailer, marked complete. It does not close the
// underlying writer. Close on a closed Writer does nothing.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	if err := w.WriteHeader(); err != nil {
		return err
	}
	w.closed = true
	s := w.tally.Summary(w.meta.Budget)
	if s.FinishedAt.IsZero() {
		s.FinishedAt = w.meta.StartedAt
	}
	s.Complete = true
	w.buf = AppendSummary(w.buf[:0], &s)
	return w.writeLine(w.buf)
}
