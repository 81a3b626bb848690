package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"

	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/receiver"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// liveFlags are demo's --live flags.
type liveFlags struct {
	on       bool
	endpoint string
	speed    float64
	open     bool
	exit     bool
	// slowTool: the first tool call's simulated latency (agentsim's
	// SlowTool), to watch a call in flight.
	slowTool time.Duration
}

func (l *liveFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&l.on, "live", false, "run the agent slowly, in real time, exporting over OTLP/HTTP to agenttrace serve --otlp (started here when none runs), to watch it live")
	f.StringVar(&l.endpoint, "otlp-endpoint", "", "with --live: the OTLP/HTTP `URL` of a running serve --otlp (default http://127.0.0.1:4318 when agenttrace serves there, else a serve started here)")
	f.Float64Var(&l.speed, "speed", 1, "run the agent in real time, this many times faster than its simulated latencies (with --live always; without it, the processor writes into --out as spans start and end, for agenttrace serve to show live)")
	f.DurationVar(&l.slowTool, "slow-tool", 0, "make the first tool call take this long (simulated time, divided by --speed): a call to watch in flight")
	f.BoolVar(&l.open, "open", false, "with --live: open the viewer in the default browser")
	// For tests: end once the run is sent instead of serving until
	// interrupted.
	f.BoolVar(&l.exit, "live-exit", false, "with --live: exit when the run is done instead of serving until Ctrl-C")
	_ = f.MarkHidden("live-exit")
}

// check refuses live flags without --live, and a bad speed.
func (l *liveFlags) check(cmd *cobra.Command) error {
	f := cmd.Flags()
	if !l.on {
		for _, n := range []string{"otlp-endpoint", "open", "live-exit"} {
			if f.Changed(n) {
				return usageErrorf("--%s needs --live", n)
			}
		}
		if !f.Changed("out") {
			// What cobra says of a required flag: --out is one but
			// for --live.
			return usageErrorf(`required flag(s) "out" not set`)
		}
	}
	if !(l.speed > 0) || l.speed > 1e6 {
		return usageErrorf("--speed %g: want a number above 0", l.speed)
	}
	if l.slowTool < 0 {
		return usageErrorf("--slow-tool %v: want 0 (as scripted) or more", l.slowTool)
	}
	if !l.on {
		return nil
	}
	if l.endpoint != "" && !strings.HasPrefix(l.endpoint, "http://") && !strings.HasPrefix(l.endpoint, "https://") {
		return usageErrorf("--otlp-endpoint %q: want an http:// or https:// URL", l.endpoint)
	}
	return nil
}

// defaultLiveEndpoint is where a `serve --otlp` listens by default.
const defaultLiveEndpoint = "http://" + receiver.DefaultHTTPAddr

// demoLive runs the simulated agent in real time (its simulated latencies
// divided by --speed), exporting every span over OTLP/HTTP as it ends, to
// a running `serve --otlp` or to one started here into dir; then, when it
// started the server, it serves until interrupted.
func (e *env) demoLive(dir string, seedSet bool, seed uint64, l liveFlags) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := &lockedWriter{w: e.stderr}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	endpoint := l.endpoint
	if endpoint == "" && listening(receiver.DefaultHTTPAddr) {
		if isAgenttrace(ctx, defaultLiveEndpoint) {
			endpoint = defaultLiveEndpoint
		} else {
			fmt.Fprintf(stderr, "note: %s is another OTLP receiver (a collector, Jaeger?), not agenttrace serve --otlp: serving the run here instead, on free ports\n", receiver.DefaultHTTPAddr)
		}
	}
	var shutdown func() error
	if endpoint == "" {
		// Nobody listens: serve dir here, on free ports.
		if dir == "" {
			d, err := os.MkdirTemp("", "agenttrace-live-")
			if err != nil {
				return ioError(err)
			}
			dir = d
		}
		if err := checkWritableDir(dir); err != nil {
			return ioError(fmt.Errorf("--out: %w", err))
		}
		s, err := server.New(dir, server.WithLogger(log))
		if err != nil {
			return ioError(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return errors.Join(ioError(err), s.Shutdown(ctx))
		}
		served := make(chan error, 1)
		go func() { served <- s.Serve(ln) }()
		rcv, err := startOTLP(dir, otlpFlags{on: true, http: "127.0.0.1:0", grpc: "off", maxRequest: receiver.DefaultMaxRequest}, log)
		if err != nil {
			return errors.Join(err, s.Shutdown(ctx))
		}
		endpoint = "http://" + rcv.httpAddr
		url := "http://" + ln.Addr().String() + "/"
		fmt.Fprintf(e.stdout, "serving %s at %s\n", dir, url)
		rcv.print(e.stdout)
		if l.open {
			openBrowser(url, stderr)
		}
		shutdown = func() error {
			sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
			defer cancel()
			err := errors.Join(rcv.stop(sctx), s.Shutdown(sctx))
			<-served
			return err
		}
	} else if dir != "" {
		fmt.Fprintf(stderr, "note: --out %s is not used: the spans go to the serve at %s, into its folder\n", dir, endpoint)
	}

	if !seedSet {
		// A new trace each time: the same ids would be taken for a
		// redelivery of the last run and skipped.
		seed = rand.Uint64()
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(strings.TrimSuffix(endpoint, "/")+"/v1/traces"))
	if err != nil {
		return errors.Join(ioError(fmt.Errorf("--live: %w", err)), runIf(shutdown))
	}
	// Each span is exported as it ends: the page shows it at once.
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSyncer(exp))...)
	fmt.Fprintf(e.stdout, "running the planner live (trace %s), exporting to %s\n", agentsim.TraceID(seed), endpoint)
	if shutdown != nil {
		fmt.Fprintf(e.stdout, "watch it at the URL above: /run/%s.jsonl\n", agentsim.TraceID(seed))
	}
	p := &pacer{ctx: ctx, start: time.Now(), speed: l.speed}
	res := agentsim.Run(ctx, pacedProvider{tp: tp, p: p}, agentsim.Config{SlowTool: l.slowTool})
	serr := tp.Shutdown(context.Background())
	if serr != nil {
		return errors.Join(ioError(fmt.Errorf("--live: export to %s: %w", endpoint, serr)), runIf(shutdown))
	}
	fmt.Fprintf(e.stdout, "planner answered: %d model calls, %d tool calls (%d failed)\n", res.ModelCalls, res.ToolCalls, res.ToolErrors)
	if shutdown == nil {
		return nil
	}
	if !l.exit && ctx.Err() == nil {
		fmt.Fprintln(e.stdout, "the run is done; serving until interrupted (Ctrl-C)")
		<-ctx.Done()
	}
	if err := shutdown(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return ioError(err)
	}
	return nil
}

func runIf(f func() error) error {
	if f == nil {
		return nil
	}
	return f()
}

// isAgenttrace tells whether the OTLP/HTTP receiver at endpoint is
// agenttrace's: it answers an empty export with its Server header. A
// collector or Jaeger there would take the run and show no page.
func isAgenttrace(ctx context.Context, endpoint string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+receiver.PathTraces, http.NoBody)
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.Header.Get("Server") == receiver.ServerHeader
}

// listening tells whether something accepts connections at addr.
func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// pacer maps the simulated agent's virtual clock (from agentsim.Epoch) to
// real time from start, divided by speed, and waits until then: the run
// unfolds as fast as its simulated latencies say.
type pacer struct {
	ctx   context.Context
	start time.Time
	speed float64
}

// at waits until the real time of virtual and returns it. Once ctx is
// done it waits no more.
func (p *pacer) at(virtual time.Time) time.Time {
	// Only the simulated clock is paced: a time the option defaulted to
	// (an event's "now") is kept as it is.
	since := virtual.Sub(agentsim.Epoch)
	if virtual.IsZero() || since < 0 || since > 24*time.Hour {
		return time.Now()
	}
	real := p.start.Add(time.Duration(float64(since) / p.speed))
	if d := time.Until(real); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-p.ctx.Done():
			t.Stop()
		}
	}
	return real
}

// pacedProvider, pacedTracer and pacedSpan hand the SDK real timestamps
// in place of the simulated ones, waiting for each.
type pacedProvider struct {
	embedded.TracerProvider
	tp trace.TracerProvider
	p  *pacer
}

func (pp pacedProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return pacedTracer{tr: pp.tp.Tracer(name, opts...), p: pp.p}
}

type pacedTracer struct {
	embedded.Tracer
	tr trace.Tracer
	p  *pacer
}

func (t pacedTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	cfg := trace.NewSpanStartConfig(opts...)
	ts := cfg.Timestamp()
	opts = append(opts, trace.WithTimestamp(t.p.at(ts)))
	ctx, sp := t.tr.Start(ctx, name, opts...)
	ps := &pacedSpan{Span: sp, p: t.p}
	return trace.ContextWithSpan(ctx, ps), ps
}

type pacedSpan struct {
	trace.Span
	p *pacer
}

func (s *pacedSpan) End(opts ...trace.SpanEndOption) {
	cfg := trace.NewSpanEndConfig(opts...)
	ts := cfg.Timestamp()
	s.Span.End(append(opts, trace.WithTimestamp(s.p.at(ts)))...)
}

func (s *pacedSpan) AddEvent(name string, opts ...trace.EventOption) {
	cfg := trace.NewEventConfig(opts...)
	ts := cfg.Timestamp()
	s.Span.AddEvent(name, append(opts, trace.WithTimestamp(s.p.at(ts)))...)
}

func (s *pacedSpan) RecordError(err error, opts ...trace.EventOption) {
	cfg := trace.NewEventConfig(opts...)
	ts := cfg.Timestamp()
	s.Span.RecordError(err, append(opts, trace.WithTimestamp(s.p.at(ts)))...)
}

func (s *pacedSpan) TracerProvider() trace.TracerProvider {
	return pacedProvider{tp: s.Span.TracerProvider(), p: s.p}
}
