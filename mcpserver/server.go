// Package mcpserver is agenttrace's Model Context Protocol server: the
// runs of one directory offered to a coding agent as tools (list_runs,
// run_summary, conversation, find_errors, diff_runs, audit_run,
// explain_run), over stdio or streamable HTTP, built on the official Go
// SDK (github.com/modelcontextprotocol/go-sdk).
//
// It computes nothing of its own: the list, its filters and the loading of
// a run are the viewer server's (package viewer/server: one index, paths
// confined to the directory, redaction), the numbers are package report's,
// the conversation converter.ModelCalls', diff and audit package judge's,
// explain internal/explain's. What it adds is the bound: every answer's
// JSON is at most [MaxAnswerBytes] (or [WithMaxAnswerBytes]), paged, and
// says when it was cut and how to get the rest.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttrace/agenttrace/internal/hostcheck"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// MaxAnswerBytes bounds the JSON of every tool's answer (its structured
// content; the protocol sends the same JSON again as the answer's text).
const MaxAnswerBytes = 64 << 10

// sessionTimeout ends an HTTP session idle that long: a client that went
// away without ending its session does not hold it forever.
const sessionTimeout = 30 * time.Minute

// minAnswerBytes is the least bound [WithMaxAnswerBytes] takes: room for
// an answer's envelope and one cut item.
const minAnswerBytes = 4 << 10

// Server serves one directory's runs as MCP tools. Create one with [New];
// it is safe for concurrent use (the HTTP transport runs many sessions).
type Server struct {
	view *server.Server
	mcp  *mcp.Server
	max  int
	log  *slog.Logger
}

// Option configures a [Server].
type Option func(*config)

type config struct {
	viewer  []server.Option
	max     int
	version string
	log     *slog.Logger
}

// WithViewerOptions passes options to the viewer server the runs are read
// through: its redaction (server.WithRedaction), cache and record bounds.
func WithViewerOptions(opts ...server.Option) Option {
	return func(c *config) { c.viewer = append(c.viewer, opts...) }
}

// WithMaxAnswerBytes sets the bound of every answer's JSON (default
// [MaxAnswerBytes]); values under 4 KiB are raised to 4 KiB.
func WithMaxAnswerBytes(n int) Option {
	return func(c *config) { c.max = max(n, minAnswerBytes) }
}

// WithVersion sets the version the server reports to clients.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithLogger sets where the server logs (default: nowhere).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// New returns a Server of the artifacts (*.jsonl) in dir and its
// subdirectories. Close it with [Server.Close].
func New(dir string, opts ...Option) (*Server, error) {
	c := config{max: MaxAnswerBytes, version: "dev", log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	view, err := server.New(dir, append(c.viewer, server.WithLogger(c.log))...)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	s := &Server{view: view, max: c.max, log: c.log}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "agenttrace", Version: c.version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       c.log,
	})
	s.addTools()
	return s, nil
}

// instructions tell a client's model how the tools fit together.
const instructions = `agenttrace serves recorded agent runs (portable JSONL artifacts of OpenTelemetry GenAI traces). ` +
	`Start with list_runs (filters, sort, pages); each row's "run" is the name every other tool takes. ` +
	`run_summary gives tokens, cost, budget, errors, agents, tools and models; conversation pages through the model calls; ` +
	`find_errors lists failed spans; diff_runs compares two runs; audit_run finds fidelity problems; explain_run says what was not understood. ` +
	`Answers are bounded in size: when one is cut, it says so and gives the offset or page to ask for next.`

// MCP returns the SDK server, to connect to a transport of the caller's
// (an in-memory one in tests).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ServeIO serves one client over r and w (standard input and output:
// newline-delimited JSON-RPC, the stdio transport) until ctx is done or
// the client closes r.
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
	if err != nil && ctx.Err() != nil {
		return nil // stopped on purpose
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// HTTPHandler returns the streamable HTTP transport of the server, for
// an http.Server on a loopback address. Like the viewer, it answers only
// requests whose Host header is a loopback name or one of hosts (the host
// a listener was set to on purpose), against DNS rebinding, and refuses
// requests from web pages of another origin (403).
func (s *Server) HTTPHandler(hosts ...string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: sessionTimeout})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostcheck.Allowed(r.Host, hosts...) {
			http.Error(w, "forbidden: the Host header names neither a loopback host nor the address served", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
			http.Error(w, "forbidden: cross-origin request", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a browser's Origin header names the server
// itself (any scheme; the host and port of the request).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && hostcheck.Host(u.Host) == hostcheck.Host(host) && u.Port() == portOf(host)
}

func portOf(hostport string) string {
	u := url.URL{Host: hostport}
	return u.Port()
}

// Close ends the sessions still open (an HTTP client that never said
// goodbye), stops reading runs and waits for the folder walk under way,
// up to ctx's end.
func (s *Server) Close(ctx context.Context) error {
	var sessions []*mcp.ServerSession
	for ss := range s.mcp.Sessions() {
		sessions = append(sessions, ss)
	}
	for _, ss := range sessions {
		_ = ss.Close() // a session already ended says so; nothing to do
	}
	if err := s.view.Shutdown(ctx); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}
