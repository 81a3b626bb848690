package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/mcpserver"
	"github.com/agenttrace/agenttrace/viewer/server"
)

func newMCPCmd(e *env) *cobra.Command {
	var (
		httpAddr    string
		allowRemote bool
		cacheSize   int64
		maxRecords  int
	)
	cmd := &cobra.Command{
		Use:   "mcp [DIR]",
		Short: "Serve a directory of runs to coding agents over the Model Context Protocol",
		Long: `Mcp is a Model Context Protocol server: a coding agent (Claude Code,
Cursor, VS Code, any MCP client) reads and judges the runs in DIR (default
the current directory) and its subdirectories through its tools:

  list_runs     the runs, filtered, sorted and paged as serve's list
  run_summary   tokens per class, cost, budget, errors, agents, tools, models
  conversation  one model call's messages, or every call of a run, paged
  find_errors   the failed spans and unreadable lines of a run
  diff_runs     two runs' tool calls compared (as agenttrace diff)
  audit_run     fidelity findings (as agenttrace audit)
  explain_run   what was and was not understood (as agenttrace explain)

By default it speaks on standard input and output (the stdio transport:
the client starts "agenttrace mcp DIR"). With --http ADDR it serves the
streamable HTTP transport at http://ADDR/mcp instead, on loopback only
(--allow-remote for another address: the runs are then readable by anyone
who can reach it, unauthenticated); it answers only requests addressed to
a loopback name (or to the host --http names on purpose) and refuses
cross-origin requests from web pages.

Every answer is at most 64 KiB of JSON, paged: an answer that was cut
says so and names the offset or page that gets the rest. Runs are named
by their path relative to DIR; "..", absolute paths and symbolic links
leading out of DIR are refused. What the tools show is redacted as serve
shows it (--redact-key, --no-redact). docs/mcp.md shows how to add the
server to a coding agent.

Exit status: 0 when the client disconnects or on a signal, 2 on a usage
error or when DIR cannot be read or ADDR listened on.`,
		Example: `  claude mcp add agenttrace -- agenttrace mcp ./runs
  agenttrace mcp runs --http 127.0.0.1:8765`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("mcp takes one directory, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			var hosts []string
			if httpAddr != "" {
				err := server.CheckAddr(httpAddr)
				switch {
				case errors.Is(err, server.ErrNotLoopback) && allowRemote:
					host, _, _ := net.SplitHostPort(httpAddr)
					hosts = []string{host}
				case errors.Is(err, server.ErrNotLoopback):
					return usageErrorf("--http: %w; add --allow-remote to serve other machines", err)
				case err != nil:
					return usageErrorf("--http: %w", err)
				}
			} else if allowRemote {
				return usageErrorf("--allow-remote needs --http")
			}
			if cacheSize <= 0 || maxRecords <= 0 {
				return usageErrorf("--cache-size and --max-run-records must be more than 0")
			}
			bounds := []server.Option{server.WithCacheSize(cacheSize), server.WithMaxRunRecords(maxRecords)}
			return e.mcp(cmd.Context(), dir, httpAddr, hosts, bounds)
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve the streamable HTTP transport at `ADDR` (loopback; port 0 picks a free one) instead of stdio")
	cmd.Flags().BoolVar(&allowRemote, "allow-remote", false, "let --http name a non-loopback address (runs readable by other machines, unauthenticated)")
	cmd.Flags().Int64Var(&cacheSize, "cache-size", server.DefaultCacheSize, "bytes of memory (estimated) for the runs kept loaded; a larger run is refused")
	cmd.Flags().IntVar(&maxRecords, "max-run-records", server.DefaultMaxRunRecords, "most records a run is read with; a larger run is refused")
	e.redactFlags(cmd)
	return cmd
}

// mcp serves dir over stdio, or over HTTP at httpAddr, until ctx is done,
// the process gets SIGINT or SIGTERM, or (stdio) the client disconnects.
func (e *env) mcp(ctx context.Context, dir, httpAddr string, hosts []string, bounds []server.Option) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := &lockedWriter{w: e.stderr}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := mcpserver.New(dir, mcpserver.WithViewerOptions(e.redact.serverOptions(bounds...)...),
		mcpserver.WithVersion(strings.TrimPrefix(artifact.Producer, "agenttrace/")), mcpserver.WithLogger(log))
	if err != nil {
		return ioError(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
		defer cancel()
		if err := s.Close(cctx); err != nil {
			fmt.Fprintf(stderr, "agenttrace: %v\n", err)
		}
	}()
	if httpAddr == "" {
		if err := s.ServeIO(ctx, e.stdin, e.stdout); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return ioError(fmt.Errorf("--http: listen: %w", err))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(hosts...))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(e.stdout, "serving MCP for %s at http://%s/mcp\n", dir, ln.Addr())
	select {
	case <-ctx.Done():
	case err := <-served:
		return ioError(fmt.Errorf("--http: %w", err))
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	defer cancel()
	// Open streams of the SDK's sessions do not end on their own.
	err = hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	<-served
	if err != nil {
		return ioError(fmt.Errorf("--http: shutdown: %w", err))
	}
	return nil
}
