package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// pagedRun reads records skip to skip+n of a run too large to load whole,
// with its header and trailer, redacted: memory bounded by n, whatever
// the run's size.
func (s *Server) pagedRun(a *artifact, skip, n int) (viewer.Run, int64, error) {
	run, end, err := headRun(a, skip, n)
	if err != nil {
		return run, 0, err
	}
	end = a.importedRun(&run, end)
	s.cfg.red.runs(&run)
	run.Live = s.liveness(a.fi.ModTime())
	return run, end, nil
}

// servePagedRun shows a run too large to load whole: the trailer's
// summary (its totals are the trailer's, as for a run whose producer
// dropped records) and the first records, with a note saying where the
// rest is read by range. Its live stream goes on from the file's end.
func (s *Server) servePagedRun(w http.ResponseWriter, a *artifact) {
	n := s.cfg.pageRecords
	run, end, err := s.pagedRun(a, 0, n)
	if err != nil {
		s.cfg.log.Warn("cannot show artifact", "path", a.rel, "err", err)
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	total := "an unknown number of"
	if run.Summary != nil {
		total = report.Thousands(run.Summary.Records)
	}
	run.Problems = append([]viewer.Problem{{Message: fmt.Sprintf(
		"This run is too large to load whole here (%s bytes, %s records): the page shows its first %s records and the totals of its trailer. "+
			"The rest is read by range: %s?offset=%d&limit=%d (or raise serve --cache-size).",
		report.Thousands(a.fi.Size()), total, report.Thousands(int64(len(run.Records))), routeRecords+escapeRel(a.rel), len(run.Records), n)}},
		run.Problems...)
	w.Header().Set("X-Agenttrace-Paged", strconv.Itoa(len(run.Records)))
	s.writeRunPage(w, a, run, end)
}

// serveRecords sends records offset to offset+limit of a run as a view
// model (viewer.WriteRunJSON), limit at most the configured page size:
// how a run too large to load whole is read, page by page. Reading a
// range passes over the records before it, in bounded memory.
func (s *Server) serveRecords(w http.ResponseWriter, r *http.Request, a *artifact) {
	q := r.URL.Query()
	offset, err := strconv.Atoi(q.Get("offset"))
	if q.Get("offset") == "" {
		offset, err = 0, nil
	}
	if err != nil || offset < 0 {
		writeJSONError(w, http.StatusBadRequest, "offset: want a number of records, 0 or more")
		return
	}
	limit := s.cfg.pageRecords
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			writeJSONError(w, http.StatusBadRequest, "limit: want a number of records, 1 or more")
			return
		}
		limit = min(n, s.cfg.pageRecords)
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
