package store

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/agenttrace/agenttrace/artifact"
)

// A Stream writes one whole artifact to w from records given one at a
// time, in bounded memory, with the header [Header] gives the records all
// together (Whole): started_at the earliest start, the trace and the
// conversation when every record shares them. A header comes first in an
// artifact but depends on every record, so the records are spooled to a
// temporary file as they come and copied to w after the header on Close.
// A Stream is not safe for concurrent use.
type Stream struct {
	w     io.Writer
	opts  HeaderOptions
	h     headerBuilder
	enc   artifact.Encoder
	tally artifact.Tally
	meta  *artifact.Meta // the defaults records are encoded under
	spool *os.File
	bw    *bufio.Writer
	buf   []byte
	err   error
}

// NewStream returns a Stream to w; maxLine is the line limit (0: the
// reader's default), see artifact.WithMaxLineSize.
func NewStream(w io.Writer, opts HeaderOptions, maxLine int) *Stream {
	opts.Whole = true
	s := &Stream{w: w, opts: opts}
	s.enc.SetMaxLineSize(maxLine)
	return s
}

// Write adds rec.
func (s *Stream) Write(rec *artifact.Record) error {
	if s.err != nil {
		return s.err
	}
	if s.spool == nil {
		f, err := os.CreateTemp("", "agenttrace-stream-*.jsonl")
		if err != nil {
			s.err = fmt.Errorf("spool: %w", err)
			return s.err
		}
		// Unlinked at once where the system allows it (gone once closed,
		// whatever happens to this process), else on Close.
		_ = os.Remove(f.Name())
		s.spool, s.bw = f, bufio.NewWriterSize(f, 256<<10)
	}
	s.h.add(rec)
	if s.meta == nil {
		// The resource and scope records may omit: the first record's,
		// which the header takes.
		s.meta = s.h.meta(Key{Kind: KindRun}, s.opts)
		s.enc.SetDefaults(s.meta)
	}
	s.buf = s.enc.AppendRecord(s.buf[:0], rec)
	if s.enc.Skipped() {
		s.tally.AddDropped(rec.Span, s.enc.Reading())
		return nil
	}
	s.tally.AddReading(rec.Span, s.enc.Reading())
	s.tally.Truncate(s.enc.Truncated())
	if _, err := s.bw.Write(s.buf); err != nil {
		s.err = fmt.Errorf("spool: %w", err)
	}
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
	return s.err
}

// Close writes the header, the records and the trailer to w, and removes
// the spool. It does not close w.
func (s *Stream) Close() error {
	if s.spool != nil {
		defer func() {
			s.spool.Close()
			_ = os.Remove(s.spool.Name())
		}()
	}
	if s.err != nil {
		return s.err
	}
	meta := s.h.meta(Key{Kind: KindRun}, s.opts) // its resource and scope are s.meta's
	out := bufio.NewWriterSize(s.w, 256<<10)
	if _, err := out.Write(artifact.AppendMeta(nil, meta)); err != nil {
		return err
	}
	if s.spool != nil {
		if err := s.bw.Flush(); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		if _, err := s.spool.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		if _, err := io.Copy(out, s.spool); err != nil {
			return err
		}
	}
	if _, err := out.Write(appendTrailer(nil, meta, &s.tally)); err != nil {
		return err
	}
	return out.Flush()
}
