package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// DefaultMaxLineSize is the longest line a Reader accepts, and a Writer
// writes, by default (see [WithMaxLineSize]): one limit, so that what is
// written can be read. GenAI records carry whole conversations; 64 KiB,
// bufio.Scanner's default, is far too small.
const DefaultMaxLineSize = 16 << 20

// maxKeptProblems bounds the problems a Reader keeps; all are counted.
const maxKeptProblems = 100

// LineError is a problem with one line of an artifact. The Reader reports
// it and goes on with the next line.
type LineError struct {
	// Source names the input, when the Reader was given a name.
	Source string
	// Line is the 1-based line number.
	Line int
	// Err is the problem; errors.Is works with the package's sentinels.
	Err error
}

func (e *LineError) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("%s:%d: %v", e.Source, e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// ReaderOption configures a Reader.
type ReaderOption interface{ applyReader(*readerConfig) }

type readerConfig struct {
	maxLine   int
	source    string
	onProblem func(*LineError)
	onLog     func(*LogRecord)
	inFlight  bool // return in-flight records (WithInFlight)
	size      int64
}

type readerOptionFunc func(*readerConfig)

func (f readerOptionFunc) applyReader(c *readerConfig) { f(c) }

// WithSource names the input in the problems the Reader reports, so that
// they read "file.jsonl:12: ...".
func WithSource(name string) ReaderOption {
	return readerOptionFunc(func(c *readerConfig) { c.source = name })
}

// WithProblemHandler calls f for each problem as it is found, in addition
// to keeping the first ones for [Reader.Problems].
func WithProblemHandler(f func(*LineError)) ReaderOption {
	return readerOptionFunc(func(c *readerConfig) { c.onProblem = f })
}

// WithInFlight makes the Reader return in-flight records (Record.InFlight:
// a span's start record, written before it ended), which it otherwise
// counts in ReadStats.InFlight and skips: a reader of totals, a diff or
// OTLP wants the ended spans only, and the ended record of a span
// supersedes its start record. A viewer of a live run takes them, with
// [Settle].
func WithInFlight() ReaderOption {
	return readerOptionFunc(func(c *readerConfig) { c.inFlight = true })
}

// WithSize tells the Reader its input's size, when the caller knows it
// (a file's, a run's object's): the Reader then reads an input under a
// megabyte into one block of its size, not into one of 64 KB (a
// catalog row of a run of a few kilobytes allocated and cleared 64 KB).
// A wrong size costs nothing but a block that grows as it would.
func WithSize(n int64) ReaderOption {
	return readerOptionFunc(func(c *readerConfig) { c.size = n })
}

// ReadStats counts what a Reader saw.
type ReadStats struct {
	Lines     int64 // lines read, blank ones included
	Records   int64 // records returned, a synthesized root included
	Summaries int64 // summary trailers seen
	Unknown   int64 // lines of an unknown kind, skipped
	Logs      int64 // log lines handed to WithLogs's handler
	Problems  int64 // lines reported and skipped
	InFlight  int64 // in-flight (start) records skipped: without WithInFlight
}

// A Reader reads an artifact one line at a time, with a bounded buffer.
//
// A line that cannot be read is reported as a [*LineError] (see
// [Reader.Problems]) and skipped: one bad line never costs the rest of the
// file. Lines of an unknown kind are counted and skipped. Only an I/O error
// or a header of a newer schema version stops the Reader.
//
// Records without OTel identity (tool-dispatch traces) get deterministic
// ids, and a synthesized root span covering the artifact is returned after
// the last line. A Reader is not safe for concurrent use.
type Reader struct {
	cfg      readerConfig
	lines    LineReader
	dec      decoder
	meta     *Meta
	summary  *Summary
	sumLine  int
	recLine  int
	stats    ReadStats
	problems []*LineError
	err      error

	ids       synthIDs
	agg       synthAgg
	emitted   bool // the synthesized root was returned
	firstLine []byte
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ...ReaderOption) *Reader {
	cfg := readerConfig{maxLine: DefaultMaxLineSize}
	for _, o := range opts {
		o.applyReader(&cfg)
	}
	rd := &Reader{cfg: cfg, lines: newKeptLineReader(r, cfg.maxLine)}
	if cfg.size > 0 {
		// One byte more, so that the read that fills it is followed by
		// one that says EOF instead of a block twice the size.
		rd.lines.first = int(min(cfg.size+1, maxBlock))
	}
	return rd
}

// Meta returns the header, once the first line has been read; a default
// header when the artifact has none.
func (r *Reader) Meta() *Meta { return r.meta }

// Summary returns the last summary trailer read so far, or nil.
func (r *Reader) Summary() *Summary { return r.summary }

// SummaryLine returns the line number of that trailer, 0 when none.
func (r *Reader) SummaryLine() int { return r.sumLine }

// Line returns the line number of the record Next returned last; 0 for a
// synthesized root, which has no line.
func (r *Reader) Line() int { return r.recLine }

// Stats returns what the Reader has counted so far.
func (r *Reader) Stats() ReadStats { return r.stats }

// Problems returns the first problems found (all are counted in Stats).
func (r *Reader) Problems() []*LineError { return r.problems }

func (r *Reader) problem(err error) {
	le := &LineError{Source: r.cfg.source, Line: r.lines.Line(), Err: err}
	r.stats.Problems++
	if len(r.problems) < maxKeptProblems {
		r.problems = append(r.problems, le)
	}
	if r.cfg.onProblem != nil {
		r.cfg.onProblem(le)
	}
}

// readLine returns the next line, as [LineReader.Next] does, and gives it
// to the decoder as a string over the same memory.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.lines.Next()
	r.dec.lineSrc = lineString(line)
	return line, err
}

// Next returns the next record, or io.EOF after the last one. Any other
// error is fatal and returned again by later calls.
func (r *Reader) Next() (*Record, error) {
	rec := &Record{Span: ptrace.NewSpan()}
	if err := r.next(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// next decodes the next record into rec, whose span must be empty.
func (r *Reader) next(rec *Record) error {
	if r.err != nil {
		return r.err
	}
	for {
		line, err := r.readLine()
		torn := err == ErrTornLine
		if errors.Is(err, ErrLineTooLong) {
			r.stats.Lines++
			r.problem(err)
			continue
		}
		if err == io.EOF {
			if r.meta == nil {
				r.meta = NewMeta(zeroTime)
			}
			if root := r.rootRecord(); root != nil {
				*rec = *root
				return nil
			}
			r.err = io.EOF
			return io.EOF
		}
		if err != nil && !torn {
			r.err = err
			return r.err
		}
		r.stats.Lines++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if r.firstLine == nil {
			r.firstLine = append([]byte{}, line...)
		}
		ok, err := r.handle(line, rec)
		if err != nil {
			if errors.Is(err, ErrUnsupportedVersion) {
				r.err = &LineError{Source: r.cfg.source, Line: r.lines.Line(), Err: err}
				return r.err
			}
			if torn {
				err = fmt.Errorf("%w: %w", ErrTornLine, err)
			}
			r.problem(err)
			continue
		}
		if ok {
			r.stats.Records++
			r.recLine = r.lines.Line()
			return nil
		}
	}
}

// handle decodes one non-blank line into rec, whose span must be empty; it
// reports whether the line was a record.
func (r *Reader) handle(line []byte, rec *Record) (bool, error) {
	kind, _, err := r.dec.classify(line)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	if kind == lineMeta {
		m, err := r.dec.decodeMeta(line)
		if err != nil {
			if errors.Is(err, ErrUnsupportedVersion) {
				return false, err
			}
			if r.meta == nil {
				r.meta = NewMeta(zeroTime)
			}
			return false, fmt.Errorf("header: %w", err)
		}
		if r.meta != nil {
			r.problem(errors.New("a second header: the lines after it use it"))
		}
		r.meta = m
		return false, nil
	}
	if r.meta == nil {
		r.meta = NewMeta(zeroTime)
		r.problem(ErrNoHeader)
	}
	switch kind {
	case lineSummary:
		s, err := r.dec.decodeSummary(line)
		if err != nil {
			return false, fmt.Errorf("summary: %w", err)
		}
		r.summary = s
		r.sumLine = r.lines.Line()
		r.stats.Summaries++
		return false, nil
	case lineUnknown:
		r.stats.Unknown++
		return false, nil
	case lineLog:
		return false, r.handleLog(line)
	}
	if err := r.dec.decodeRecord(line, rec, r.meta); err != nil {
		ptrace.NewSpan().MoveTo(rec.Span) // a half-decoded span must not leak into the next line
		return false, fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	r.fillIdentity(rec, line)
	if rec.InFlight && !r.cfg.inFlight {
		r.stats.InFlight++
		ptrace.NewSpan().MoveTo(rec.Span)
		rec.InFlight = false
		return false, nil
	}
	return true, nil
}

// synthIDs are the ids of an artifact whose records lack OTel identity:
// derived from its first line, so the same file always gets the same ids.
type synthIDs struct {
	trace pcommon.TraceID
	root  pcommon.SpanID
	made  bool
}

func (s *synthIDs) derive(firstLine []byte) {
	if s.made {
		return
	}
	h := sha256.Sum256(append([]byte("agenttrace/synth\x00"), firstLine...))
	copy(s.trace[:], h[:16])
	s.root = synthSpanID(s.trace, 0, []byte("root"))
	s.made = true
}

// synthAgg is what the synthesized root needs to know of the records
// under it.
type synthAgg struct {
	used       bool // a record hangs off the synthesized root
	start, end uint64
}

func (a *synthAgg) add(start, end uint64) {
	if start != 0 && (a.start == 0 || start < a.start) {
		a.start = start
	}
	a.end = max(a.end, end)
}

// fillIdentity gives a record that lacks OTel identity (a tool-dispatch
// record) deterministic ids, a name, an operation and its times, so it
// converts to the same OTLP every time.
func (r *Reader) fillIdentity(rec *Record, line []byte) {
	p, ids, agg := &r.dec.p, &r.ids, &r.agg
	sp := rec.Span
	if p.hasTrace && p.hasSpan {
		return
	}
	attrs := sp.Attributes()
	if !p.hasTrace {
		ids.derive(r.firstLine)
		sp.SetTraceID(ids.trace)
		if sp.ParentSpanID().IsEmpty() {
			sp.SetParentSpanID(ids.root)
			agg.used = true
		}
	}
	if !p.hasSpan {
		sp.SetSpanID(synthSpanID(sp.TraceID(), r.lines.Line(), line))
		if p.hasEst {
			if _, ok := attrs.Get(semconv.EstimatedTokens); !ok {
				attrs.PutInt(semconv.EstimatedTokens, p.estimated)
			}
		}
		if _, ok := attrs.Get(semconv.OperationName); !ok {
			switch p.kind {
			case "call":
				attrs.PutStr(semconv.OperationName, semconv.OpExecuteTool)
			case "inference":
				attrs.PutStr(semconv.OperationName, semconv.OpChat)
			case "agent":
				attrs.PutStr(semconv.OperationName, semconv.OpInvokeAgent)
			}
		}
	}
	if !p.hasName {
		name := p.kind
		if op, ok := attrs.Get(semconv.OperationName); ok {
			name = op.AsString()
		}
		for _, k := range [...]string{semconv.ToolName, semconv.AgentName, semconv.RequestModel} {
			if v, ok := attrs.Get(k); ok {
				name += " " + v.AsString()
				break
			}
		}
		sp.SetName(name)
	}
	switch {
	case !p.hasStart && p.hasEnd && p.hasElapsed:
		sp.SetStartTimestamp(pcommon.Timestamp(uint64(sp.EndTimestamp()) - uint64(p.elapsedNS())))
	case p.hasStart && !p.hasEnd && p.hasElapsed:
		sp.SetEndTimestamp(pcommon.Timestamp(uint64(sp.StartTimestamp()) + uint64(p.elapsedNS())))
	}
	agg.add(uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp()))
}

func synthSpanID(trace pcommon.TraceID, line int, content []byte) pcommon.SpanID {
	h := sha256.New()
	h.Write(trace[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(line))
	h.Write(n[:])
	h.Write(content)
	var id pcommon.SpanID
	copy(id[:], h.Sum(nil))
	return id
}

// rootRecord returns the synthesized root span once, after the last line,
// when records were hung under it.
func (r *Reader) rootRecord() *Record {
	if !r.agg.used || r.emitted {
		return nil
	}
	r.emitted = true
	r.recLine = 0
	sp := ptrace.NewSpan()
	sp.SetTraceID(r.ids.trace)
	sp.SetSpanID(r.ids.root)
	sp.SetName(semconv.OpInvokeAgent)
	sp.SetKind(ptrace.SpanKindInternal)
	start := r.agg.start
	if ms := r.meta.StartedAt; !ms.IsZero() && ms.UnixNano() > 0 && (start == 0 || uint64(ms.UnixNano()) < start) {
		start = uint64(ms.UnixNano())
	}
	sp.SetStartTimestamp(pcommon.Timestamp(start))
	sp.SetEndTimestamp(pcommon.Timestamp(max(r.agg.end, start)))
	sp.Attributes().PutStr(semconv.OperationName, semconv.OpInvokeAgent)
	sp.Attributes().PutBool(semconv.Synthesized, true)
	r.stats.Records++
	return &Record{Span: sp, Resource: r.meta.Resource, ResourceSchemaURL: r.meta.ResourceSchemaURL,
		Scope: r.meta.Scope, ScopeSchemaURL: r.meta.ScopeSchemaURL}
}
