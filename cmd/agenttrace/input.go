package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
)

// stdinName is how messages name standard input.
const stdinName = "<stdin>"

// input is one opened input, its shape told from its first bytes.
type input struct {
	name  string
	shape importer.Shape // decides how it is read; Unknown when empty
	r     *bufio.Reader
	rerr  *readErr
	close func() error
}

// readErr remembers the first read error of the underlying file, so that
// a failure to read (exit 2) is told apart from bad content (exit 1) even
// when a decoder wraps it beyond recognition.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// checkStdin rejects a command line that names standard input twice,
// before anything is read. Every command that reads inputs calls it on
// its arguments first, so open need not count them again.
func checkStdin(paths []string) error {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("standard input (-) given more than once")
	}
	return nil
}

// open opens path ("-" for standard input) and detects its shape from its
// content, unless --from named it. Errors are exitErrors naming the file.
func (e *env) open(path string) (*input, error) {
	in := &input{name: path, close: func() error { return nil }}
	var src io.Reader
	if path == "-" {
		in.name, src = stdinName, e.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, ioError(err)
		}
		in.close, src = f.Close, f
	}
	in.rerr = &readErr{r: src}
	in.r = bufio.NewReaderSize(in.rerr, converter.DetectSize)
	head, err := in.r.Peek(converter.DetectSize)
	if err != nil && err != io.EOF {
		in.close()
		return nil, ioError(fmt.Errorf("read %s: %w", in.name, err))
	}
	in.shape = importer.Detect(head)
	if e.from != importer.Unknown {
		in.shape = e.from // --from: the user knows better than the bytes
	}
	if len(head) == 0 {
		in.shape = importer.Unknown
	}
	return in, nil
}

// source is what one input held.
type source struct {
	name    string
	meta    *converter.Meta // the artifact's header; nil for other shapes
	records []converter.Record
	skipped int64 // lines reported and skipped
	unknown int64 // lines of an unknown kind
}

// load reads every record of in. Problems with lines go to onProblem as
// they are found; the input is still read to the end.
func (in *input) load(onProblem func(*converter.LineError)) (*source, error) {
	defer in.close()
	src := &source{name: in.name}
	switch in.shape {
	case importer.Artifact:
		// Read here rather than by importer.For, which keeps no header:
		// the budget and the redaction flag live only there.
		r := converter.NewReader(in.r, converter.WithSource(in.name), converter.WithProblemHandler(onProblem))
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, in.fail(err)
			}
			src.records = append(src.records, *rec)
		}
		src.meta = r.Meta()
		st := r.Stats()
		src.skipped, src.unknown = st.Problems, st.Unknown
	case importer.Unknown:
		if _, err := in.r.Peek(1); err == io.EOF {
			return nil, invalidError(fmt.Errorf("%s: empty input", in.name))
		}
		return nil, invalidError(fmt.Errorf("%s: %w", in.name, converter.ErrUnknownFormat))
	default:
		// OTLP and the other agent-trace shapes. The records come in the
		// order their spans end; judge orders them for itself, and
		// loadOpened sorts what it merges.
		st, err := in.importTo(onProblem, func(rec *converter.Record) error {
			src.records = append(src.records, *rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
		src.skipped, src.unknown = int64(len(st.Problems)), unknownCount(st)
	}
	return src, nil
}

// streamed reports whether convert writes in to one artifact record by
// record. Artifacts and OTLP are not streamed: the header of the artifact
// made from them is made from all their records (and, for an artifact,
// from its own header).
func (in *input) streamed() bool {
	switch in.shape {
	case importer.Transcript, importer.Trajectory, importer.Events, importer.Jaeger, importer.OTLPStream:
		return true
	}
	return false
}

// importTo reads in with the importer of its shape, calling emit for each
// record as it is made and onProblem for each line it could not read.
func (in *input) importTo(onProblem func(*converter.LineError), emit func(*converter.Record) error) (importer.Stats, error) {
	read, ok := importer.For(in.shape)
	if !ok {
		return importer.Stats{}, invalidError(fmt.Errorf("%s: %w", in.name, converter.ErrUnknownFormat))
	}
	st, err := read(in.r, in.name, emit)
	for _, p := range st.Problems {
		var le *converter.LineError
		if errors.As(p, &le) {
			onProblem(le)
		} else {
			onProblem(&converter.LineError{Source: in.name, Err: p})
		}
	}
	if err != nil {
		return st, in.fail(err)
	}
	return st, nil
}

func unknownCount(st importer.Stats) int64 {
	var n int64
	for _, c := range st.Unknown {
		n += c
	}
	return n
}

// fail classifies a decoding error: the file could not be read (2), or
// its content is unusable (1). The message names the file once: the
// decoders, given the name, mostly name it themselves.
func (in *input) fail(err error) error {
	if in.rerr.err != nil {
		return ioError(fmt.Errorf("read %s: %w", in.name, in.rerr.err))
	}
	if !strings.HasPrefix(err.Error(), in.name+":") {
		err = fmt.Errorf("%s: %w", in.name, err)
	}
	return invalidError(err)
}

// inputs is every input of a command line, read.
type inputs struct {
	sources []*source
	records []converter.Record // all of them, in end-time order
}

// loadInputs reads paths in order, printing artifact problems to stderr
// as "file:line: problem". A missing or unreadable file stops it.
func (e *env) loadInputs(paths []string) (*inputs, error) {
	return e.loadOpened(paths, nil)
}

// loadOpened is loadInputs for a command line whose first input the
// caller has already opened (to look at its shape).
func (e *env) loadOpened(paths []string, first *input) (*inputs, error) {
	all := &inputs{}
	report := func(le *converter.LineError) { fmt.Fprintln(e.stderr, le.Error()) }
	for i, p := range paths {
		in := first
		if i > 0 || in == nil {
			var err error
			if in, err = e.open(p); err != nil {
				return nil, err
			}
		}
		src, err := in.load(report)
		if err != nil {
			return nil, err
		}
		all.sources = append(all.sources, src)
		all.records = append(all.records, src.records...)
	}
	converter.SortRecords(all.records)
	return all, nil
}

// noteSkipped prints, per input, how many lines were skipped and returns
// errFindings when any were: a run that lost lines must not look clean.
func (e *env) noteSkipped(all *inputs) error {
	var err error
	for _, s := range all.sources {
		if s.unknown > 0 {
			fmt.Fprintf(e.stderr, "%s: note: %d line(s) of an unknown kind skipped\n", s.name, s.unknown)
		}
		if s.skipped > 0 {
			fmt.Fprintf(e.stderr, "%s: %d bad line(s) skipped\n", s.name, s.skipped)
			err = errFindings
		}
	}
	return err
}

// metaFor is the header for an artifact of recs made from all: what
// converter.MetaFor finds, plus the budget and redaction of the input
// header when there was exactly one input and it was an artifact, since
// those live only in the header.
func (all *inputs) metaFor(recs []converter.Record) *converter.Meta {
	m := converter.MetaFor(recs)
	if len(all.sources) == 1 && all.sources[0].meta != nil {
		in := all.sources[0].meta
		if m.Budget == nil && in.Budget != nil {
			b := *in.Budget
			m.Budget = &b
		}
		m.Redacted = m.Redacted || in.Redacted
	}
	return m
}
