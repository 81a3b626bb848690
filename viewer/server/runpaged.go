package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// pagedRun reads records skip to skip+n of a run too large to load whole,
// with its header and trailer, redacted: memory bounded by n, whatever
// the run's size.
func (s *Server) pagedRun(a *servedRun, skip, n int) (viewer.Run, int64, error) {
	run, end, err := headRun(a, skip, n)
	if err != nil {
		return run, 0, err
	}
	end = a.importedRun(&run, end)
	s.cfg.red.runs(&run)
	run.Live = s.liveness(a.fi)
	return run, end, nil
}

// servePagedRun shows a run too large to load whole: the trailer's
// summary (its totals are the trailer's, as for a run whose producer
// dropped records) and the first records, with a note saying where the
// rest is read by range. Its live stream goes on from the file's end.
func (s *Server) servePagedRun(w http.ResponseWriter, a *servedRun) {
	n := s.cfg.pageRecords
	run, end, err := s.pagedRun(a, 0, n)
	if err != nil {
		s.cfg.log.Warn("cannot show artifact", "path", a.rel, "err", err)
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	pagedNote(&run, a.fi.Size(), a.rel, n)
	w.Header().Set("X-Agenttrace-Paged", strconv.Itoa(len(run.Records)))
	s.writeRunPage(w, a, run, end)
}

// pagedNote puts the note of a run shown paged above its problems: what
// the page holds of it, and where the rest is read by range (n records a
// request). size is the run's bytes, rel its name in the routes.
func pagedNote(run *viewer.Run, size int64, rel string, n int) {
	total := "an unknown number of"
	if run.Summary != nil {
		total = report.Thousands(run.Summary.Records)
	}
	run.Problems = append([]viewer.Problem{{Message: fmt.Sprintf(
		"This run is too large to load whole here (%s bytes, %s records): the page shows its first %s records and the totals of its trailer. "+
			"The rest is read by range: %s?offset=%d&limit=%d (or raise serve --cache-size).",
		report.Thousands(size), total, report.Thousands(int64(len(run.Records))), routeRecords+escapeRel(rel), len(run.Records), n)}},
		run.Problems...)
}

// recordsRange is the range a request of routeRecords asks for: offset
// and limit, limit at most the configured page size; false when it
// answered a bad request.
func (s *Server) recordsRange(w http.ResponseWriter, r *http.Request) (offset, limit int, ok bool) {
	q := r.URL.Query()
	offset, err := strconv.Atoi(q.Get("offset"))
	if q.Get("offset") == "" {
		offset, err = 0, nil
	}
	if err != nil || offset < 0 {
		writeJSONError(w, http.StatusBadRequest, "offset: want a number of records, 0 or more")
		return 0, 0, false
	}
	limit = s.cfg.pageRecords
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			writeJSONError(w, http.StatusBadRequest, "limit: want a number of records, 1 or more")
			return 0, 0, false
		}
		limit = min(n, s.cfg.pageRecords)
	}
	return offset, limit, true
}

// headRecords reads records skip to skip+n of rd into run.
func headRecords(rd *artifact.Reader, run *viewer.Run, skip, n int) error {
	seen := 0
	for len(run.Records) < n {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %w", err)
		}
		if seen++; seen > skip {
			run.Records = append(run.Records, *rec)
		}
	}
	return nil
}

// serveRecords sends records offset to offset+limit of a run as a view
// model (viewer.WriteRunJSON), limit at most the configured page size:
// how a run too large to load whole is read, page by page. Reading a
// range passes over the records before it, in bounded memory.
func (s *Server) serveRecords(w http.ResponseWriter, r *http.Request, a *servedRun) {
	offset, limit, ok := s.recordsRange(w, r)
	if !ok {
		return
	}
	run, _, err := s.pagedRun(a, offset, limit)
	if err != nil {
		s.cfg.log.Warn("cannot show artifact", "path", a.rel, "err", err)
		writeJSONError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	var body bytes.Buffer
	if err := viewer.WriteRunJSON(&body, run); err != nil {
		s.cfg.log.Error("cannot render run data", "path", a.rel, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "cannot render the run")
		return
	}
	writeJSON(w, &body)
}
