package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/viewer"
)

// serveRun renders the viewer page of an artifact as it is now, with a
// live source that goes on from the first byte the page did not show. A
// run the cache cannot hold is shown paged (servePagedRun).
func (s *Server) serveRun(w http.ResponseWriter, r *http.Request, a *servedRun) {
	k := s.keyOf(a)
	lr, err := s.runAt(k, a)
	if errors.Is(err, errRunTooLarge) {
		s.servePagedRun(w, a)
		return
	}
	if err != nil {
		s.cfg.log.Warn("cannot show artifact", "path", a.rel, "err", err)
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	page, err := s.cache.rendered(k, lr, &lr.page, func() ([]byte, error) { return renderRunPage(a, lr.run, lr.offset) })
	if err != nil {
		s.cfg.log.Error("cannot render viewer page", "path", a.rel, "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	s.sendRunPage(w, a, page, lr.offset)
}

// writeRunPage renders run's viewer page, whose live stream goes on from
// offset, and sends it.
func (s *Server) writeRunPage(w http.ResponseWriter, a *servedRun, run viewer.Run, offset int64) {
	page, err := renderRunPage(a, run, offset)
	if err != nil {
		s.cfg.log.Error("cannot render viewer page", "path", a.rel, "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	s.sendRunPage(w, a, page, offset)
}

// renderRunPage renders run's viewer page to memory: a failure halfway
// must be a 500, not half a page.
func renderRunPage(a *servedRun, run viewer.Run, offset int64) ([]byte, error) {
	var page bytes.Buffer
	err := viewer.Write(&page, []viewer.Run{run}, viewer.WithLive(eventsURL(a.rel, offset), routeData+escapeRel(a.rel)), viewer.WithConvert(routeConvert))
	return page.Bytes(), err
}

// sendRunPage sends a rendered viewer page.
func (s *Server) sendRunPage(w http.ResponseWriter, a *servedRun, page []byte, offset int64) {
	live := eventsURL(a.rel, offset)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", viewerCSP)
	// For clients other than the page (scripts, curl): where the run goes on.
	h.Set("Link", "<"+live+`>; rel="alternate"; type="text/event-stream"`)
	h.Set("Content-Length", strconv.Itoa(len(page)))
	if _, err := w.Write(page); err != nil {
		s.cfg.log.Debug("viewer page not delivered", "path", a.rel, "err", err)
	}
}

// eventsURL is the live source of rel from byte offset on.
func eventsURL(rel string, offset int64) string {
	return routeEvents + escapeRel(rel) + "?offset=" + strconv.FormatInt(offset, 10)
}

// serveData sends the view model of an artifact as it is now
// (viewer.WriteRunJSON): what a live page fetches when its file grows. A
// run too large to load whole sends its first records and its trailer,
// as its page shows them.
func (s *Server) serveData(w http.ResponseWriter, r *http.Request, a *servedRun) {
	k := s.keyOf(a)
	lr, err := s.runAt(k, a)
	var body []byte
	switch {
	case errors.Is(err, errRunTooLarge):
		var run viewer.Run
		if run, _, err = s.pagedRun(a, 0, s.cfg.pageRecords); err == nil {
			body, err = runJSON(run)
		}
	case err == nil:
		body, err = s.cache.rendered(k, lr, &lr.data, func() ([]byte, error) { return runJSON(lr.run) })
	}
	if err != nil {
		s.cfg.log.Warn("cannot show artifact", "path", a.rel, "err", err)
		writeJSONError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	writeJSON(w, bytes.NewBuffer(body))
}

// runJSON is run's view model (viewer.WriteRunJSON).
func runJSON(run viewer.Run) ([]byte, error) {
	var body bytes.Buffer
	if err := viewer.WriteRunJSON(&body, run); err != nil {
		return nil, fmt.Errorf("render the run: %w", err)
	}
	return body.Bytes(), nil
}

// loadRun reads the complete lines of a (up to its last newline) and
// returns them as a run, with the number of bytes they take: the offset a
// live stream starts from, so that a line torn now is neither shown twice
// nor lost.
//
// A run of more than limit records (limit > 0) is not read further:
// loadRun returns errRunTooLarge.
func loadRun(a *servedRun, limit int) (viewer.Run, int64, error) {
	run := viewer.Run{Name: a.rel}
	// Read to the end as it is now, not as it was at opening: a growing
	// file may have gained lines since. Streamed, not read into memory
	// first: a large run's bytes would double what it takes.
	fi, err := a.f.Stat()
	if err != nil {
		return run, 0, fmt.Errorf("read %s: %w", a.rel, err)
	}
	offset, err := lastLineEnd(a, fi.Size())
	if err != nil {
		return run, 0, err
	}
	if offset == 0 {
		return run, 0, nil // no line yet: the stream brings the header
	}
	if err := readArtifactLimit(io.NewSectionReader(a.f, 0, offset), a.rel, &run, limit); err != nil {
		if errors.Is(err, errRunTooLarge) {
			return viewer.Run{Name: a.rel}, 0, err
		}
		return run, 0, fmt.Errorf("read %w", err)
	}
	return run, offset, nil
}

// lastLineEnd returns the offset just past the last newline in a's first
// size bytes (0 when there is none), reading backwards from size.
func lastLineEnd(a *servedRun, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		from := max(0, end-int64(len(buf)))
		chunk := buf[:end-from]
		if _, err := a.f.ReadAt(chunk, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read %s: %w", a.rel, err)
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}

// readArtifact reads an artifact into run: its records, header, last
// trailer, and the lines it could not read (each named by its number, the
// page shows them above the run). A file whose header is missing or bad
// starts when its first record does, not in 1970. Its log lines (content
// the official GenAI instrumentations put in log records) become the
// events of their spans for reading, as agenttrace html shows them
// (converter.LogsAsEvents), so a conversation that lives only in logs
// shows like one in span attributes.
func readArtifact(r io.Reader, name string, run *viewer.Run) error {
	return readArtifactLimit(r, name, run, 0)
}

// readArtifactLimit is readArtifact stopping with errRunTooLarge after
// limit records (limit > 0).
func readArtifactLimit(r io.Reader, name string, run *viewer.Run, limit int) error {
	var logs []artifact.LogRecord
	rd := artifact.NewReader(r, artifact.WithSource(name), artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }), artifact.WithInFlight())
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if limit > 0 && len(run.Records) >= limit {
			return errRunTooLarge
		}
		run.Records = append(run.Records, *rec)
	}
	run.Records, run.InFlight = inFlightApart(run.Records)
	run.Records = converter.LogsAsEvents(run.Records, logs)
	run.Logs = logs
	run.Meta = rd.Meta()
	if run.Meta != nil && !run.Meta.StartedAt.After(time.Unix(0, 0)) && len(run.Records) > 0 {
		m := *run.Meta
		m.StartedAt = artifact.MetaFor(run.Records).StartedAt
		run.Meta = &m
	}
	run.Summary = rd.Summary()
	for _, p := range rd.Problems() {
		run.Problems = append(run.Problems, viewer.Problem{Line: p.Line, Message: p.Err.Error()})
	}
	if st := rd.Stats(); st.Problems > int64(len(rd.Problems())) {
		run.Problems = append(run.Problems, viewer.Problem{Message: fmt.Sprintf("%d more lines could not be read", st.Problems-int64(len(rd.Problems())))})
	}
	return nil
}

// serveRaw sends the artifact's bytes, as a download.
func (s *Server) serveRaw(w http.ResponseWriter, r *http.Request, a *servedRun) {
	if s.cfg.red.serveRedactedRaw(w, r, a) {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/jsonl; charset=utf-8")
	h.Set("Content-Disposition", attachment(a.artifactName()))
	http.ServeContent(w, r, "", a.fi.ModTime(), a.f)
}

// attachment is the Content-Disposition of a download of rel.
func attachment(rel string) string {
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(rel)}); v != "" {
		return v
	}
	return "attachment"
}

// inFlightApart drops the start records their spans' ended records
// superseded (artifact.Settle) and returns the rest apart: the ended
// records, which every total counts, and the spans still in flight,
// which the page shows running.
func inFlightApart(recs []artifact.Record) (ended, flying []artifact.Record) {
	recs = artifact.Settle(recs)
	ended = recs[:0]
	for i := range recs {
		if recs[i].InFlight {
			flying = append(flying, recs[i])
			continue
		}
		ended = append(ended, recs[i])
	}
	clear(recs[len(ended):])
	return ended, flying
}
