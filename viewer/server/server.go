package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/internal/hostcheck"
)

// ErrNotLoopback is returned by [CheckAddr] and [Server.Serve] for an
// address other machines could reach. The viewer shows whole
// conversations and has no authentication: it only ever listens on the
// loopback interface.
var ErrNotLoopback = errors.New("not a loopback address")

// A Server serves the artifacts of one directory: a list of runs, the
// viewer page of each, and a live stream of the lines a growing artifact
// gains. Create one with [New]; it is safe for concurrent use.
type Server struct {
	cfg     config
	dir     string   // absolute, for the list page
	root    *os.Root // every file is opened through it, so none outside dir is
	handler http.Handler
	list    lister
	ver     versionCache // the folder's index, for the list and /version (version.go)
	cache   *runCache    // runs loaded whole, bounded by bytes (runcache.go)
	imports *importCache // files of other shapes, converted (inputs.go)
	cat     *catalogList // the list from the folder's run catalog (catalogmode.go)
	bkt     Bucket       // non-nil: the runs of a bucket (NewBucket, bucketmode.go); root is nil
	// ctx ends at Shutdown: a walk or a catalog build under way stops.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	done    chan struct{} // closed by Shutdown: ends live streams
	servers []*http.Server
	active  int           // requests being handled
	idle    chan struct{} // closed when active drops to 0 after Shutdown
}

// New returns a Server of the artifacts (files named *.jsonl) in dir and
// its subdirectories. dir must be a directory; it is opened once, and every
// file is opened relative to it, so a request can never reach a file
// outside it, through ".." or a symbolic link.
func New(dir string, opts ...Option) (*Server, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("server: %s: not a directory", dir)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{cfg: newConfig(opts), dir: abs, root: root, done: make(chan struct{})}
	s.cache = newRunCache(s.cfg.cacheSize)
	s.imports = newImportCache(s.cfg.cacheSize / runCostFactor)
	s.imports.idle = s.cfg.idle
	s.list = lister{root: root, log: s.cfg.log, red: s.cfg.red, cache: map[string]*cacheEntry{}, limit: s.cfg.indexLimit, imports: s.imports}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.cat = newCatalogList(s, catalog.Dir(abs))
	if ok, since := hasCatalog(s.ctx, s.cat.dest); ok {
		s.cat.active.Store(true)
		s.cat.since = since
		s.cat.warm()
	}
	s.handler = http.HandlerFunc(s.serveHTTP)
	return s, nil
}

// Handler returns the Server's HTTP handler, for a caller that runs its
// own http.Server (or httptest.Server). It refuses requests whose Host is
// not a loopback name; [Server.Shutdown] ends its live streams.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve serves HTTP on ln until [Server.Shutdown], and then returns
// [http.ErrServerClosed]. ln must listen on a loopback address (or be a
// Unix socket); any other is refused with [ErrNotLoopback] and closed.
func (s *Server) Serve(ln net.Listener) error {
	if err := checkListener(ln); err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{
		Handler: s.handler,
		// No WriteTimeout: a live stream writes for as long as the page
		// stays open. Headers must come promptly, though.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.cfg.log.Handler(), slog.LevelWarn),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.servers = append(s.servers, hs)
	s.mu.Unlock()
	return hs.Serve(ln)
}

// Shutdown stops the Server: Serve returns, open live streams end (their
// pages keep what they have), and requests in flight are waited for until
// ctx is done, whose error Shutdown then returns. Later requests get 503.
// Shutdown may be called more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.cancel()
		close(s.done)
		s.idle = make(chan struct{})
		if s.active == 0 {
			close(s.idle)
		}
	}
	servers, idle := s.servers, s.idle
	s.mu.Unlock()

	var errs []error
	for _, hs := range servers {
		if err := hs.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("server: shutdown: %w", err))
		}
	}
	// A Handler mounted on someone else's server has requests that
	// hs.Shutdown does not know of.
	select {
	case <-idle:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("server: shutdown: %w", ctx.Err()))
	}
	if s.root == nil {
		return errors.Join(errs...)
	}
	if err := s.root.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		errs = append(errs, fmt.Errorf("server: close %s: %w", s.dir, err))
	}
	return errors.Join(errs...)
}

// enter counts a request in; false once the Server is shut down.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.active++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active == 0 && s.closed {
		close(s.idle)
	}
}

// CheckAddr checks that addr ("host:port") names a loopback address:
// "localhost", an IP in 127.0.0.0/8, or ::1. Any other host, an empty one
// (every interface) included, is refused with [ErrNotLoopback]: names are
// not looked up, since what they resolve to may change.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (port != "0" && n == 0) {
		return fmt.Errorf("address %q: port %q: want a number from 0 to 65535", addr, port)
	}
	if !hostcheck.Loopback(host) {
		if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
			return fmt.Errorf("address %q listens on every interface: %w", addr, ErrNotLoopback)
		}
		return fmt.Errorf("address %q: %w (want localhost, 127.0.0.1 or [::1])", addr, ErrNotLoopback)
	}
	return nil
}

// checkListener refuses a TCP listener that is not on loopback.
func checkListener(ln net.Listener) error {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return nil // a Unix socket is local by nature
	}
	if !a.IP.IsLoopback() {
		return fmt.Errorf("server: listener on %s: %w", a, ErrNotLoopback)
	}
	return nil
}

// hostAllowed checks a request's Host header with the rule the OTLP
// receiver applies too (package hostcheck): a page on another site whose
// name its owner pointed at 127.0.0.1 (DNS rebinding) would otherwise be
// same-origin with the viewer and could read every run; its requests
// carry that site's name, so they are refused.
func hostAllowed(hostport string) bool { return hostcheck.Allowed(hostport) }
