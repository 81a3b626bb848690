package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"

	"github.com/agenttrace/agenttrace/converter"
)

// Batch limits. maxBatchBytes stays under the 4 MiB a gRPC server accepts
// by default (the collector's OTLP receiver and Jaeger's included), with
// room for the request's framing and the resource and scope repeated per
// batch. A single span larger than that still goes, alone.
const (
	defaultBatchSpans = 1000
	maxBatchBytes     = 3 << 20
)

// Retry schedule. The SDK's default (5 s first interval, one minute in
// all) is made for a background exporter; a person waiting at a terminal
// wants the first retry sooner. --retry-max-elapsed sets the total.
const (
	retryInitialInterval = 500 * time.Millisecond
	retryMaxInterval     = 5 * time.Second
)

// sendOpts is the send command line, parsed.
type sendOpts struct {
	inputs      []string
	endpoint    string
	protocol    string
	insecure    bool
	headers     []string
	timeout     time.Duration
	retryMax    time.Duration
	compression string
	batchSpans  int
}

// sendPlan is sendOpts checked and resolved, before any input is read.
type sendPlan struct {
	sendOpts
	target  target
	headers map[string]string
}

// target is where spans go, as the OTLP clients want it.
type target struct {
	protocol string // "grpc" or "http"
	hostPort string // host:port, always with a port
	urlPath  string // http only: the request path
	insecure bool   // plaintext instead of TLS
}

// url is the URL an OTLP/HTTP request is posted to.
func (t target) url() string {
	scheme := "https"
	if t.insecure {
		scheme = "http"
	}
	return scheme + "://" + t.hostPort + t.urlPath
}

// String names the endpoint in messages: host:port for gRPC, the URL
// posted to for HTTP (so a wrong path shows), with the protocol.
func (t target) String() string {
	if t.protocol == "http" {
		return t.url() + " (http)"
	}
	return t.hostPort + " (grpc)"
}

func newSendCmd(e *env) *cobra.Command {
	var o sendOpts
	cmd := &cobra.Command{
		Use:   "send FILE... --endpoint HOST:PORT",
		Short: "Send traces to an OTLP endpoint (a collector, Jaeger, ...)",
		Long: `Send reads artifacts or OTLP files (anything convert reads, told apart by
their content) and sends their spans to an OTLP endpoint: an OpenTelemetry
Collector, Jaeger, or any other OTLP receiver. Use it to look at a recorded
run in a trace viewer, or to replay a run into a pipeline.

--endpoint is HOST:PORT (4317 is the usual OTLP/gRPC port, 4318 OTLP/HTTP)
or a URL. With --protocol http, HOST:PORT posts to /v1/traces; a URL
names the path itself (http://host:4318/v1/traces), and its scheme says
whether to use TLS. Connections use TLS, checked against the system's
roots (SSL_CERT_FILE or SSL_CERT_DIR name others), unless --insecure or an
http:// URL asks for plaintext. OTEL_EXPORTER_OTLP_* variables are not read: the
flags say everything.

Each file's spans go in requests of at most --batch-spans spans and about
3 MiB. Each attempt of a request may take --timeout; failures the OTLP
specification calls retryable (gRPC UNAVAILABLE, HTTP 429, 502, 503, 504,
timeouts) are retried with exponential backoff for up to
--retry-max-elapsed (0: no retries). Other refusals (gRPC INVALID_ARGUMENT,
HTTP 400, ...) fail at once.

For each file, send prints how many spans it sent in how many requests,
then the total and the endpoint.

Exit status: 0 when the endpoint accepted every span; 1 when an input has
problems (bad lines are reported as file:line and skipped, and the other
spans are still sent); 2 on a usage error or an unreadable file (nothing is
sent); 3 when the endpoint refused spans or could not be reached. Sending
stops at the first request that fails; the spans of earlier requests have
been delivered.`,
		Example: `  agenttrace send run.jsonl --endpoint 127.0.0.1:4317 --insecure
  agenttrace send traces.json --endpoint otlp.example.com:443 --header authorization="Bearer $TOKEN"
  agenttrace send runs/*.jsonl --protocol http --endpoint http://127.0.0.1:4318/v1/traces`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs = args
			p, err := o.plan()
			if err != nil {
				return err
			}
			return e.send(cmd.Context(), p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "", "where to send: HOST:PORT, or a URL (required)")
	f.StringVar(&o.protocol, "protocol", "grpc", "OTLP transport: grpc or http (protobuf over HTTP)")
	f.BoolVar(&o.insecure, "insecure", false, "plaintext instead of TLS")
	f.StringArrayVar(&o.headers, "header", nil, "a request header (gRPC metadata) as key=value; repeatable")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long one attempt of a request may take")
	f.DurationVar(&o.retryMax, "retry-max-elapsed", 30*time.Second, "how long to keep retrying a request; 0 disables retries")
	f.StringVar(&o.compression, "compression", "gzip", "request compression: gzip or none")
	f.IntVar(&o.batchSpans, "batch-spans", defaultBatchSpans, "at most this many spans per request")
	e.redactFlags(cmd)
	return cmd
}

// plan checks the flags, so a usage error is reported before any input
// is read or anything sent.
func (o sendOpts) plan() (*sendPlan, error) {
	if err := checkStdin(o.inputs); err != nil {
		return nil, err
	}
	if o.endpoint == "" {
		return nil, usageErrorf("--endpoint is required (HOST:PORT, e.g. 127.0.0.1:4317)")
	}
	if o.protocol != "grpc" && o.protocol != "http" {
		return nil, usageErrorf("--protocol %q: want grpc or http", o.protocol)
	}
	if o.timeout <= 0 {
		return nil, usageErrorf("--timeout %s: want more than 0", o.timeout)
	}
	if o.retryMax < 0 {
		return nil, usageErrorf("--retry-max-elapsed %s: want 0 or more", o.retryMax)
	}
	if o.compression != "gzip" && o.compression != "none" {
		return nil, usageErrorf("--compression %q: want gzip or none", o.compression)
	}
	if o.batchSpans < 1 {
		return nil, usageErrorf("--batch-spans %d: want 1 or more", o.batchSpans)
	}
	t, err := parseEndpoint(o.endpoint, o.protocol, o.insecure)
	if err != nil {
		return nil, err
	}
	headers, err := parseHeaders(o.headers)
	if err != nil {
		return nil, err
	}
	return &sendPlan{sendOpts: o, target: t, headers: headers}, nil
}

// parseEndpoint reads --endpoint: HOST:PORT, or an http:// or https://
// URL whose scheme decides TLS and, for OTLP/HTTP, whose path is the one
// posted to. The OTLP clients would accept more (and fill in defaults
// silently); checking here turns a typo into a usage error instead of a
// connection that fails after the retries.
func parseEndpoint(s, protocol string, insecure bool) (target, error) {
	t := target{protocol: protocol, insecure: insecure}
	if !strings.Contains(s, "://") {
		if err := checkHostPort(s); err != nil {
			return t, usageErrorf("--endpoint %q: %v", s, err)
		}
		t.hostPort = s
		if protocol == "http" {
			t.urlPath = "/v1/traces"
		}
		return t, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return t, usageErrorf("--endpoint %q: %v", s, err)
	}
	switch u.Scheme {
	case "http":
		t.insecure = true
	case "https":
		if insecure {
			return t, usageErrorf("--endpoint %q is https, which contradicts --insecure", s)
		}
	default:
		return t, usageErrorf("--endpoint %q: want HOST:PORT or an http:// or https:// URL", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return t, usageErrorf("--endpoint %q: a user, query or fragment cannot be sent over OTLP", s)
	}
	t.hostPort = u.Host
	if u.Port() == "" {
		t.hostPort = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	if err := checkHostPort(t.hostPort); err != nil {
		return t, usageErrorf("--endpoint %q: %v", s, err)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	switch {
	case protocol == "http" && path == "":
		t.urlPath = "/v1/traces"
	case protocol == "http":
		t.urlPath = path
	case path != "":
		// gRPC has no request path; a URL with one is most likely the
		// OTLP/HTTP endpoint given with the wrong --protocol.
		return t, usageErrorf("--endpoint %q: a gRPC endpoint has no path (for OTLP/HTTP, add --protocol http)", s)
	}
	return t, nil
}

// checkHostPort accepts host:port with a non-empty host and a port from 1
// to 65535.
func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("want HOST:PORT")
	}
	if host == "" {
		return errors.New("want HOST:PORT (the host is missing)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want a number from 1 to 65535", port)
	}
	return nil
}

// parseHeaders reads the --header values. A key given twice is an error
// rather than "last one wins": the OTLP clients take one value per key,
// and silently dropping one (a second authorization, say) hides a mistake.
func parseHeaders(kvs []string) (map[string]string, error) {
	headers := make(map[string]string, len(kvs))
	seen := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageErrorf("--header %q: want key=value", kv)
		}
		if !validHeaderKey(k) {
			return nil, usageErrorf("--header %q: %q is not a valid header name", kv, k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, usageErrorf("--header %q: a value cannot hold a line break or NUL", kv)
		}
		lower := strings.ToLower(k)
		if seen[lower] {
			return nil, usageErrorf("--header %q: %s given twice", kv, k)
		}
		seen[lower] = true
		headers[k] = v
	}
	return headers, nil
}

// validHeaderKey reports whether k is an HTTP token (RFC 9110, 5.6.2),
// which is also what gRPC accepts as a metadata key once lowercased.
func validHeaderKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// newClient makes the OTLP client for p. Every setting the clients would
// otherwise take from OTEL_EXPORTER_OTLP_* variables is given explicitly,
// in a form that overrides them, so that the command line alone decides
// where spans go and how.
func newClient(p *sendPlan) otlptrace.Client {
	// No roots and no server name: the system's roots and the endpoint's
	// host name are checked, as a browser would.
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if p.target.protocol == "http" {
		compression := otlptracehttp.NoCompression
		if p.compression == "gzip" {
			compression = otlptracehttp.GzipCompression
		}
		opts := []otlptracehttp.Option{
			// A URL sets the host, path and scheme (so TLS or not) at once,
			// whatever OTEL_EXPORTER_OTLP_INSECURE says.
			otlptracehttp.WithEndpointURL(p.target.url()),
			otlptracehttp.WithHeaders(p.headers),
			// This is http.Client.Timeout: it bounds one attempt.
			otlptracehttp.WithTimeout(p.timeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig(p.retry())),
			otlptracehttp.WithCompression(compression),
		}
		if !p.target.insecure {
			opts = append(opts, otlptracehttp.WithTLSClientConfig(tlsConfig))
		}
		return otlptracehttp.NewClient(opts...)
	}
	// Transport credentials take precedence over the client's insecure
	// flag and over certificates named by variables, so both cases set
	// them.
	creds := insecure.NewCredentials()
	if !p.target.insecure {
		creds = credentials.NewTLS(tlsConfig)
	}
	// "identity" is gRPC's name for no compression; given as the last
	// call option, it also wins over OTEL_EXPORTER_OTLP_COMPRESSION=gzip,
	// which the client turns into an earlier one.
	compressor := encoding.Identity
	if p.compression == "gzip" {
		compressor = "gzip"
	}
	return otlptracegrpc.NewClient(
		otlptracegrpc.WithEndpoint(p.target.hostPort),
		otlptracegrpc.WithTLSCredentials(creds),
		otlptracegrpc.WithHeaders(p.headers),
		// The gRPC client's own timeout bounds a request with all its
		// retries. It is turned off so that --timeout means one attempt
		// for both protocols (the interceptor sets it) and the retries are
		// bounded by --retry-max-elapsed alone.
		otlptracegrpc.WithTimeout(0),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(p.retry())),
		otlptracegrpc.WithDialOption(
			grpc.WithChainUnaryInterceptor(attemptTimeout(p.timeout)),
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
// --retry-max-elapsed (0: no retries).
func (p *sendPlan) retry() retryConfig {
	return retryConfig{
		Enabled:         p.retryMax > 0,
		InitialInterval: retryInitialInterval,
		MaxInterval:     retryMaxInterval,
		MaxElapsedTime:  p.retryMax,
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

// sendCount is what has been delivered.
type sendCount struct {
	spans, requests int
}

func (e *env) send(ctx context.Context, p *sendPlan) error {
	// Every input is read before anything is sent, so that a missing file
	// does not leave the endpoint with half of a command line's traces.
	all, err := e.loadInputs(p.inputs)
	if err != nil {
		return err
	}
	client := newClient(p)
	if err := client.Start(ctx); err != nil {
		return &exitError{code: exitUnsent, err: fmt.Errorf("send to %s: %w", p.target, err)}
	}
	defer func() {
		// Stop only closes the connection once the requests are done;
		// bound it anyway, since an endpoint may hang up slowly.
		stopCtx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		_ = client.Stop(stopCtx)
	}()

	var total sendCount
	for _, src := range all.sources {
		n, err := sendSource(ctx, client, src, p)
		total.spans += n.spans
		total.requests += n.requests
		if err != nil {
			return &exitError{code: exitUnsent, err: fmt.Errorf("send to %s: %w (%s in %s sent before)",
				p.target, err, plural(total.spans, "span"), plural(total.requests, "request"))}
		}
		fmt.Fprintf(e.stdout, "%s: %s in %s\n", src.name, plural(n.spans, "span"), plural(n.requests, "request"))
	}
	if _, err := fmt.Fprintf(e.stdout, "sent %s in %s to %s\n", plural(total.spans, "span"), plural(total.requests, "request"), p.target); err != nil {
		return ioError(fmt.Errorf("write standard output: %w", err))
	}
	return e.noteSkipped(all)
}

// sendSource sends the spans of one input, batch by batch, and returns
// what was delivered before any failure.
func sendSource(ctx context.Context, client otlptrace.Client, src *source, p *sendPlan) (sendCount, error) {
	var n sendCount
	rss, err := toProto(converter.ToTraces(src.records))
	if err != nil {
		return n, fmt.Errorf("%s: %w", src.name, err)
	}
	reqs := batches(rss, p.batchSpans, maxBatchBytes)
	for i, req := range reqs {
		spans := spanCount(req)
		if err := client.UploadTraces(ctx, req); err != nil {
			return n, fmt.Errorf("request %d of %d (%s of %s): %w", i+1, len(reqs), plural(spans, "span"), src.name, err)
		}
		n.spans += spans
		n.requests++
	}
	return n, nil
}

// toProto turns pdata into the OTLP protobuf types the SDK's clients
// take. Both are generated from the same .proto files, so a marshal and
// unmarshal round trip is exact.
func toProto(td ptrace.Traces) ([]*tracepb.ResourceSpans, error) {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, fmt.Errorf("encode OTLP: %w", err)
	}
	var data tracepb.TracesData
	if err := proto.Unmarshal(b, &data); err != nil {
		return nil, fmt.Errorf("decode OTLP: %w", err)
	}
	return data.ResourceSpans, nil
}

// batches splits rss into requests of at most maxSpans spans and, as far
// as single spans allow, maxBytes bytes of spans, keeping the order of
// spans and each span under its own resource and scope. The batches share
// the resources, scopes and spans of rss (no copies); empty resource and
// scope groups are dropped.
func batches(rss []*tracepb.ResourceSpans, maxSpans, maxBytes int) [][]*tracepb.ResourceSpans {
	var (
		out   [][]*tracepb.ResourceSpans
		cur   []*tracepb.ResourceSpans
		spans int
		size  int
	)
	for _, rs := range rss {
		var curRS *tracepb.ResourceSpans // rs's copy in cur, once it has a span
		for _, ss := range rs.ScopeSpans {
			var curSS *tracepb.ScopeSpans
			for _, sp := range ss.Spans {
				n := proto.Size(sp)
				if spans > 0 && (spans == maxSpans || size+n > maxBytes) {
					out = append(out, cur)
					cur, spans, size, curRS, curSS = nil, 0, 0, nil, nil
				}
				if curRS == nil {
					curRS = &tracepb.ResourceSpans{Resource: rs.Resource, SchemaUrl: rs.SchemaUrl}
					cur = append(cur, curRS)
					size += proto.Size(rs.Resource) + len(rs.SchemaUrl)
				}
				if curSS == nil {
					curSS = &tracepb.ScopeSpans{Scope: ss.Scope, SchemaUrl: ss.SchemaUrl}
					curRS.ScopeSpans = append(curRS.ScopeSpans, curSS)
					size += proto.Size(ss.Scope) + len(ss.SchemaUrl)
				}
				curSS.Spans = append(curSS.Spans, sp)
				spans++
				size += n
			}
		}
	}
	if spans > 0 {
		out = append(out, cur)
	}
	return out
}

// spanCount counts the spans of one request.
func spanCount(rss []*tracepb.ResourceSpans) int {
	n := 0
	for _, rs := range rss {
		for _, ss := range rs.ScopeSpans {
			n += len(ss.Spans)
		}
	}
	return n
}

// plural writes n and a noun, "1 span" or "2 spans".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
