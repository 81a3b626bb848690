package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/receiver"
	"github.com/agenttrace/agenttrace/store"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// serveShutdownTimeout bounds how long serve waits for requests in flight
// after a signal; live streams end at once.
const serveShutdownTimeout = 5 * time.Second

// serveLong is serve's help text.
const serveLong = `Serve runs a viewer for the artifacts (*.jsonl) in DIR and its
subdirectories, on this machine only. The first page lists the runs, newest
first, with their start, service, records, tokens, errors, duration and
budget; each links to the viewer page of the run. A run still being
written grows on its page as lines are appended to its file, so a demo or
an agent recording into DIR can be watched live; a run that has not
ended and whose file gains nothing for --idle (5 minutes) shows as
"stopped without an end", with the time of its last record: its writer
crashed or was killed. A run whose trailer
accounts for records the file does not hold shows the trailer's totals and
budget and how many records were dropped; a partly broken file names its
bad lines.

A file dropped on a run's page (an artifact, OTLP/JSON or protobuf, Jaeger
JSON, any shape "convert --from" reads) is converted by this server, with
the same Go code as "agenttrace html", and shown as more runs, one per
trace; only the server's own pages may send one, up to 64 MiB.

With --otlp, serve is also a local OTLP endpoint: OTLP/HTTP on
127.0.0.1:4318 (/v1/traces, protobuf or JSON, gzip) and OTLP/gRPC on
127.0.0.1:4317 (--otlp-http and --otlp-grpc set either address, port 0
picks a free one, "off" turns one off). Point any OpenTelemetry SDK's OTLP
exporter at it: each trace is written into DIR as an artifact, through the
artifact store, and shown live; a parent that has not ended yet shows as
running. Log records (/v1/logs, gRPC) go into their trace's artifact,
redacted as spans are. Bad requests get OTLP's answers (400, 413, 415;
gRPC codes). Only loopback addresses, unless
--otlp-allow-remote. OTLP/HTTP answers only requests addressed to a
loopback name (or to the host --otlp-http names on purpose) and refuses
cross-origin requests from web pages (403) unless --cors ORIGIN allows
them. At most --otlp-max-inflight request bytes are held at once; more
get 429 (gRPC RESOURCE_EXHAUSTED) with a retry delay, which exporters
honour.

The list of runs names each run by its root span's or agent's name and
its first prompt (the path one click away), sorts and filters (service,
agent, model, status, time, tokens, cost, duration), searches across runs
(names, tools, models, message text), follows the folder, and compares two
runs side by side (/compare, with judge's diff). It is paged (100 rows,
?page=N&per=M) and answers from an index of the folder that one background
walk keeps up to date, reading only new or changed files. A folder of more
than --index-limit runs (10,000), or one holding a run catalog ("agenttrace
catalog build"), is listed from its catalog instead: built once when
absent (DIR/catalog/), given rows for the files that appear or change, and
read as a stream at each request, so the first page of 100,000 runs comes
in well under a second and memory does not grow with the runs; its search
looks in names, first prompt, service, models, tools and path, and a run
being written shows as open. Runs opened are kept loaded up to --cache-size bytes
(estimated), so a second visit is served from memory; a run too large for
the cache, or of more than --max-run-records records, is shown paged: its
trailer's totals and first records, the rest from /records/PATH?offset=&limit=.

What serve shows is redacted, as convert and html write it: API keys,
tokens, private keys and passwords become [REDACTED] on the run pages, in
the live stream, in downloads, in dropped files and in what the search
looks in; spans received with --otlp are redacted before they are
written. A file whose header says its writer scanned it already (the
exporter, the bridge, convert) is shown as it is. --redact-key NAME also
replaces a named field; --no-redact shows everything as the files hold it.

The server listens on loopback only (--addr must be localhost, 127.x.x.x
or [::1]; port 0 picks a free port), answers only requests addressed to
those names, and serves nothing outside DIR: no "..", no symbolic link
leading out, no file but a regular *.jsonl. It prints the address it
serves at and runs until interrupted (Ctrl-C or SIGTERM).

Exit status: 0 when stopped by a signal, 2 on a usage error (an --addr that
is not loopback) or when DIR cannot be read or the address cannot be
listened on.

serve URL serves a bucket prefix (a gocloud URL: s3://, gs://, azblob://,
file://, mem://, as "runs" takes): its list is read from the bucket's run
catalog only, never by listing the objects ("agenttrace catalog build URL"
makes or refreshes it; a reload reads it again), and a run's page is
fetched when opened, its generations merged, and cached by its objects'
versions. A bucket's runs have no live tail, and --otlp is refused.`

// serveFlags are serve's own flags (the OTLP receiver's are otlpFlags).
type serveFlags struct {
	addr string
	open bool
	// cacheSize and maxRecords bound a run's memory in the viewer.
	cacheSize  int64
	maxRecords int
	// indexLimit: the most runs listed from memory; more, from the catalog.
	indexLimit int
	// idle: how long an open run may gain nothing before it shows as
	// stopped without an end.
	idle time.Duration
}

func (f *serveFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:0", "loopback address to listen on; port 0 picks a free one")
	cmd.Flags().BoolVar(&f.open, "open", false, "open the list of runs in the default browser")
	cmd.Flags().Int64Var(&f.cacheSize, "cache-size", server.DefaultCacheSize, "bytes of memory (estimated) for the runs kept loaded; a run too large for it is shown paged")
	cmd.Flags().IntVar(&f.maxRecords, "max-run-records", server.DefaultMaxRunRecords, "most records a run is loaded whole with; a larger run is shown paged")
	cmd.Flags().IntVar(&f.indexLimit, "index-limit", server.DefaultIndexLimit, "most runs listed from an in-memory index (every message searchable); a folder of more is listed from its run catalog")
	cmd.Flags().DurationVar(&f.idle, "idle", server.DefaultIdle, "a run that has not ended (no trailer, spans open) and gains no data for this long shows as stopped without an end (its writer crashed or was killed), not running")
}

func newServeCmd(e *env) *cobra.Command {
	var (
		f    serveFlags
		otlp otlpFlags
	)
	cmd := &cobra.Command{
		Use:   "serve DIR|URL",
		Short: "Browse a directory of artifacts in a local viewer, live",
		Long:  serveLong,
		Example: `  agenttrace demo --out runs && agenttrace serve runs --open
  agenttrace serve runs --addr 127.0.0.1:8080
  agenttrace serve runs --otlp
  agenttrace serve runs --otlp-http 127.0.0.1:0 --otlp-grpc off`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := argsAtLeast(1, "directory to serve")(cmd, args); err != nil {
				return err
			}
			if len(args) > 1 {
				return usageErrorf("serve takes one directory, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Checked before anything listens: a wrong --addr must not
			// expose the runs even for a moment.
			if err := server.CheckAddr(f.addr); err != nil {
				return usageErrorf("--addr: %w", err)
			}
			if err := otlp.check(cmd); err != nil {
				return err
			}
			if f.cacheSize <= 0 || f.maxRecords <= 0 || f.indexLimit <= 0 || f.idle <= 0 {
				return usageErrorf("--cache-size, --max-run-records, --index-limit and --idle must be more than 0")
			}
			bounds := []server.Option{server.WithCacheSize(f.cacheSize), server.WithMaxRunRecords(f.maxRecords), server.WithIndexLimit(f.indexLimit), server.WithIdle(f.idle)}
			return e.serve(cmd.Context(), args[0], f.addr, f.open, otlp, bounds...)
		},
	}
	f.register(cmd)
	otlp.register(cmd)
	e.redactFlags(cmd)
	return cmd
}

// serve serves dir at addr until ctx is done or the process gets SIGINT
// or SIGTERM.
func (e *env) serve(ctx context.Context, dir, addr string, open bool, otlp otlpFlags, viewerOpts ...server.Option) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Handlers log from their own goroutines; the opener warns from its own.
	stderr := &lockedWriter{w: e.stderr}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{} // a terminal needs no timestamps
			}
			return a
		},
	}))
	s, err := newViewer(ctx, dir, otlp.on, e.redact.serverOptions(append(viewerOpts, server.WithLogger(log))...)...)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(ioError(fmt.Errorf("listen: %w", err)), s.Shutdown(ctx))
	}
	otlp.red = e.redact
	rcv, err := startOTLP(dir, otlp, log)
	if err != nil {
		ln.Close()
		return errors.Join(err, s.Shutdown(ctx))
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
		defer cancel()
		if err := rcv.stop(sctx); err != nil {
			fmt.Fprintf(stderr, "agenttrace: %v\n", err)
		}
		rcv.printStats(e.stdout)
	}()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()

	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(e.stdout, "serving %s at %s\n", dir, url)
	rcv.print(e.stdout)
	if open {
		openBrowser(url, stderr)
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		// Serve stops on its own only when it cannot go on (a listener
		// that is not loopback after all: "localhost" resolving elsewhere).
		sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
		defer cancel()
		return errors.Join(ioError(fmt.Errorf("serve: %w", err)), s.Shutdown(sctx))
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	defer cancel()
	err = s.Shutdown(sctx)
	<-served // http.ErrServerClosed
	if err != nil {
		return ioError(err)
	}
	return nil
}

// openBrowser asks the desktop to open url. It is a convenience: when it
// fails, serve warns and goes on, since the address is printed anyway.
func openBrowser(url string, stderr *lockedWriter) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "agenttrace: warning: --open: %v\n", err)
		return
	}
	// Not waited for: some openers run as long as the browser does.
	go func() {
		if err := cmd.Wait(); err != nil {
			fmt.Fprintf(stderr, "agenttrace: warning: --open: %s: %v\n", cmd.Path, err)
		}
	}()
}

// otlpFlags are serve's OTLP receiver flags.
type otlpFlags struct {
	on          bool
	http, grpc  string
	allowRemote bool
	maxRequest  int64
	maxInFlight int64
	cors        []string   // origins whose web pages may export to OTLP/HTTP
	red         *redaction // what is written is redacted first; nil: nothing
	// catalog keeps DIR's run catalog as runs are finalized; maxAge and
	// maxBytes are DIR's retention (catalog.Retention).
	catalog  bool
	maxAge   string
	maxBytes int64
	keep     catalog.Retention
}

func (o *otlpFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.on, "otlp", false, "also receive OTLP traces (HTTP on "+receiver.DefaultHTTPAddr+", gRPC on "+receiver.DefaultGRPCAddr+") into DIR, shown live")
	f.StringVar(&o.http, "otlp-http", receiver.DefaultHTTPAddr, "OTLP/HTTP address (implies --otlp); port 0 picks a free one, \"off\" disables it")
	f.StringVar(&o.grpc, "otlp-grpc", receiver.DefaultGRPCAddr, "OTLP/gRPC address (implies --otlp); port 0 picks a free one, \"off\" disables it")
	f.BoolVar(&o.allowRemote, "otlp-allow-remote", false, "let --otlp-http/--otlp-grpc name a non-loopback address (spans from other machines, unauthenticated)")
	f.Int64Var(&o.maxRequest, "otlp-max-request", receiver.DefaultMaxRequest, "largest OTLP request in bytes, decompressed; larger ones get 413 / RESOURCE_EXHAUSTED")
	f.Int64Var(&o.maxInFlight, "otlp-max-inflight", receiver.DefaultMaxInFlight, "OTLP request bytes held at once, decompressed (a gRPC call counts as --otlp-max-request); more get 429 / RESOURCE_EXHAUSTED with a retry delay")
	f.BoolVar(&o.catalog, "otlp-catalog", true, "keep DIR's run catalog (DIR/catalog/) as runs are finalized")
	f.StringVar(&o.maxAge, "otlp-max-age", "", "remove the runs of DIR that ended longer ago than this `age` (\"36h\", \"30d\"), with their catalog rows")
	f.Int64Var(&o.maxBytes, "otlp-max-bytes", 0, "keep DIR's finalized runs under this many `bytes`, removing the oldest first, with their catalog rows")
	f.StringArrayVar(&o.cors, "cors", nil, "let web pages of `ORIGIN` (scheme://host:port, or * for any) export to OTLP/HTTP from a browser (repeatable); other cross-origin requests get 403")
}

// check settles the flags before anything listens: an address flag
// implies --otlp, and an address other machines could reach needs
// --otlp-allow-remote and an explicit host.
func (o *otlpFlags) check(cmd *cobra.Command) error {
	f := cmd.Flags()
	if f.Changed("otlp-http") || f.Changed("otlp-grpc") {
		o.on = true
	}
	if !o.on {
		if f.Changed("otlp-allow-remote") || f.Changed("otlp-max-request") || f.Changed("otlp-max-inflight") || f.Changed("cors") ||
			f.Changed("otlp-catalog") || f.Changed("otlp-max-age") || f.Changed("otlp-max-bytes") {
			return usageErrorf("--otlp-allow-remote, --otlp-max-request, --otlp-max-inflight, --cors, --otlp-catalog, --otlp-max-age and --otlp-max-bytes need --otlp")
		}
		return nil
	}
	if o.http == "off" && o.grpc == "off" {
		return usageErrorf("--otlp with both --otlp-http and --otlp-grpc off receives nothing")
	}
	for _, a := range []struct{ flag, addr string }{{"otlp-http", o.http}, {"otlp-grpc", o.grpc}} {
		if a.addr == "off" {
			continue
		}
		err := server.CheckAddr(a.addr)
		if err == nil {
			continue
		}
		if !errors.Is(err, server.ErrNotLoopback) || !o.allowRemote {
			if errors.Is(err, server.ErrNotLoopback) {
				return usageErrorf("--%s: %w; add --otlp-allow-remote to receive from other machines", a.flag, err)
			}
			return usageErrorf("--%s: %w", a.flag, err)
		}
	}
	return o.retention()
}

// retention settles --otlp-max-age and --otlp-max-bytes.
func (o *otlpFlags) retention() error {
	if o.maxAge != "" {
		age, err := parseAge(o.maxAge)
		if err != nil {
			return usageErrorf("--otlp-max-age %w", err)
		}
		o.keep.MaxAge = age
	}
	o.keep.MaxBytes = o.maxBytes
	if err := o.keep.Validate(); err != nil {
		return usageErrorf("--otlp-max-bytes: %w", err)
	}
	return nil
}

// otlpRun is a running OTLP receiver and its store.
type otlpRun struct {
	st       *store.Store
	keeper   *catalog.Keeper // nil without a catalog or retention
	rcv      *receiver.Receiver
	lines    []string
	httpAddr string // where OTLP/HTTP listens, when it does
	done     []chan error
	disabled bool
}

// startOTLP listens on the OTLP addresses and serves them into dir
// through the artifact store. Each artifact is finalized as soon as its
// root span is written (a later span of the trace reopens it).
func startOTLP(dir string, o otlpFlags, log *slog.Logger) (*otlpRun, error) {
	if !o.on {
		return &otlpRun{disabled: true}, nil
	}
	opts := store.Options{Dir: dir, Recover: true, RecoverIdle: store.SharedFolderIdle, Redactor: o.red.storeRedactor(), OnError: func(err error) { log.Warn("finalizing artifact", "err", err) }}
	var keeper *catalog.Keeper
	if o.catalog || o.keep.Enabled() {
		keeper = catalog.NewKeeper(dir, catalog.KeeperOptions{Retention: o.keep, OnError: func(err error) { log.Warn("run catalog", "err", err) }})
		opts.Hooks.Finalized = keeper.Finalized
	}
	st, err := store.New(opts)
	if err != nil {
		return nil, ioError(fmt.Errorf("otlp: %w", err))
	}
	if keeper != nil {
		keeper.Start(catalog.TakeAndRemove(st.Take)) // no writer adopts a file being removed
	}
	run := &otlpRun{st: st, keeper: keeper, rcv: receiver.New(st, receiver.WithLogger(log), receiver.WithMaxRequest(o.maxRequest),
		receiver.WithMaxInFlight(o.maxInFlight), receiver.WithCORS(o.cors...), receiver.WithAllowedHosts(o.hosts()...))}
	var lns []net.Listener
	fail := func(err error) (*otlpRun, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, errors.Join(ioError(err), st.Close(), run.keeper.Close(context.Background()))
	}
	if o.http != "off" {
		ln, err := net.Listen("tcp", o.http)
		if err != nil {
			return fail(fmt.Errorf("--otlp-http: listen: %w", err))
		}
		lns = append(lns, ln)
		run.httpAddr = ln.Addr().String()
		run.lines = append(run.lines, fmt.Sprintf("receiving OTLP/HTTP at http://%s (/v1/traces)", ln.Addr()))
	}
	if o.grpc != "off" {
		ln, err := net.Listen("tcp", o.grpc)
		if err != nil {
			return fail(fmt.Errorf("--otlp-grpc: listen: %w", err))
		}
		lns = append(lns, ln)
		run.lines = append(run.lines, fmt.Sprintf("receiving OTLP/gRPC at %s", ln.Addr()))
	}
	i := 0
	if o.http != "off" {
		ln := lns[i]
		i++
		ch := make(chan error, 1)
		run.done = append(run.done, ch)
		go func() { ch <- run.rcv.ServeHTTP(ln) }()
	}
	if o.grpc != "off" {
		ln := lns[i]
		ch := make(chan error, 1)
		run.done = append(run.done, ch)
		go func() { ch <- run.rcv.ServeGRPC(ln) }()
	}
	return run, nil
}

// hosts are the Host names OTLP/HTTP answers besides loopback ones: the
// host of --otlp-http when it was set to another address on purpose
// (--otlp-allow-remote; check refused it otherwise).
func (o *otlpFlags) hosts() []string {
	host, _, err := net.SplitHostPort(o.http)
	if o.http == "off" || err != nil || server.CheckAddr(o.http) == nil {
		return nil
	}
	return []string{host}
}

func (r *otlpRun) print(w io.Writer) {
	for _, l := range r.lines {
		fmt.Fprintln(w, l)
	}
}

// printStats says what the receiver took and refused, once it stopped.
func (r *otlpRun) printStats(w io.Writer) {
	if r.disabled {
		return
	}
	st := r.rcv.Stats()
	fmt.Fprintf(w, "OTLP: %d spans written from %d requests", st.Spans, st.HTTPRequests+st.GRPCRequests)
	if st.RejectedSpans > 0 {
		fmt.Fprintf(w, ", %d spans rejected", st.RejectedSpans)
	}
	if bad := st.BadContentType + st.BadPayload + st.TooLarge + st.BadMethod + st.GRPCErrors + st.Forbidden + st.Busy; bad > 0 {
		fmt.Fprintf(w, "; refused %d requests (%d bad payload, %d wrong content type, %d too large, %d wrong method, %d gRPC errors, %d forbidden host or origin, %d over the in-flight limit)",
			bad, st.BadPayload, st.BadContentType, st.TooLarge, st.BadMethod, st.GRPCErrors, st.Forbidden, st.Busy)
	}
	if st.Logs+st.RejectedLogs > 0 {
		fmt.Fprintf(w, "; %d log records written", st.Logs)
	}
	if st.RejectedLogs > 0 {
		fmt.Fprintf(w, ", %d log records rejected", st.RejectedLogs)
	}
	fmt.Fprintln(w)
}

// stop stops receiving and finalizes every artifact.
func (r *otlpRun) stop(ctx context.Context) error {
	if r.disabled {
		return nil
	}
	err := r.rcv.Shutdown(ctx)
	for _, ch := range r.done {
		<-ch
	}
	err = errors.Join(err, r.st.Close()) // finalizes: the keeper hears of every run
	return errors.Join(err, r.keeper.Close(ctx))
}
