package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/store"
	"github.com/agenttrace/agenttrace/viewer"
)

// errCrossOrigin is a conversion request that did not come from a page of
// this server.
var errCrossOrigin = errors.New("the request did not come from a page of this viewer")

// serveConvert converts a file dropped on a viewer page: the request body
// is the file, whatever agenttrace reads (an artifact, OTLP/JSON or
// protobuf, Jaeger JSON, the shapes of "convert --from"), and the answer
// is {"runs": [view model…]}, one run per trace (an artifact is one run),
// or {"error": "…"}. The page derives nothing: the Go converter and
// importers read the file, as "agenttrace html" would.
//
// Only a page of this server may ask: the request must carry an Origin
// naming this server (browsers send it with every POST, and a page of
// another site cannot forge it), which also defeats a cross-site form.
// The body is limited to the MaxUpload option.
func (s *Server) serveConvert(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		s.cfg.log.Warn("refused conversion", "origin", r.Header.Get("Origin"), "err", err)
		writeJSONError(w, http.StatusForbidden, "forbidden: "+err.Error())
		return
	}
	name := path.Base(strings.ReplaceAll(r.URL.Query().Get("name"), `\`, "/"))
	if name == "." || name == "/" {
		name = "dropped file"
	}
	body := http.MaxBytesReader(w, r.Body, s.cfg.maxUpload)
	runs, err := convertRuns(body, name)
	for i := range runs {
		s.cfg.red.runs(&runs[i])
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%s: larger than the %d bytes this viewer converts; use agenttrace html", name, tooBig.Limit))
		return
	case err != nil:
		writeJSONError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	var out bytes.Buffer
	out.WriteString(`{"runs":[`)
	for i := range runs {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := viewer.WriteRunJSON(&out, runs[i]); err != nil {
			s.cfg.log.Error("cannot render a converted run", "name", name, "err", err)
			writeJSONError(w, http.StatusInternalServerError, "cannot render the runs")
			return
		}
	}
	out.WriteString("]}")
	writeJSON(w, &out)
}

// sameOrigin checks that r comes from a page this server served: its
// Origin is http://HOST with the Host the request was sent to (which
// serveHTTP already checked is a loopback name).
func sameOrigin(r *http.Request) error {
	o := r.Header.Get("Origin")
	if o == "" {
		return fmt.Errorf("%w (no Origin)", errCrossOrigin)
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme != "http" || !strings.EqualFold(u.Host, r.Host) || u.Path != "" {
		return fmt.Errorf("%w (Origin %q)", errCrossOrigin, o)
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Errorf("%w (Sec-Fetch-Site %q)", errCrossOrigin, site)
	}
	return nil
}

// convertRuns reads a file of any shape agenttrace reads into runs: an
// artifact is one run, with its header, trailer and unreadable lines;
// anything else is converted by its importer and split into one run per
// trace, as "convert --split" would write it.
func convertRuns(r io.Reader, name string) ([]viewer.Run, error) {
	br := bufio.NewReaderSize(r, converter.DetectSize)
	head, err := br.Peek(converter.DetectSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	shape := importer.Detect(head)
	if shape == importer.Artifact {
		run := viewer.Run{Name: name}
		if err := readArtifact(br, name, &run); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return []viewer.Run{run}, nil
	}
	read, ok := importer.For(shape)
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, converter.ErrUnknownFormat)
	}
	var recs []artifact.Record
	st, err := read(br, name, func(rec *artifact.Record) error {
		recs = append(recs, *rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var problems []viewer.Problem
	for _, p := range st.Problems {
		var le *artifact.LineError
		if errors.As(p, &le) {
			problems = append(problems, viewer.Problem{Line: le.Line, Message: le.Err.Error()})
		} else {
			problems = append(problems, viewer.Problem{Message: p.Error()})
		}
	}
	groups := store.Split(recs, store.ByTrace, "")
	runs := make([]viewer.Run, len(groups))
	for i, g := range groups {
		artifact.SortRecords(g.Records)
		runs[i] = viewer.Run{Name: name, Records: g.Records}
		if len(groups) > 1 {
			runs[i].Name = fmt.Sprintf("%s · trace %.8s", name, g.Key.Trace)
		}
		if i == 0 {
			runs[i].Problems = problems
		}
	}
	if len(runs) == 0 {
		runs = append(runs, viewer.Run{Name: name, Problems: problems})
	}
	return runs, nil
}

// writeJSON sends body as a JSON answer.
func writeJSON(w http.ResponseWriter, body *bytes.Buffer) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(body.Len()))
	_, _ = body.WriteTo(w)
}

// writeJSONError sends {"error": msg} with status code.
func writeJSONError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
