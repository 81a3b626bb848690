package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/viewer"
)

// A Server made by [NewBucket] serves the runs of a bucket prefix: its
// list is read from the bucket's run catalog only (no listing of the
// objects, which costs a request per thousand keys), each request
// re-reading the catalog as a stream; a run page is fetched on demand,
// its generations merged, and kept in the run cache under its key and
// the version the bucket names for it. Objects do not grow in a bucket
// (a late span is a next generation), so a run page has no live tail.

// Bucket is what a Server in bucket mode reads runs from: a bucket prefix
// (package bucket's Bucket, with a version of each run).
type Bucket interface {
	// String names the bucket prefix for people (no credentials).
	String() string
	// OpenRun returns the run of key (relative to the prefix) as one
	// artifact stream, its generations merged; a missing run wraps
	// fs.ErrNotExist.
	OpenRun(ctx context.Context, key string) (io.ReadCloser, error)
	// Version names the run of key as it is stored now (its objects'
	// generations, ETags or sizes and times): a cached page is shown
	// until it changes. A missing run wraps fs.ErrNotExist.
	Version(ctx context.Context, key string) (string, error)
}

// NewBucket returns a Server of the runs of b, listed from the run
// catalog in dest (catalog files under "catalog/", as "agenttrace catalog
// build URL" writes them). A bucket without a catalog is served too: its
// list says how to build one.
func NewBucket(b Bucket, dest catalog.Dest, opts ...Option) (*Server, error) {
	if b == nil || dest == nil {
		return nil, errors.New("server: NewBucket: nil bucket or catalog")
	}
	s := &Server{cfg: newConfig(opts), dir: b.String(), bkt: b, done: make(chan struct{})}
	s.cache = newRunCache(s.cfg.cacheSize)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.cat = newCatalogList(s, dest)
	s.cat.active.Store(true)
	s.cat.warm()
	s.handler = http.HandlerFunc(s.serveHTTP)
	return s, nil
}

// bucketList is the list page q asks for, from the bucket's catalog read
// now: a reload is the refresh. No catalog is no error: the page says so.
func (s *Server) bucketList(ctx context.Context, q listQuery, now time.Time) (listed, error) {
	rows, matched, total, choices, err := s.cat.page(ctx, q, now)
	snap := &snapshot{version: s.cat.idx.Version()} // of the listing the page read
	if err == nil && s.cat.idx.Files() == 0 {
		return listed{snap: snap, noCatalog: true}, nil
	}
	return listed{snap: snap, rows: rows, matched: matched, total: total, choices: choices}, err
}

// serveBucket answers the requests of a Server in bucket mode: the list,
// a run's page, view model, records by range (a run too large to load
// whole) and download, the version the list polls, and files dropped to
// be converted. Nothing else: there is no live tail.
func (s *Server) serveBucket(w http.ResponseWriter, r *http.Request, path string) {
	route := func(prefix string) (string, bool) {
		return strings.CutPrefix(path, prefix)
	}
	get := func() bool { return allowMethods(w, r, http.MethodGet, http.MethodHead) }
	switch {
	case path == "/":
		if get() {
			s.serveList(w, r)
		}
	case path == routeVersion:
		if get() {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte(s.cat.version(r.Context())))
		}
	case path == routeConvert:
		if allowMethods(w, r, http.MethodPost) {
			s.serveConvert(w, r)
		}
	case path == routeCompare:
		if get() {
			s.serveCompare(w, r)
		}
	default:
		for _, rt := range []struct {
			prefix string
			serve  func(http.ResponseWriter, *http.Request, string)
		}{{routeRun, s.serveBucketRun}, {routeData, s.serveBucketData}, {routeRaw, s.serveBucketRaw}, {routeRecords, s.serveBucketRecords}} {
			if esc, ok := route(rt.prefix); ok {
				if !get() {
					return
				}
				key, err := bucketKey(esc)
				if err != nil {
					http.Error(w, "bad request: not a run's key", http.StatusBadRequest)
					return
				}
				rt.serve(w, r, key)
				return
			}
		}
		if strings.HasPrefix(path, routeEvents) {
			http.Error(w, "no live tail for a bucket: its runs are read as uploaded", http.StatusNotFound)
			return
		}
		http.NotFound(w, r)
	}
}

// bucketKey is the run key of an escaped request path: a path cleanRel
// accepts, or one of a compressed run (.jsonl.zst).
func bucketKey(escaped string) (string, error) {
	plain, zst := strings.CutSuffix(escaped, ".zst")
	key, err := cleanRel(plain)
	if err != nil {
		return "", err
	}
	if zst {
		key += ".zst"
	}
	return key, nil
}

// bucketRun returns the run of key, from the cache when the bucket still
// holds the version cached, or fetched, merged, read and redacted now.
func (s *Server) bucketRun(ctx context.Context, key string) (runKey, *loadedRun, error) {
	ver, err := s.bkt.Version(ctx, key)
	if err != nil {
		return runKey{}, nil, err
	}
	k := runKey{rel: key, ver: ver}
	if v, ok := s.cache.get(k); ok {
		return k, v, nil
	}
	v, err := s.bucketLoad(ctx, key)
	if errors.Is(err, errRunTooLarge) { // shown paged, as a file of that many records is
		v, err = s.bucketPaged(ctx, key, 0, s.cfg.pageRecords)
	}
	if err != nil {
		return k, nil, err
	}
	s.cache.add(k, v)
	return k, v, nil
}

// bucketLoad reads the run of key whole, redacted; errRunTooLarge when it
// holds more than --max-run-records records.
func (s *Server) bucketLoad(ctx context.Context, key string) (*loadedRun, error) {
	rc, err := s.bkt.OpenRun(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// A run too large for the cache is shown paged, as a file is: its
	// size is known only as it is read.
	cr := &countingReader{r: rc, fits: s.cache.fits}
	run := viewer.Run{Name: key}
	if err := readArtifactLimit(cr, key, &run, s.cfg.maxRecords); err != nil {
		if errors.Is(err, errRunTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("read %w", err)
	}
	s.cfg.red.runs(&run)
	return &loadedRun{run: run, offset: cr.n, cost: cr.n * runCostFactor}, nil
}

// bucketPaged reads records skip to skip+n of the run of key, its header
// and its last trailer, redacted: in memory bounded by n, the rest of the stream read past (generations
// merged, a bucket's run has no offset to seek to).
func (s *Server) bucketPaged(ctx context.Context, key string, skip, n int) (*loadedRun, error) {
	rc, err := s.bkt.OpenRun(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	cr := &countingReader{r: rc}
	run := viewer.Run{Name: key}
	rd := artifact.NewReader(cr, artifact.WithSource(key))
	if err := headRecords(rd, &run, skip, n); err != nil {
		return nil, err
	}
	for { // to the end: the trailer is the stream's last line
		if _, err := rd.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read %w", err)
		}
	}
	run.Meta, run.Summary = rd.Meta(), rd.Summary()
	s.cfg.red.runs(&run)
	// Its cost: the page's share of the stream's bytes.
	total := int64(skip + len(run.Records))
	if run.Summary != nil {
		total = max(total, run.Summary.Records)
	}
	cost := cr.n / max(total, 1) * int64(len(run.Records)) * runCostFactor
	return &loadedRun{run: run, offset: cr.n, cost: cost, paged: max(len(run.Records), 1)}, nil
}

// countingReader counts the bytes read through it: a run's size, for the
// cache's estimate, when the stream is merged from generations. With
// fits, it fails with errRunTooLarge once fits says no to the count.
type countingReader struct {
	r    io.Reader
	n    int64
	fits func(size int64) bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.fits != nil && !c.fits(c.n) {
		return n, errRunTooLarge
	}
	return n, err
}

// bucketFail answers a run that cannot be shown: not found, or why.
func (s *Server) bucketFail(w http.ResponseWriter, r *http.Request, key string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		http.NotFound(w, r)
		return
	}
	s.cfg.log.Warn("cannot show run", "key", key, "err", err)
	http.Error(w, err.Error(), http.StatusUnprocessableEntity)
}

// serveBucketRun sends the viewer page of the run of key, rendered once
// per version of the run.
func (s *Server) serveBucketRun(w http.ResponseWriter, r *http.Request, key string) {
	k, lr, err := s.bucketRun(r.Context(), key)
	if err != nil {
		s.bucketFail(w, r, key, err)
		return
	}
	page, err := s.cache.rendered(k, lr, &lr.page, func() ([]byte, error) {
		var b bytes.Buffer
		title := key + " · " + s.dir + " (from the bucket: no live tail)"
		run := lr.run
		if lr.paged > 0 { // the page says where the rest is, as servePagedRun's
			pagedNote(&run, lr.offset, key, s.cfg.pageRecords)
		}
		err := viewer.Write(&b, []viewer.Run{run}, viewer.WithTitle(title), viewer.WithConvert(routeConvert))
		return b.Bytes(), err
	})
	if err != nil {
		s.cfg.log.Error("cannot render viewer page", "key", key, "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", viewerCSP)
	if lr.paged > 0 {
		h.Set("X-Agenttrace-Paged", strconv.Itoa(len(lr.run.Records)))
	}
	_, _ = w.Write(page)
}

// serveBucketRecords sends records offset to offset+limit of the run of
// key as a view model, as serveRecords does for a file: how a run too
// large to load whole is read, page by page.
func (s *Server) serveBucketRecords(w http.ResponseWriter, r *http.Request, key string) {
	offset, limit, ok := s.recordsRange(w, r)
	if !ok {
		return
	}
	lr, err := s.bucketPaged(r.Context(), key, offset, limit)
	if errors.Is(err, fs.ErrNotExist) {
		writeJSONError(w, http.StatusNotFound, "no such run")
		return
	}
	var body []byte
	if err == nil {
		body, err = runJSON(lr.run)
	}
	if err != nil {
		s.cfg.log.Warn("cannot show run", "key", key, "err", err)
		writeJSONError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	writeJSON(w, bytes.NewBuffer(body))
}

// serveBucketData sends the view model of the run of key.
func (s *Server) serveBucketData(w http.ResponseWriter, r *http.Request, key string) {
	k, lr, err := s.bucketRun(r.Context(), key)
	if err != nil {
		s.bucketFail(w, r, key, err)
		return
	}
	body, err := s.cache.rendered(k, lr, &lr.data, func() ([]byte, error) { return runJSON(lr.run) })
	if err != nil {
		writeJSONError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	writeJSON(w, bytes.NewBuffer(body))
}

// serveBucketRaw sends the run of key, generations merged, as a download,
// redacted as its page is.
func (s *Server) serveBucketRaw(w http.ResponseWriter, r *http.Request, key string) {
	rc, err := s.bkt.OpenRun(r.Context(), key)
	if err != nil {
		s.bucketFail(w, r, key, err)
		return
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		s.bucketFail(w, r, key, fmt.Errorf("read %s: %w", key, err))
		return
	}
	if s.cfg.red != nil {
		data = redactLines(s.cfg.red, data)
	}
	h := w.Header()
	h.Set("Content-Type", "application/jsonl; charset=utf-8")
	h.Set("Content-Disposition", attachment(strings.TrimSuffix(key, ".zst")))
	_, _ = w.Write(data)
}
