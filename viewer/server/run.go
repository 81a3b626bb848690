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

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/viewer"
)

// serveRun renders the viewer page of an artifact as it is now, with a
// live source that goes on from the first byte the page did not show.
func (s *Server) serveRun(w http.ResponseWriter, r *http.Request, a *artifact) {
	run, offset, err := loadRun(a)
	if err != nil {
		s.cfg.log.Warn("cannot show artifact", "path", a.rel, "err", err)
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	live := eventsURL(a.rel, offset)
	// Rendered to memory first: a failure halfway must be a 500, not half
	// a page.
	var page bytes.Buffer
	if err := viewer.Write(&page, []viewer.Run{run}, viewer.WithLive(live)); err != nil {
		s.cfg.log.Error("cannot render viewer page", "path", a.rel, "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", viewerCSP)
	// For clients other than the page (scripts, curl): where the run goes on.
	h.Set("Link", "<"+live+`>; rel="alternate"; type="text/event-stream"`)
	h.Set("Content-Length", strconv.Itoa(page.Len()))
	if _, err := page.WriteTo(w); err != nil {
		s.cfg.log.Debug("viewer page not delivered", "path", a.rel, "err", err)
	}
}

// eventsURL is the live source of rel from byte offset on.
func eventsURL(rel string, offset int64) string {
	return routeEvents + escapeRel(rel) + "?offset=" + strconv.FormatInt(offset, 10)
}

// loadRun reads the complete lines of a (up to its last newline) and
// returns them as a run, with the number of bytes they take: the offset a
// live stream starts from, so that a line torn now is neither shown twice
// nor lost.
func loadRun(a *artifact) (viewer.Run, int64, error) {
	run := viewer.Run{Name: a.rel}
	// Read to the end as it is now, not as it was at opening: a growing
	// file may have gained lines since.
	data, err := io.ReadAll(a.f)
	if err != nil {
		return run, 0, fmt.Errorf("read %s: %w", a.rel, err)
	}
	offset := int64(bytes.LastIndexByte(data, '\n') + 1)
	data = data[:offset]
	if offset == 0 {
		return run, 0, nil // no line yet: the stream brings the header
	}
	rd := converter.NewReader(bytes.NewReader(data), converter.WithSource(a.rel))
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return run, 0, fmt.Errorf("read %w", err)
		}
		run.Records = append(run.Records, *rec)
	}
	run.Meta = rd.Meta()
	return run, offset, nil
}

// serveRaw sends the artifact's bytes, as a download.
func (s *Server) serveRaw(w http.ResponseWriter, r *http.Request, a *artifact) {
	h := w.Header()
	h.Set("Content-Type", "application/jsonl; charset=utf-8")
	h.Set("Content-Disposition", attachment(a.rel))
	http.ServeContent(w, r, "", a.fi.ModTime(), a.f)
}

// attachment is the Content-Disposition of a download of rel.
func attachment(rel string) string {
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(rel)}); v != "" {
		return v
	}
	return "attachment"
}
