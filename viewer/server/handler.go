package server

import (
	"errors"
	"io/fs"
	"net/http"
	"strings"
)

// Routes. Each takes the artifact's path relative to the directory,
// slash-separated and percent-encoded per segment.
const (
	routeRun    = "/run/"
	routeEvents = "/events/"
	routeRaw    = "/raw/"
	routeData   = "/data/"
	// routeRecords sends a range of a run's records as a view model
	// (?offset=&limit=): how a run too large to load whole is read.
	routeRecords = "/records/"
	// routeConvert takes a file dropped on a viewer page (POST) and
	// answers with its runs' view models.
	routeConvert = "/convert"
	// routeVersion answers a digest of the folder's artifacts, which the
	// list page polls to follow the folder.
	routeVersion = "/version"
	// routeCompare shows two runs side by side (?c=<path>&c=<path>).
	routeCompare = "/compare"
)

// viewerCSP is the header policy of the viewer page. The page brings its
// own strict policy in a meta element, with the hashes of its inline
// script and style; a header policy must not contradict it, so this one
// only adds what a meta element cannot say (frame-ancestors) and what
// holds for any page (no base, no forms).
const viewerCSP = "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	// Another site may not load these responses as subresources (a
	// <script src> pointing at /raw/..., say).
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Content-Security-Policy", pageCSP)

	if !hostAllowed(r.Host) {
		s.cfg.log.Warn("refused request: Host is not a loopback name", "host", r.Host, "path", r.URL.EscapedPath())
		http.Error(w, "forbidden: this viewer answers only to localhost, 127.0.0.1 or [::1]", http.StatusForbidden)
		return
	}
	if !s.enter() {
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.leave()

	path := r.URL.EscapedPath()
	if s.bkt != nil {
		s.serveBucket(w, r, path)
		return
	}
	switch {
	case path == "/":
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.serveList(w, r)
	case strings.HasPrefix(path, routeRun):
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.withArtifact(w, path[len(routeRun):], s.serveRun, r)
	case strings.HasPrefix(path, routeEvents):
		if !allowMethods(w, r, http.MethodGet) {
			return
		}
		s.withLiveFile(w, path[len(routeEvents):], s.serveEvents, r) // the file itself, whatever its shape: tailed
	case strings.HasPrefix(path, routeData):
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.withArtifact(w, path[len(routeData):], s.serveData, r)
	case strings.HasPrefix(path, routeRecords):
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.withArtifact(w, path[len(routeRecords):], s.serveRecords, r)
	case path == routeVersion:
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.serveVersion(w, r)
	case path == routeCompare:
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.serveCompare(w, r)
	case path == routeConvert:
		if !allowMethods(w, r, http.MethodPost) {
			return
		}
		s.serveConvert(w, r)
	case strings.HasPrefix(path, routeRaw):
		if !allowMethods(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		s.withArtifact(w, path[len(routeRaw):], s.serveRaw, r)
	default:
		http.NotFound(w, r)
	}
}

// withArtifact resolves the escaped relative path of a request and, when
// it names an artifact inside the directory, calls serve with it opened.
// A path that could name anything else is refused before any file is
// touched; one that names no artifact is not found.
//
// A file of another shape agenttrace reads is served as the artifact it
// converts to (inputs.go); one that cannot be converted is answered 422
// with the reason.
func (s *Server) withArtifact(w http.ResponseWriter, escaped string, serve func(http.ResponseWriter, *http.Request, *servedRun), r *http.Request) {
	s.withFile(w, escaped, func(w http.ResponseWriter, r *http.Request, a *servedRun) {
		err := s.imports.swap(a)
		switch {
		case errors.Is(err, errNotArtifact):
			http.NotFound(w, r)
			return
		case err != nil:
			s.cfg.log.Warn("cannot convert", "path", a.rel, "err", err)
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		serve(w, r, a)
	}, r)
}

// withLiveFile is withFile for a live stream: a file of another name than
// *.jsonl only when its content is a shape agenttrace reads.
func (s *Server) withLiveFile(w http.ResponseWriter, escaped string, serve func(http.ResponseWriter, *http.Request, *servedRun), r *http.Request) {
	s.withFile(w, escaped, func(w http.ResponseWriter, r *http.Request, a *servedRun) {
		if !followable(a) {
			http.NotFound(w, r)
			return
		}
		serve(w, r, a)
	}, r)
}

// withFile is withArtifact with the file as it is, never converted.
func (s *Server) withFile(w http.ResponseWriter, escaped string, serve func(http.ResponseWriter, *http.Request, *servedRun), r *http.Request) {
	rel, err := cleanRel(escaped)
	if err != nil {
		s.cfg.log.Warn("refused path", "path", r.URL.EscapedPath(), "err", err)
		http.Error(w, "bad request: not an artifact path", http.StatusBadRequest)
		return
	}
	a, err := openArtifact(s.root, rel)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotArtifact) {
			s.cfg.log.Warn("cannot open artifact", "path", rel, "err", err)
		}
		http.NotFound(w, r)
		return
	}
	defer a.f.Close()
	serve(w, r, a)
}

// allowMethods answers 405 to a method not in allowed.
func allowMethods(w http.ResponseWriter, r *http.Request, allowed ...string) bool {
	for _, m := range allowed {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}
