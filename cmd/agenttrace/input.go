package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/store"
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
	// maxLine is the longest artifact line read (--max-line).
	maxLine int
	// logs is the OTLP logs format of an input of log records (the GenAI
	// instrumentations' message content); 0 for every other input.
	logs converter.Format
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
	in := &input{name: path, close: func() error { return nil }, maxLine: e.maxLine}
	var src io.Reader
	if path == "-" {
		in.name, src = stdinName, e.stdin
	} else if isObjectURL(path) {
		// An artifact in a bucket (s3://, gs://, azblob://, file://,
		// mem://): its generations merged and decoded, read as a file.
		in.name = shownURL(path)
		rc, err := bucket.OpenURL(context.Background(), path)
		if err != nil {
			return nil, ioError(err)
		}
		in.close, src = rc.Close, rc
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
		return nil, in.readError(err)
	}
	in.shape = importer.Detect(head)
	if f := converter.Detect(head); f.IsLogs() && e.from == importer.Unknown {
		in.logs = f
	}
	if e.from != importer.Unknown {
		in.shape = e.from // --from: the user knows better than the bytes
	}
	if len(head) == 0 {
		in.shape = importer.Unknown
	}
	return in, nil
}

// isObjectURL tells the URL of an artifact in a bucket ("s3://b/key",
// the schemes bucket.Schemes names) from a path.
func isObjectURL(path string) bool {
	scheme, _, ok := strings.Cut(path, "://")
	return ok && slices.Contains(bucket.Schemes, scheme)
}

// shownURL is an object URL as messages name it: without its query
// (where a bucket URL may carry a credential) or user information.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<bucket URL>"
	}
	u.User, u.RawQuery, u.ForceQuery = nil, "", false
	return u.String()
}

// source is what one input held.
type source struct {
	name    string
	meta    *artifact.Meta    // the artifact's header; nil for other shapes
	summary *artifact.Summary // the artifact's last trailer; nil when none
	records []artifact.Record
	// logs are the input's log records: an OTLP logs payload's, or an
	// artifact's "log" lines.
	logs    []artifact.LogRecord
	skipped int64 // lines reported and skipped
	unknown int64 // artifact lines of an unknown kind
	// unknownTypes counts, by type, the records of types an imported
	// shape does not define.
	unknownTypes map[string]int64
	// lines holds each record's line in an artifact (0 for a synthesized
	// root), for findings that name lines; nil for other shapes.
	lines []int
	// inFlight are an artifact's spans that started and did not end in
	// it: start records ("in_flight":true) that no ended record
	// superseded (artifact.Settle). They are in no total; the page shows
	// them as running, or as never ended once the file is idle.
	inFlight []artifact.Record
}

// load reads every record of in. Problems with lines go to onProblem as
// they are found; the input is still read to the end.
func (in *input) load(onProblem func(*artifact.LineError)) (*source, error) {
	defer in.close()
	src := &source{name: in.name}
	if in.logs != 0 {
		ld, err := converter.ReadOTLPLogs(in.r, in.logs, in.name)
		if err != nil {
			return nil, in.fail(err)
		}
		src.logs = artifact.LogRecords(ld)
		return src, nil
	}
	switch in.shape {
	case importer.Artifact:
		// Read here rather than by importer.For, which keeps no header:
		// the budget and the redaction flag live only there.
		r := artifact.NewReader(in.r, artifact.WithSource(in.name), artifact.WithProblemHandler(onProblem), artifact.WithMaxLineSize(in.maxLine),
			artifact.WithLogs(func(l *artifact.LogRecord) { src.logs = append(src.logs, *l) }), artifact.WithInFlight())
		var flying []artifact.Record
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, in.fail(err)
			}
			if rec.InFlight {
				flying = append(flying, *rec)
				continue
			}
			src.records = append(src.records, *rec)
			src.lines = append(src.lines, r.Line())
		}
		if len(flying) > 0 {
			// Settle keeps every ended record and, after them, what
			// is still in flight.
			n := len(src.records)
			src.inFlight = artifact.Settle(append(slices.Clip(src.records), flying...))[n:]
		}
		src.meta, src.summary = r.Meta(), r.Summary()
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
		err := in.importTo(src, onProblem, func(rec *artifact.Record) error {
			src.records = append(src.records, *rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return src, nil
}

// streamed reports whether convert writes in to one artifact record by
// record. Artifacts and OTLP are not streamed: the header of the artifact
// made from them is made from all their records (and, for an artifact,
// from its own header).
func (in *input) streamed() bool {
	if in.logs != 0 {
		return false
	}
	switch in.shape {
	case importer.Transcript, importer.Trajectory, importer.Events, importer.Jaeger, importer.OTLPStream, importer.AgentEval:
		return true
	}
	return false
}

// importTo reads in with the importer of its shape, calling emit for each
// record as it is made and onProblem for each line it could not read, and
// counts in src what it skipped.
func (in *input) importTo(src *source, onProblem func(*artifact.LineError), emit func(*artifact.Record) error) error {
	read, ok := importer.For(in.shape)
	if !ok {
		return invalidError(fmt.Errorf("%s: %w", in.name, converter.ErrUnknownFormat))
	}
	st, err := read(in.r, in.name, emit)
	src.skipped, src.unknownTypes = st.Skipped, st.Unknown
	for _, p := range st.Problems {
		var le *artifact.LineError
		if errors.As(p, &le) {
			onProblem(le)
		} else {
			onProblem(&artifact.LineError{Source: in.name, Err: p})
		}
	}
	if err != nil {
		return in.fail(err)
	}
	return nil
}

// fail classifies a decoding error: the file could not be read (2), or
// its content is unusable (1). The message names the file once: the
// decoders, given the name, mostly name it themselves.
func (in *input) fail(err error) error {
	if in.rerr.err != nil {
		return in.readError(in.rerr.err)
	}
	if !strings.HasPrefix(err.Error(), in.name+":") {
		err = fmt.Errorf("%s: %w", in.name, err)
	}
	return invalidError(err)
}

// readError reports that in could not be read (exit 2), naming it once:
// a file's errors name its path already ("read runs: is a directory").
func (in *input) readError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return ioError(err)
	}
	return ioError(fmt.Errorf("read %s: %w", in.name, err))
}

// inputs is every input of a command line, read.
type inputs struct {
	sources []*source
	records []artifact.Record    // all of them, in end-time order
	logs    []artifact.LogRecord // all of them, in input order
}

// printProblem prints a line that could not be read, as
// "file:line: problem", to standard error.
func (e *env) printProblem(le *artifact.LineError) { fmt.Fprintln(e.stderr, le.Error()) }

// loadOne opens and reads one input, printing problems with lines to
// stderr.
func (e *env) loadOne(path string) (*source, error) {
	in, err := e.open(path)
	if err != nil {
		return nil, err
	}
	return in.load(e.printProblem)
}

// loadInputs reads paths in order, printing problems with lines to
// stderr. A missing or unreadable file stops it.
func (e *env) loadInputs(paths []string) (*inputs, error) {
	return e.loadOpened(paths, nil)
}

// loadOpened is loadInputs for a command line whose first input the
// caller has already opened (to look at its shape).
func (e *env) loadOpened(paths []string, first *input) (*inputs, error) {
	all := &inputs{}
	for i, p := range paths {
		var src *source
		var err error
		if i == 0 && first != nil {
			src, err = first.load(e.printProblem)
		} else {
			src, err = e.loadOne(p)
		}
		if err != nil {
			return nil, err
		}
		e.redact.source(src) // before anything is written, shown or sent
		all.sources = append(all.sources, src)
		all.records = append(all.records, src.records...)
		all.logs = append(all.logs, src.logs...)
	}
	importer.AsOneRun(all.records) // an ATIF subagent's own file given with its parent's
	return all, nil
}

// noteSkipped notes what each input skipped (see noteSource), and
// returns errFindings when any lost lines.
func (e *env) noteSkipped(all *inputs) error {
	var err error
	for _, s := range all.sources {
		if e.noteSource(s) != nil {
			err = errFindings
		}
	}
	return err
}

// noteSource prints what s skipped: lines of an unknown kind or type (a
// note), and bad lines, which make it return errFindings: a run that lost
// lines must not look clean.
func (e *env) noteSource(s *source) error {
	if s.unknown > 0 {
		fmt.Fprintf(e.stderr, "%s: note: %d line(s) of an unknown kind skipped\n", s.name, s.unknown)
	}
	for _, typ := range slices.Sorted(maps.Keys(s.unknownTypes)) {
		fmt.Fprintf(e.stderr, "%s: note: %d record(s) of unknown type %q skipped\n", s.name, s.unknownTypes[typ], typ)
	}
	if n := len(s.inFlight); n > 0 && s.summary == nil {
		fmt.Fprintf(e.stderr, "%s: note: %d span(s) started and not ended (still running, or the writer stopped without an end): in no total\n", s.name, n)
	}
	if s.skipped > 0 {
		fmt.Fprintf(e.stderr, "%s: %d bad line(s) skipped\n", s.name, s.skipped)
		return errFindings
	}
	return nil
}

// metaFor is the header of the one artifact of recs made from all: the
// store's header policy (store.Header) for an artifact written whole,
// with headerOptions.
func (all *inputs) metaFor(recs []artifact.Record) *artifact.Meta {
	opts := all.headerOptions()
	opts.Whole = true
	return store.Header(store.Key{Kind: store.KindRun}, recs, opts)
}

// headerOptions are what the headers written from all take from the
// input rather than from the records: the budget and redaction of the
// input header when there was exactly one input and it was an artifact,
// since those live only in the header.
func (all *inputs) headerOptions() store.HeaderOptions {
	var opts store.HeaderOptions
	if len(all.sources) == 1 && all.sources[0].meta != nil {
		in := all.sources[0].meta
		if in.Budget != nil {
			b := *in.Budget
			opts.Budget = &b
		}
		opts.Redacted = in.Redacted
	}
	return opts
}
