package server

import (
	"bytes"
	"io"
	"net/http"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer"
)

// Redaction is what a Server does to runs before it shows them, so that a
// folder of imported logs (written by no redacting writer) does not put
// API keys on a page, in a live stream, in a download or behind the runs
// list's search. It is the same hook the CLI applies when it writes: the
// Server never decides what a secret is, only where data leaves it.
//
// Every way a run leaves the Server goes through it: the run page, /data,
// /compare and a file dropped on a page (Record, on each record read), the
// live stream and /raw (Line, on each line as the file holds it), and the
// list's search text and names (Record, before the run is indexed).
type Redaction struct {
	// Needed reports whether the records of an artifact with header meta
	// (nil: no header, as for a dropped file that is not an artifact)
	// must be redacted. A writer that scanned already says so in its
	// header (secrets_scanned), and scanning again would only cost time.
	// Nil means always.
	Needed func(meta *artifact.Meta) bool
	// Record redacts one record in place: its span, resource and scope.
	// It is called from many requests at once, so it must be safe for
	// concurrent use on different records.
	Record func(rec *artifact.Record)
	// Line redacts one artifact line (a JSON object) as a live stream
	// sends it and a download holds it, and returns it; it must return a
	// JSON object when given one. Nil streams and serves lines as they
	// are, so a Redaction without it should be used only where the folder
	// is already redacted.
	Line func(line []byte) []byte
}

// WithRedaction makes the Server redact what it shows with rd (default:
// nothing is redacted, the Server shows the files as they are).
func WithRedaction(rd Redaction) Option {
	return optionFunc(func(c *config) { c.red = &rd })
}

// needed reports whether runs under meta are redacted; false on a nil
// Redaction, which is what a Server without the option has.
func (rd *Redaction) needed(meta *artifact.Meta) bool {
	return rd != nil && (rd.Needed == nil || rd.Needed(meta))
}

// record redacts rec when runs under meta are redacted.
func (rd *Redaction) record(meta *artifact.Meta, rec *artifact.Record) {
	if rd != nil && rd.Record != nil && rd.needed(meta) {
		rd.Record(rec)
	}
}

// runs redacts the records of each run, by its own header.
func (rd *Redaction) runs(runs ...*viewer.Run) {
	if rd == nil || rd.Record == nil {
		return
	}
	for _, run := range runs {
		if !rd.needed(run.Meta) {
			continue
		}
		for i := range run.Records {
			rd.Record(&run.Records[i])
		}
		for i := range run.InFlight {
			rd.Record(&run.InFlight[i])
		}
	}
}

// lines returns emit redacting each line first, when a's lines are
// redacted; emit itself otherwise.
func (rd *Redaction) lines(a *servedRun, emit func([]byte, int64) error) func([]byte, int64) error {
	if !rd.linesNeeded(a) {
		return emit
	}
	return func(line []byte, end int64) error { return emit(rd.Line(line), end) }
}

// linesNeeded reports whether a's lines are redacted: the decision is the
// header's, read from the file's first line, whatever offset a stream
// starts at.
func (rd *Redaction) linesNeeded(a *servedRun) bool {
	return rd != nil && rd.Line != nil && rd.needed(header(a))
}

// header reads the header of a's file from its first line, without moving
// the file's offset. It is nil when the first line is not complete yet or
// not a header, which Needed takes as "no promise".
func header(a *servedRun) *artifact.Meta {
	buf := make([]byte, 0, 4096)
	chunk := make([]byte, 4096)
	for off := int64(0); len(buf) < artifact.DefaultMaxLineSize; {
		n, err := a.f.ReadAt(chunk, off)
		buf = append(buf, chunk[:n]...)
		off += int64(n)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[:i+1]
			break
		}
		if err != nil {
			return nil // no complete first line
		}
	}
	if bytes.IndexByte(buf, '\n') < 0 {
		return nil
	}
	rd := artifact.NewReader(bytes.NewReader(buf), artifact.WithSource(a.rel))
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
	}
	return rd.Meta()
}

// serveRedactedRaw sends a's bytes with each line redacted, when a's lines
// are redacted, and reports whether it did: a download must not hand out
// what the page hides. The file is read as it is now.
func (rd *Redaction) serveRedactedRaw(w http.ResponseWriter, r *http.Request, a *servedRun) bool {
	if !rd.linesNeeded(a) {
		return false
	}
	data, err := io.ReadAll(a.f)
	if err != nil {
		http.Error(w, "cannot read the artifact", http.StatusInternalServerError)
		return true
	}
	h := w.Header()
	h.Set("Content-Type", "application/jsonl; charset=utf-8")
	h.Set("Content-Disposition", attachment(a.artifactName()))
	// A line that is not a record (a torn one) is scanned as text all the
	// same: a secret can sit in half a line.
	http.ServeContent(w, r, "", a.fi.ModTime(), bytes.NewReader(redactLines(rd, data)))
	return true
}
