package otlpsend

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// maxBatchBytes stays under the 4 MiB a gRPC server accepts by default
// (the collector's OTLP receiver and Jaeger's included), with room for
// the request's framing and the resource and scope repeated per batch. A
// single span larger than that still goes, alone.
const maxBatchBytes = 3 << 20

// Retry schedule. The SDK's default (5 s first interval, one minute in
// all) is made for a background exporter; a person waiting at a terminal
// wants the first retry sooner. Settings.RetryMax sets the total.
const (
	retryInitialInterval = 500 * time.Millisecond
	retryMaxInterval     = 5 * time.Second
)

// Sender sends traces to one Plan's endpoint. Its methods are for one
// goroutine at a time.
type Sender struct {
	plan   *Plan
	client otlptrace.Client
	watch  *connWatch
	// ctx is canceled, with a ConnProblem as its cause, at the first
	// connection problem the watch finds, which ends any Send under way.
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// Count is what has been delivered.
type Count struct {
	Spans, Requests int
}

// Start connects a Sender for p. Cancel ctx, or call Stop, to end it; a
// connection problem found while sending cancels the context Send was
// given and is returned by Problem.
func Start(ctx context.Context, p *Plan) (*Sender, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	s := &Sender{plan: p, ctx: ctx, cancel: cancel}
	s.watch = newConnWatch(p.Target, cancel)
	s.client = newClient(p, s.watch)
	if err := s.client.Start(ctx); err != nil {
		cancel(nil)
		return nil, fmt.Errorf("send to %s: %w", p.Target, err)
	}
	return s, nil
}

// Send sends td in requests of at most Settings.BatchSpans spans and about
// 3 MiB each, and returns what was delivered before any failure. A
// failure names the request, of how many, and name (the input's).
func (s *Sender) Send(ctx context.Context, name string, td ptrace.Traces) (Count, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })()
	var n Count
	rss, err := ToProto(td)
	if err != nil {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	reqs := batches(rss, s.plan.BatchSpans, maxBatchBytes)
	for i, req := range reqs {
		spans := spanCount(req)
		if err := s.client.UploadTraces(ctx, req); err != nil {
			return n, fmt.Errorf("request %d of %d (%s of %s): %w", i+1, len(reqs), Plural(spans, "span"), name, err)
		}
		n.Spans += spans
		n.Requests++
	}
	return n, nil
}

// Problem is the connection problem that stopped a send, or nil.
func (s *Sender) Problem() *ConnProblem { return s.watch.found() }

// Stop closes the connection once the requests under way are done,
// waiting at most one attempt's timeout: an endpoint may hang up slowly.
func (s *Sender) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), s.plan.Timeout)
	defer cancel()
	_ = s.client.Stop(ctx)
	s.watch.close()
	s.cancel(nil)
}

// newClient makes the OTLP client for p, watched by w. Every setting the
// clients would otherwise take from OTEL_EXPORTER_OTLP_* variables is
// given explicitly, as plan resolved it (flags over variables), in a
// form that overrides the clients' own reading of them.
func newClient(p *Plan, w *connWatch) otlptrace.Client {
	if p.Target.IsHTTP() {
		compression := otlptracehttp.NoCompression
		if p.Compression == "gzip" {
			compression = otlptracehttp.GzipCompression
		}
		encoding := otlptracehttp.EncodingProtobuf
		if p.Target.protocol == ProtoJSON {
			encoding = otlptracehttp.EncodingJSON
		}
		return otlptracehttp.NewClient(
			// A URL sets the host, path and scheme (so TLS or not) at once,
			// whatever OTEL_EXPORTER_OTLP_INSECURE says.
			otlptracehttp.WithEndpointURL(p.Target.URL()),
			otlptracehttp.WithEncoding(encoding),
			otlptracehttp.WithHeaders(p.Headers),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig(p.retry())),
			otlptracehttp.WithCompression(compression),
			// The client's TLS settings and timeout (this is
			// http.Client.Timeout: it bounds one attempt) are those of
			// the HTTP client, which overrides the variables'; nil TLS
			// settings undo what the certificate variables set.
			otlptracehttp.WithTLSClientConfig(nil),
			otlptracehttp.WithHTTPClient(w.httpClient(p.TLS, p.Timeout)),
		)
	}
	// Transport credentials take precedence over the client's insecure
	// flag and over certificates named by variables, so both cases set
	// them.
	creds := insecure.NewCredentials()
	if p.TLS != nil {
		creds = watchedCreds{TransportCredentials: credentials.NewTLS(p.TLS), w: w}
	}
	// "identity" is gRPC's name for no compression; given as the last
	// call option, it also wins over OTEL_EXPORTER_OTLP_COMPRESSION=gzip,
	// which the client turns into an earlier one.
	compressor := encoding.Identity
	if p.Compression == "gzip" {
		compressor = "gzip"
	}
	return otlptracegrpc.NewClient(
		// passthrough: the address goes to the dialer as it is, which
		// tries each of a name's addresses itself, so a refusal it
		// reports is the endpoint's, not one address's.
		otlptracegrpc.WithEndpoint("passthrough:///"+p.Target.hostPort),
		otlptracegrpc.WithTLSCredentials(creds),
		otlptracegrpc.WithHeaders(p.Headers),
		// The gRPC client's own timeout bounds a request with all its
		// retries. It is turned off so that --timeout means one attempt
		// for both protocols (the interceptor sets it) and the retries are
		// bounded by --retry-max-elapsed alone.
		otlptracegrpc.WithTimeout(0),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(p.retry())),
		otlptracegrpc.WithDialOption(
			grpc.WithContextDialer(w.dial),
			grpc.WithChainUnaryInterceptor(attemptTimeout(p.Timeout)),
			grpc.WithDefaultCallOptions(grpc.UseCompressor(compressor)),
		),
	)
}

// retryConfig is the retry settings of both OTLP clients, whose
// RetryConfig types are conversions of this one.
type retryConfig struct {
	Enabled         bool
	InitialInterval time.Duration
	MaxInterval     time.Duration
	MaxElapsedTime  time.Duration
}

// retry is the retry schedule for p: the SDK's backoff, bounded by
// Settings.RetryMax (0: no retries).
func (p *Plan) retry() retryConfig {
	return retryConfig{
		Enabled:         p.RetryMax > 0,
		InitialInterval: retryInitialInterval,
		MaxInterval:     retryMaxInterval,
		MaxElapsedTime:  p.RetryMax,
	}
}

// attemptTimeout gives each gRPC call its own deadline. A call that
// times out ends DEADLINE_EXCEEDED, which the client retries.
func attemptTimeout(d time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}
