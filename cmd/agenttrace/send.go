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
	shiftToNow  bool
	// set reports whether the command line gave a flag: a flag given wins
	// over its OTEL_EXPORTER_OTLP_* variable, a default does not.
	set func(flag string) bool
}

// sendPlan is sendOpts checked and resolved against the environment,
// before any input is read.
type sendPlan struct {
	sendOpts
	target  target
	headers map[string]string
	tls     *tls.Config // nil for plaintext
	now     time.Time   // what --shift-to-now moves a run's end to
}

// The OTLP protocols, named as OTEL_EXPORTER_OTLP_PROTOCOL names them.
const (
	protoGRPC = "grpc"
	protoHTTP = "http/protobuf"
	protoJSON = "http/json"
)

// protocols maps what --protocol and OTEL_EXPORTER_OTLP_PROTOCOL accept
// to a protocol; "http", short for http/protobuf, is the flag's alone.
var protocols = map[string]string{
	"grpc":          protoGRPC,
	"http":          protoHTTP,
	"http/protobuf": protoHTTP,
	"http/json":     protoJSON,
}

// target is where spans go, as the OTLP clients want it.
type target struct {
	protocol string // protoGRPC, protoHTTP or protoJSON
	hostPort string // host:port, always with a port
	urlPath  string // http only: the request path, escaped
	insecure bool   // plaintext instead of TLS
	scheme   string // the endpoint URL's scheme; "" for HOST:PORT
}

// isHTTP reports whether t is OTLP/HTTP, protobuf or JSON.
func (t target) isHTTP() bool { return t.protocol != protoGRPC }

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
	switch t.protocol {
	case protoHTTP:
		return t.url() + " (http)"
	case protoJSON:
		return t.url() + " (http/json)"
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
or a URL. With --protocol http (protobuf) or http/json, HOST:PORT posts to
/v1/traces; a URL names the path itself (http://host:4318/v1/traces), and
its scheme says whether to use TLS. Connections use TLS, checked against
the system's roots (SSL_CERT_FILE or SSL_CERT_DIR name others), unless
--insecure or an http:// URL asks for plaintext.

The OpenTelemetry exporter variables are read as the SDK's exporters read
them, and a flag given wins over its variable:
  OTEL_EXPORTER_OTLP_ENDPOINT         a base URL; OTLP/HTTP appends /v1/traces
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  the URL, used as it is
  OTEL_EXPORTER_OTLP_PROTOCOL         grpc, http/protobuf or http/json
  OTEL_EXPORTER_OTLP_HEADERS          key=value,key2=value2 (values %-encoded);
                                      --header adds to them, and wins per key
  OTEL_EXPORTER_OTLP_INSECURE         true: plaintext
  OTEL_EXPORTER_OTLP_TIMEOUT          milliseconds (--timeout)
  OTEL_EXPORTER_OTLP_COMPRESSION      gzip or none
  OTEL_EXPORTER_OTLP_CERTIFICATE      a PEM file of trusted roots
  OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE, _CLIENT_KEY   a client certificate
Each OTEL_EXPORTER_OTLP_TRACES_* form wins over the generic one. Without
--protocol or a variable, the protocol is grpc.

A server that answers in plaintext where TLS was asked (or the other way
round), an untrusted certificate, or a refused connection fails at once
with a hint, rather than after the retries.

--shift-to-now moves every timestamp of each input by the same amount, so
that its run ends now, keeping the times within it: Jaeger's trace search
looks back an hour by default and never finds a run recorded last month.

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
spans are still sent); 2 on a usage error, an unreadable file (nothing is
sent), or a TLS setting the server contradicts (plaintext against TLS, or
an untrusted certificate); 3 when the endpoint refused spans or could not
be reached. Sending stops at the first request that fails; the spans of
earlier requests have been delivered.`,
		Example: `  agenttrace send run.jsonl --endpoint 127.0.0.1:4317 --insecure
  agenttrace send run.jsonl --endpoint 127.0.0.1:4317 --insecure --shift-to-now
  agenttrace send traces.json --endpoint otlp.example.com:443 --header authorization="Bearer $TOKEN"
  agenttrace send runs/*.jsonl --protocol http --endpoint http://127.0.0.1:4318/v1/traces
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_EXPORTER_OTLP_PROTOCOL=http/json agenttrace send run.jsonl`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs = args
			o.set = func(flag string) bool { return cmd.Flags().Changed(flag) }
			p, err := o.plan(osEnv)
			if err != nil {
				return err
			}
			return e.send(cmd.Context(), p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "", "where to send: HOST:PORT, or a URL (required, unless OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is set)")
	f.StringVar(&o.protocol, "protocol", protoGRPC, "OTLP transport: grpc, http (protobuf over HTTP, also http/protobuf) or http/json")
	f.BoolVar(&o.insecure, "insecure", false, "plaintext instead of TLS")
	f.StringArrayVar(&o.headers, "header", nil, "a request header (gRPC metadata) as key=value; repeatable")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long one attempt of a request may take")
	f.DurationVar(&o.retryMax, "retry-max-elapsed", 30*time.Second, "how long to keep retrying a request; 0 disables retries")
	f.StringVar(&o.compression, "compression", "gzip", "request compression: gzip or none")
	f.IntVar(&o.batchSpans, "batch-spans", defaultBatchSpans, "at most this many spans per request")
	f.BoolVar(&o.shiftToNow, "shift-to-now", false, "move each input's timestamps so that its run ends now (relative times kept)")
	e.redactFlags(cmd)
	return cmd
}

// plan checks the flags and resolves them against the OTLP exporter
// variables of env, so a usage error is reported before any input is
// read or anything sent.
func (o sendOpts) plan(env otlpEnv) (*sendPlan, error) {
	if err := checkStdin(o.inputs); err != nil {
		return nil, err
	}
	set := o.set
	if set == nil {
		set = func(string) bool { return false }
	}

	protocol := protoGRPC
	if set("protocol") {
		p, ok := protocols[o.protocol]
		if !ok {
			return nil, usageErrorf("--protocol %q: want grpc, http (or http/protobuf) or http/json", o.protocol)
		}
		protocol = p
	} else if p, err := env.protocol(); err != nil {
		return nil, err
	} else if p != "" {
		protocol = p
	}

	if !set("timeout") {
		d, err := env.timeout()
		if err != nil {
			return nil, err
		}
		if d > 0 {
			o.timeout = d
		}
	}
	if o.timeout <= 0 {
		return nil, usageErrorf("--timeout %s: want more than 0", o.timeout)
	}
	if o.retryMax < 0 {
		return nil, usageErrorf("--retry-max-elapsed %s: want 0 or more", o.retryMax)
	}
	if !set("compression") {
		c, err := env.compression()
		if err != nil {
			return nil, err
		}
		if c != "" {
			o.compression = c
		}
	}
	if o.compression != "gzip" && o.compression != "none" {
		return nil, usageErrorf("--compression %q: want gzip or none", o.compression)
	}
	if o.batchSpans < 1 {
		return nil, usageErrorf("--batch-spans %d: want 1 or more", o.batchSpans)
	}

	t, err := o.resolveTarget(protocol, env)
	if err != nil {
		return nil, err
	}
	headers, err := env.headers()
	if err != nil {
		return nil, err
	}
	flagHeaders, err := parseHeaders(o.headers)
	if err != nil {
		return nil, err
	}
	headers = mergeHeaders(headers, flagHeaders)
	p := &sendPlan{sendOpts: o, target: t, headers: headers, now: time.Now()}
	if !t.insecure {
		if p.tls, err = env.tlsConfig(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// resolveTarget is where to send: --endpoint, else the endpoint
// variables; plaintext or TLS by --insecure, else the URL's scheme, else
// the insecure variables. For an endpoint from a variable, the insecure
// variables override its scheme, as in the SDK.
func (o sendOpts) resolveTarget(protocol string, env otlpEnv) (target, error) {
	if o.set("endpoint") {
		if o.endpoint == "" {
			return target{}, usageErrorf("--endpoint is required (HOST:PORT, e.g. 127.0.0.1:4317)")
		}
		t, err := parseEndpoint(o.endpoint, protocol)
		if err != nil {
			return t, err
		}
		switch {
		case t.scheme == "https" && o.set("insecure") && o.insecure:
			return t, usageErrorf("--endpoint %q is https, which contradicts --insecure", o.endpoint)
		case t.scheme != "":
			// The URL's scheme says it.
		case o.set("insecure"):
			t.insecure = o.insecure
		default:
			t.insecure, _ = env.insecure()
		}
		return t, nil
	}
	t, ok, err := env.endpoint(protocol)
	if err != nil {
		return t, err
	}
	if !ok {
		return t, usageErrorf("--endpoint is required (HOST:PORT, e.g. 127.0.0.1:4317), or %s", envEndpoint)
	}
	if o.set("insecure") {
		t.insecure = o.insecure
	} else if insecure, set := env.insecure(); set {
		t.insecure = insecure
	}
	return t, nil
}

// mergeHeaders is env's headers with flags' added; a flag's key wins
// over the same key (in any case) from env.
func mergeHeaders(env, flags map[string]string) map[string]string {
	out := make(map[string]string, len(env)+len(flags))
	for k, v := range env {
		out[k] = v
	}
	for k, v := range flags {
		for ek := range out {
			if strings.EqualFold(ek, k) {
				delete(out, ek)
			}
		}
		out[k] = v
	}
	return out
}

// parseEndpoint reads --endpoint: HOST:PORT, or an http:// or https://
// URL whose scheme decides TLS and, for OTLP/HTTP, whose path is the one
// posted to. The OTLP clients would accept more (and fill in defaults
// silently); checking here turns a typo into a usage error instead of a
// connection that fails after the retries.
func parseEndpoint(s, protocol string) (target, error) {
	t := target{protocol: protocol}
	if !strings.Contains(s, "://") {
		if err := checkHostPort(s); err != nil {
			return t, usageErrorf("--endpoint %q: %v", s, err)
		}
		t.hostPort = s
		if t.isHTTP() {
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
	default:
		return t, usageErrorf("--endpoint %q: want HOST:PORT or an http:// or https:// URL", s)
	}
	t.scheme = u.Scheme
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return t, usageErrorf("--endpoint %q: a user, query or fragment cannot be sent over OTLP", s)
	}
	if t.hostPort, err = hostPortOf(u); err != nil {
		return t, usageErrorf("--endpoint %q: %v", s, err)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	switch {
	case t.isHTTP() && path == "":
		t.urlPath = "/v1/traces"
	case t.isHTTP():
		t.urlPath = path
	case path != "":
		// gRPC has no request path; a URL with one is most likely the
		// OTLP/HTTP endpoint given with the wrong --protocol.
		return t, usageErrorf("--endpoint %q: a gRPC endpoint has no path (for OTLP/HTTP, add --protocol http)", s)
	}
	return t, nil
}

// hostPortOf is the host:port of an http or https URL, with the scheme's
// port when the URL has none.
func hostPortOf(u *url.URL) (string, error) {
	hp := u.Host
	if u.Port() == "" {
		hp = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	return hp, checkHostPort(hp)
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

// newClient makes the OTLP client for p, watched by w. Every setting the
// clients would otherwise take from OTEL_EXPORTER_OTLP_* variables is
// given explicitly, as plan resolved it (flags over variables), in a
// form that overrides the clients' own reading of them.
func newClient(p *sendPlan, w *connWatch) otlptrace.Client {
	if p.target.isHTTP() {
		compression := otlptracehttp.NoCompression
		if p.compression == "gzip" {
			compression = otlptracehttp.GzipCompression
		}
		encoding := otlptracehttp.EncodingProtobuf
		if p.target.protocol == protoJSON {
			encoding = otlptracehttp.EncodingJSON
		}
		return otlptracehttp.NewClient(
			// A URL sets the host, path and scheme (so TLS or not) at once,
			// whatever OTEL_EXPORTER_OTLP_INSECURE says.
			otlptracehttp.WithEndpointURL(p.target.url()),
			otlptracehttp.WithEncoding(encoding),
			otlptracehttp.WithHeaders(p.headers),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig(p.retry())),
			otlptracehttp.WithCompression(compression),
			// The client's TLS settings and timeout (this is
			// http.Client.Timeout: it bounds one attempt) are those of
			// the HTTP client, which overrides the variables'; nil TLS
			// settings undo what the certificate variables set.
			otlptracehttp.WithTLSClientConfig(nil),
			otlptracehttp.WithHTTPClient(w.httpClient(p.tls, p.timeout)),
		)
	}
	// Transport credentials take precedence over the client's insecure
	// flag and over certificates named by variables, so both cases set
	// them.
	creds := insecure.NewCredentials()
	if p.tls != nil {
		creds = watchedCreds{TransportCredentials: credentials.NewTLS(p.tls), w: w}
	}
	// "identity" is gRPC's name for no compression; given as the last
	// call option, it also wins over OTEL_EXPORTER_OTLP_COMPRESSION=gzip,
	// which the client turns into an earlier one.
	compressor := encoding.Identity
	if p.compression == "gzip" {
		compressor = "gzip"
	}
	return otlptracegrpc.NewClient(
		// passthrough: the address goes to the dialer as it is, which
		// tries each of a name's addresses itself, so a refusal it
		// reports is the endpoint's, not one address's.
		otlptracegrpc.WithEndpoint("passthrough:///"+p.target.hostPort),
		otlptracegrpc.WithTLSCredentials(creds),
		otlptracegrpc.WithHeaders(p.headers),
		// The gRPC client's own timeout bounds a request with all its
		// retries. It is turned off so that --timeout means one attempt
		// for both protocols (the interceptor sets it) and the retries are
		// bounded by --retry-max-elapsed alone.
		otlptracegrpc.WithTimeout(0),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(p.retry())),
		otlptracegrpc.WithDialOption(
			grpc.WithContextDialer(w.dial),
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
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watch := newConnWatch(p.target, cancel)
	client := newClient(p, watch)
	if err := client.Start(ctx); err != nil {
		return &exitError{code: exitUnsent, err: fmt.Errorf("send to %s: %w", p.target, err)}
	}
	defer func() {
		// Stop only closes the connection once the requests are done;
		// bound it anyway, since an endpoint may hang up slowly.
		stopCtx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		_ = client.Stop(stopCtx)
		watch.close()
	}()

	var total sendCount
	for _, src := range all.sources {
		n, shift, err := sendSource(ctx, client, src, p)
		total.spans += n.spans
		total.requests += n.requests
		if cp := watch.found(); err != nil && cp != nil {
			// The one line that says what to do (it names the endpoint);
			// what was sent before, only when something was.
			msg := fmt.Errorf("send: %w", cp)
			if total.spans > 0 {
				msg = fmt.Errorf("%w (%s in %s sent before)", msg, plural(total.spans, "span"), plural(total.requests, "request"))
			}
			return &exitError{code: cp.exitCode(), err: msg}
		}
		if err != nil {
			return &exitError{code: exitUnsent, err: fmt.Errorf("send to %s: %w (%s in %s sent before)",
				p.target, err, plural(total.spans, "span"), plural(total.requests, "request"))}
		}
		line := fmt.Sprintf("%s: %s in %s", src.name, plural(n.spans, "span"), plural(n.requests, "request"))
		if p.shiftToNow {
			line += fmt.Sprintf(", shifted %s later", shift.Round(time.Second))
		}
		fmt.Fprintln(e.stdout, line)
	}
	if _, err := fmt.Fprintf(e.stdout, "sent %s in %s to %s\n", plural(total.spans, "span"), plural(total.requests, "request"), p.target); err != nil {
		return ioError(fmt.Errorf("write standard output: %w", err))
	}
	return e.noteSkipped(all)
}

// sendSource sends the spans of one input, batch by batch, and returns
// what was delivered before any failure, and how far --shift-to-now moved
// the input's times.
func sendSource(ctx context.Context, client otlptrace.Client, src *source, p *sendPlan) (sendCount, time.Duration, error) {
	var n sendCount
	td := converter.ToTraces(src.records)
	var shift time.Duration
	if p.shiftToNow {
		shift = shiftToNow(td, p.now)
	}
	rss, err := toProto(td)
	if err != nil {
		return n, shift, fmt.Errorf("%s: %w", src.name, err)
	}
	reqs := batches(rss, p.batchSpans, maxBatchBytes)
	for i, req := range reqs {
		spans := spanCount(req)
		if err := client.UploadTraces(ctx, req); err != nil {
			return n, shift, fmt.Errorf("request %d of %d (%s of %s): %w", i+1, len(reqs), plural(spans, "span"), src.name, err)
		}
		n.spans += spans
		n.requests++
	}
	return n, shift, nil
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
