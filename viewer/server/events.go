package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
)

// Live stream protocol (Server-Sent Events, text/event-stream):
//
//   - every complete line the artifact gains from the requested offset on
//     is one event named "record" whose data is the line, as it is in the
//     file (a JSON record, or a meta or summary line), and whose id is the
//     byte offset just past the line's newline. A reconnecting EventSource
//     sends that id back as Last-Event-ID and the stream goes on from
//     there: no line is lost or sent twice.
//   - a line without its newline yet (being written, or torn) is held
//     until the newline arrives; blank lines and lines that are not a JSON
//     object (a torn line a restarted writer closed off) are skipped, as a
//     reader skips them. A file of another shape (a transcript log, say,
//     which the page shows converted: inputs.go) sends every line that is
//     not blank, server-sent "data:" lines included: each says the file
//     grew, and the page fetches its converted run again.
//   - when the file is no longer the one the page shows (it shrank below
//     the offset, or its path now names another file or none), one event
//     named "reset" is sent, whose data is {"reason": ...}; the stream then
//     stays open but silent, so the browser does not reconnect in a loop.
//     The page should reload to show what the file holds now.
//   - when the file has gained nothing for the idle time (WithIdle), one
//     event named "idle" is sent, whose data is {"since": the file's
//     modification time}: a run that has not ended has now stopped
//     without one, and the page fetches its view model again to show it
//     (Go decides the state: viewer.StateOf). Sent again after the file
//     grows and goes idle once more.
//   - a comment is sent every heartbeat interval.
const (
	eventRecord = "record"
	eventReset  = "reset"
	eventIdle   = "idle"
)

// retryMillis is the reconnection delay the stream asks of the browser:
// after a restart of the server, the page resumes within a second or two.
const retryMillis = 1500

// readChunk is how much of a growing file is read at once.
const readChunk = 64 << 10

// errBadOffset is an offset or Last-Event-ID that is not a byte offset.
var errBadOffset = errors.New("bad offset: want a byte offset (0 or more)")

// serveEvents streams the lines the artifact gains after the requested
// offset until the client goes away or the Server shuts down.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, a *servedRun) {
	offset, err := startOffset(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc := http.NewResponseController(w)
	// A WriteTimeout of the http.Server would cut the stream; the
	// Handler may be mounted on one that has it.
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)

	st := &stream{w: w, rc: rc}
	st.raw("retry: " + strconv.Itoa(retryMillis) + "\n\n")
	if err := st.flush(); err != nil {
		return
	}
	log := s.cfg.log.With("path", a.rel)
	t := &tail{rel: a.rel, f: fileOf(a), pos: offset, read: offset, maxLine: artifact.DefaultMaxLineSize, log: log, anyLine: foreignLines(a)}
	reason, err := t.start()
	if err != nil {
		log.Warn("live stream: cannot read", "err", err)
		return
	}
	if reason != "" {
		log.Info("live stream: the file is not the one the page shows", "reason", reason, "offset", offset)
		st.reset(reason)
		if err := st.flush(); err != nil {
			return
		}
	}

	emit := s.cfg.red.lines(a, st.record)
	poll := time.NewTicker(s.cfg.poll)
	defer poll.Stop()
	beat := time.NewTicker(s.cfg.heartbeat)
	defer beat.Stop()
	var idleAt time.Time // the modification time an idle event was sent for
	for {
		if reason == "" {
			reason, err = t.follow(s.root, emit)
			if err != nil {
				if !errors.Is(err, errClientGone) {
					log.Warn("live stream: cannot read", "err", err)
				}
				return
			}
			if reason != "" {
				log.Info("live stream: the file changed under the page", "reason", reason)
				st.reset(reason)
			} else if lv := s.liveness(t.fi); !lv.Written.Equal(idleAt) && lv.Stale() {
				idleAt = lv.Written
				st.idle(lv.Written)
			}
			if err := st.flush(); err != nil {
				return
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-poll.C:
		case <-beat.C:
			st.raw(": ping\n\n")
			if err := st.flush(); err != nil {
				return
			}
		}
	}
}

// startOffset is where a stream starts: the Last-Event-ID a reconnecting
// EventSource sends, else the offset parameter of the URL the page was
// given, else 0.
func startOffset(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("offset")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %q", errBadOffset, v)
	}
	return n, nil
}

// errClientGone is a write to a client that is no longer there.
var errClientGone = errors.New("client gone")

// stream writes events to one client. Write errors are kept and
// returned by flush: the client went away, and the stream ends.
type stream struct {
	w   io.Writer
	rc  *http.ResponseController
	buf []byte
	err error
}

func (st *stream) raw(s string) {
	if st.err == nil {
		_, st.err = io.WriteString(st.w, s)
	}
}

// record sends one line as a record event whose id is end.
func (st *stream) record(line []byte, end int64) error {
	b := append(st.buf[:0], "id: "...)
	b = strconv.AppendInt(b, end, 10)
	b = append(b, "\nevent: "+eventRecord+"\n"...)
	// A bare CR ends a field in event-stream, as LF does; JSON allows one
	// between tokens. Each CR-separated part goes in a data field of its
	// own, which the client joins with LF: the same JSON value.
	for part := range bytes.SplitSeq(line, []byte{'\r'}) {
		b = append(b, "data: "...)
		b = append(b, part...)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	st.buf = b
	if st.err == nil {
		_, st.err = st.w.Write(b)
	}
	if st.err != nil {
		return fmt.Errorf("%w: %w", errClientGone, st.err)
	}
	return nil
}

func (st *stream) reset(reason string) {
	data, _ := json.Marshal(map[string]string{"reason": reason})
	st.raw("event: " + eventReset + "\ndata: " + string(data) + "\n\n")
}

// idle sends an idle event: the file has gained nothing since mtime.
func (st *stream) idle(mtime time.Time) {
	data, _ := json.Marshal(map[string]time.Time{"since": mtime.UTC()})
	st.raw("event: " + eventIdle + "\ndata: " + string(data) + "\n\n")
}

func (st *stream) flush() error {
	if st.err == nil {
		st.err = st.rc.Flush()
	}
	if st.err != nil {
		return fmt.Errorf("%w: %w", errClientGone, st.err)
	}
	return nil
}

// tail follows a growing artifact from a line boundary.
type tail struct {
	rel      string
	f        *os.File
	pos      int64  // just past the last complete line handled: the id a reconnect resumes from
	read     int64  // bytes read so far: pos + len(partial) (more while skipping)
	partial  []byte // a line whose newline has not arrived
	skipping bool   // dropping the rest of a line longer than maxLine
	maxLine  int
	chunk    []byte
	fi       os.FileInfo // the file's, at the last follow; nil before it
	log      *slog.Logger
	// anyLine sends every non-blank line, JSON object or not: the file is
	// of another shape (inputs.go), whose page fetches its converted run
	// at each line and whose lines may be server-sent events.
	anyLine bool
}

// Reasons for a reset.
const (
	resetTruncated = "truncated" // the file is shorter than what the page holds
	resetReplaced  = "replaced"  // the path names another file, or none
	resetMisplaced = "offset"    // the offset is not at the end of a line
)

// start checks the requested offset against the file: it must be within
// the file and just past a newline. A page loaded from an earlier file of
// the same name would otherwise get the middle of a line.
func (t *tail) start() (reason string, err error) {
	fi, err := t.f.Stat()
	if err != nil {
		return "", fmt.Errorf("stat: %w", err)
	}
	if t.pos > fi.Size() {
		return resetTruncated, nil
	}
	if t.pos == 0 {
		return "", nil
	}
	var b [1]byte
	_, err = t.f.ReadAt(b[:], t.pos-1)
	switch {
	case errors.Is(err, io.EOF): // shrunk since the stat
		return resetTruncated, nil
	case err != nil:
		return "", fmt.Errorf("read at %d: %w", t.pos-1, err)
	case b[0] != '\n':
		return resetMisplaced, nil
	}
	return "", nil
}

// follow reads what the file gained since the last call and calls emit
// for each complete line, with the offset just past it. It returns a
// reason when the file is no longer the one being followed.
func (t *tail) follow(root *os.Root, emit func(line []byte, end int64) error) (reason string, err error) {
	fi, err := t.f.Stat()
	if err != nil {
		return "", fmt.Errorf("stat: %w", err)
	}
	// A writer that replaces the file (a rename over it) or removes it
	// leaves this descriptor on a file that will never grow again.
	if now, err := root.Stat(filepath.FromSlash(t.rel)); err != nil || !os.SameFile(fi, now) {
		return resetReplaced, nil
	}
	size := fi.Size()
	t.fi = fi
	if size < t.read {
		// Cutting off a torn last line is how a writer repairs a crash;
		// anything shorter loses lines the page already shows.
		if size < t.pos || t.skipping {
			return resetTruncated, nil
		}
		t.partial = t.partial[:size-t.pos]
		t.read = size
	}
	if t.chunk == nil && size > t.read {
		t.chunk = make([]byte, readChunk)
	}
	for t.read < size {
		n, err := t.f.ReadAt(t.chunk[:min(int64(len(t.chunk)), size-t.read)], t.read)
		if n > 0 {
			base := t.read
			t.read += int64(n)
			if err := t.lines(t.chunk[:n], base, emit); err != nil {
				return "", err
			}
		}
		if errors.Is(err, io.EOF) {
			break // shrunk since the stat: the next call sees it
		}
		if err != nil {
			return "", fmt.Errorf("read at %d: %w", t.read, err)
		}
	}
	return "", nil
}

// lines splits data, read at offset base, into lines.
func (t *tail) lines(data []byte, base int64, emit func([]byte, int64) error) error {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if t.skipping {
				return nil
			}
			if len(t.partial)+len(data) > t.maxLine {
				t.log.Warn("live stream: line too long, skipped", "offset", t.pos, "max", t.maxLine)
				t.partial, t.skipping = t.partial[:0], true
				return nil
			}
			t.partial = append(t.partial, data...)
			return nil
		}
		end := base + int64(i) + 1
		if t.skipping {
			t.skipping = false
		} else {
			line := data[:i]
			if len(t.partial) > 0 {
				t.partial = append(t.partial, line...)
				line = t.partial
			}
			line = bytes.TrimSuffix(line, []byte{'\r'})
			switch {
			case len(line) > t.maxLine:
				t.log.Warn("live stream: line too long, skipped", "offset", t.pos, "max", t.maxLine)
			case isObject(line) || (t.anyLine && len(bytes.TrimSpace(line)) > 0):
				if err := emit(line, end); err != nil {
					return err
				}
			case len(bytes.TrimSpace(line)) > 0:
				t.log.Info("live stream: not a JSON object, skipped", "offset", t.pos)
			}
			t.partial = t.partial[:0]
		}
		t.pos = end
		base, data = end, data[i+1:]
	}
	return nil
}

// isObject reports whether line is one JSON object: what a reader makes a
// line of (anything else it reports and skips).
func isObject(line []byte) bool {
	trimmed := bytes.TrimLeft(line, " \t\r")
	return len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(line)
}
