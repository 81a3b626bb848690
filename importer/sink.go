package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// maxProblems bounds the problems a reader keeps; the rest are counted in
// one last problem.
const maxProblems = 1000

// sink is where a reader's records, unknown types and problems go. Every
// reader keeps one; done returns what it counted.
type sink struct {
	name    string // the input's name, for messages
	emit    func(*artifact.Record) error
	stats   Stats
	dropped int  // problems not kept
	last    int  // line of the last problem
	torn    bool // eachLine: the current line is the last one and has no newline
}

// problem reports that line (a record number for a binary shape) could
// not be read, or not wholly.
func (s *sink) problem(line int, err error) {
	s.last = line
	s.stats.Skipped++
	if len(s.stats.Problems) >= maxProblems {
		s.dropped++
		return
	}
	s.stats.Problems = append(s.stats.Problems, &artifact.LineError{Source: s.name, Line: line, Err: err})
}

// unknown counts a record of a type the shape does not define.
func (s *sink) unknown(typ string) {
	if s.stats.Unknown == nil {
		s.stats.Unknown = make(map[string]int64)
	}
	s.stats.Unknown[typ]++
}

func (s *sink) put(rec *artifact.Record) error {
	s.stats.Records++
	return s.emit(rec)
}

func (s *sink) putAll(recs []artifact.Record) error {
	for i := range recs {
		if err := s.put(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// done returns the stats, with the problems that were not kept counted in
// a last one.
func (s *sink) done() Stats {
	if s.dropped > 0 {
		s.stats.Problems = append(s.stats.Problems, &artifact.LineError{Source: s.name, Line: s.last,
			Err: fmt.Errorf("%d more problems not listed", s.dropped)})
		s.dropped = 0
	}
	return s.stats
}

// eachLine calls fn with every line of lr that is not blank, a byte order
// mark taken off, until the end, a read error or an error from fn. A line
// over the limit is reported and skipped; s.torn tells fn that its line is
// the last one and was cut short.
func (s *sink) eachLine(lr *artifact.LineReader, fn func(line []byte) error) error {
	for {
		line, err := lr.Next()
		s.torn = err == artifact.ErrTornLine
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, artifact.ErrLineTooLong):
			s.problem(lr.Line(), err)
			continue
		case err != nil && !s.torn:
			return fmt.Errorf("%s: %w", s.name, err)
		}
		line = bytes.TrimPrefix(line, byteOrderMark)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// byteOrderMark is the UTF-8 BOM some editors put at the start of a file.
var byteOrderMark = []byte{0xEF, 0xBB, 0xBF}

// The instrumentation scope of the spans the importers synthesize.
const (
	importScopeName    = "github.com/agenttrace/agenttrace/importer"
	importScopeVersion = "0.1.0"
)

// synth is the sink of a reader that synthesizes its spans (transcript,
// trajectory, events): they share one resource, which names no service
// unless the reader sets one, and the importer's scope.
type synth struct {
	sink
	res   pcommon.Resource
	scope pcommon.InstrumentationScope
	// growing says the input is still being written (ForGrowing); atEnd
	// that what is sent now was left open by the input's end (openAtEnd).
	growing, atEnd bool
}

func newSynth(name string, emit func(*artifact.Record) error) synth {
	s := synth{sink: sink{name: name, emit: emit}, res: pcommon.NewResource(), scope: pcommon.NewInstrumentationScope()}
	s.res.Attributes().PutStr("service.name", "unknown_service")
	s.scope.SetName(importScopeName)
	s.scope.SetVersion(importScopeVersion)
	return s
}

// send emits sp under the import's resource and scope.
func (s *synth) send(sp ptrace.Span) error {
	rec := artifact.Record{Span: sp, Resource: s.res, Scope: s.scope}
	if s.growing && s.atEnd {
		inFlight(&rec)
	}
	return s.put(&rec)
}

// openAtEnd runs fn, which sends what the input left open at its end: a
// tool call without its result, a model request without its response, a
// session or run without its end. Read whole, the input is over, and fn
// marks them failed ("incomplete") or ends them at the last record. A file
// still being written (ForGrowing) may yet close them: what fn sends goes
// as a start record in flight instead (artifact.Record.InFlight: no end,
// no "incomplete"), which the span's ended record supersedes once a later
// read of the file has it.
func (s *synth) openAtEnd(fn func() error) error {
	s.atEnd = true
	defer func() { s.atEnd = false }()
	return fn()
}

// inFlight makes rec the start record of a span still open: no end, and
// not the "incomplete" failure openAtEnd's callers give a span the input
// left open (an error of its own, which the input said, stays).
func inFlight(rec *artifact.Record) {
	sp := rec.Span
	sp.SetEndTimestamp(sp.StartTimestamp())
	if v, ok := sp.Attributes().Get(semconv.ErrorType); ok && v.Str() == errIncomplete {
		sp.Attributes().Remove(semconv.ErrorType)
		sp.Status().SetCode(ptrace.StatusCodeUnset)
		sp.Status().SetMessage("")
	}
	rec.InFlight = true
}
