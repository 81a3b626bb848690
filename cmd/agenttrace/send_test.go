package main

import (
	"compress/gzip"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// The inputs most send tests use: an artifact (a two-agent run with a
// failed tool call, 12 spans) and an OTLP/JSON file.
const (
	sendArtifact = "../../testdata/golden/agent-run.jsonl"
	sendOTLP     = "../../testdata/otlp/conversation.json"
)

// received is what a test receiver got: one entry per request.
type received struct {
	mu       sync.Mutex
	requests []ptrace.Traces
	headers  []map[string][]string // HTTP headers, or gRPC metadata
	problems []string              // what the receiver found wrong with a request
	encoding []string              // the compression of each request ("" for none)
}

// add records one request and returns its number, from 0.
func (r *received) add(td ptrace.Traces, h map[string][]string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, td)
	r.headers = append(r.headers, h)
	return len(r.requests) - 1
}

func (r *received) problem(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, fmt.Sprintf(format, a...))
}

// snapshot returns the requests and headers so far, and fails the test
// on any problem a receiver noted.
func (r *received) snapshot(t *testing.T) ([]ptrace.Traces, []map[string][]string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Empty(t, r.problems, "the receiver found problems with the requests")
	return append([]ptrace.Traces(nil), r.requests...), append([]map[string][]string(nil), r.headers...)
}

// encodings returns the compression of each request so far.
func (r *received) encodings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.encoding...)
}

// spans returns the canonical form of every span received, over all
// requests.
func (r *received) spans(t *testing.T) []string {
	t.Helper()
	reqs, _ := r.snapshot(t)
	all := ptrace.NewTraces()
	for _, td := range reqs {
		td.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
	}
	return ptracecmp.Spans(all)
}

// grpcReceiver is an OTLP/gRPC trace receiver on a loopback port, served
// by the collector's own pdata service definition.
type grpcReceiver struct {
	ptraceotlp.UnimplementedGRPCServer
	received
	addr string
	// respond answers the nth request (from 0); nil accepts every request.
	respond func(n int) (ptraceotlp.ExportResponse, error)
}

func startGRPCReceiver(t *testing.T, respond func(n int) (ptraceotlp.ExportResponse, error)) *grpcReceiver {
	t.Helper()
	return startGRPCReceiverWith(t, respond)
}

// startGRPCReceiverWith is startGRPCReceiver with server options (TLS
// credentials, say).
func startGRPCReceiverWith(t *testing.T, respond func(n int) (ptraceotlp.ExportResponse, error), opts ...grpc.ServerOption) *grpcReceiver {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rcv := &grpcReceiver{addr: lis.Addr().String(), respond: respond}
	srv := grpc.NewServer(append(opts, grpc.StatsHandler(compressionRecorder{&rcv.received}))...)
	ptraceotlp.RegisterGRPCServer(srv, rcv)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return rcv
}

// compressionRecorder is a gRPC stats handler that notes the compression
// of each request, which the service itself does not see.
type compressionRecorder struct{ r *received }

func (c compressionRecorder) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return ctx
}

func (c compressionRecorder) HandleRPC(_ context.Context, s stats.RPCStats) {
	if h, ok := s.(*stats.InHeader); ok {
		enc := h.Compression
		if enc == encoding.Identity {
			enc = "" // what a client sends for none
		}
		c.r.mu.Lock()
		c.r.encoding = append(c.r.encoding, enc)
		c.r.mu.Unlock()
	}
}

func (c compressionRecorder) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}

func (c compressionRecorder) HandleConn(context.Context, stats.ConnStats) {}

// Export implements ptraceotlp.GRPCServer.
func (g *grpcReceiver) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td) // the request's memory belongs to the server
	n := g.add(td, md)
	if g.respond != nil {
		return g.respond(n)
	}
	return ptraceotlp.NewExportResponse(), nil
}

// httpReceiver is an OTLP/HTTP trace receiver on a loopback port. It
// checks what the specification asks of a request: POST, a protobuf or
// JSON content type, and a gzip body when the client says so. Each
// request's path and content type are noted.
type httpReceiver struct {
	received
	srv    *httptest.Server
	path   string // "": any path
	status int    // non-zero: refuse every request with this status
	// paths and types are each request's path and content type.
	paths, types []string
}

func startHTTPReceiver(t *testing.T, path string, status int) *httpReceiver {
	t.Helper()
	rcv := &httpReceiver{path: path, status: status}
	rcv.srv = httptest.NewServer(http.HandlerFunc(rcv.serve)) // binds 127.0.0.1
	t.Cleanup(rcv.srv.Close)
	return rcv
}

// startTLSHTTPReceiver is startHTTPReceiver over TLS, with httptest's
// certificate; certFile is a PEM file of it, for clients to trust.
func startTLSHTTPReceiver(t *testing.T, path string) (rcv *httpReceiver, certFile string) {
	t.Helper()
	rcv = &httpReceiver{path: path}
	rcv.srv = httptest.NewTLSServer(http.HandlerFunc(rcv.serve))
	t.Cleanup(rcv.srv.Close)
	return rcv, certPEM(t, rcv.srv.Certificate())
}

// certPEM writes cert to a PEM file and returns its path.
func certPEM(t *testing.T, cert *x509.Certificate) string {
	t.Helper()
	return writeTemp(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})))
}

func (h *httpReceiver) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || (h.path != "" && r.URL.Path != h.path) {
		h.problem("%s %s, want POST %s", r.Method, r.URL.Path, h.path)
		http.NotFound(w, r)
		return
	}
	ct := r.Header.Get("Content-Type")
	if ct != "application/x-protobuf" && ct != "application/json" {
		h.problem("Content-Type %q", ct)
		http.Error(w, "want application/x-protobuf or application/json", http.StatusUnsupportedMediaType)
		return
	}
	body := io.Reader(r.Body)
	enc := r.Header.Get("Content-Encoding")
	h.mu.Lock()
	h.encoding = append(h.encoding, enc)
	h.paths = append(h.paths, r.URL.Path)
	h.types = append(h.types, ct)
	h.mu.Unlock()
	if enc == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			h.problem("gzip: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		h.problem("read body: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := ptraceotlp.NewExportRequest()
	if ct == "application/json" {
		err = req.UnmarshalJSON(raw)
	} else {
		err = req.UnmarshalProto(raw)
	}
	if err != nil {
		h.problem("decode body: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.add(req.Traces(), r.Header.Clone())
	if h.status != 0 {
		http.Error(w, "refused by the test receiver", h.status)
		return
	}
	var resp []byte
	if ct == "application/json" {
		resp, err = ptraceotlp.NewExportResponse().MarshalJSON()
	} else {
		resp, err = ptraceotlp.NewExportResponse().MarshalProto()
	}
	if err != nil {
		h.problem("encode response: %v", err)
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(resp)
}

// requests returns each request's path and content type.
func (h *httpReceiver) requests() (paths, types []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.paths...), append([]string(nil), h.types...)
}

// hostPort is the receiver's address as --endpoint takes it.
func (h *httpReceiver) hostPort() string { return h.srv.Listener.Addr().String() }

// wantSpans is the canonical form of every span of the files, read
// without the CLI: artifacts with readArtifact, OTLP files with pdata.
func wantSpans(t *testing.T, paths ...string) []string {
	t.Helper()
	var all []string
	for _, path := range paths {
		if strings.HasSuffix(path, ".jsonl") {
			all = append(all, ptracecmp.Spans(readArtifact(t, path))...)
		} else {
			all = append(all, spansOf(t, path)...)
		}
	}
	require.NotEmpty(t, all)
	// ptracecmp.Spans sorts each file's spans; several files need one sort.
	slices.Sort(all)
	return all
}

// readArtifact reads an artifact with artifact.Reader and makes OTLP of
// it with artifact.ToTraces, as send does after its own loading.
func readArtifact(t *testing.T, path string) ptrace.Traces {
	t.Helper()
	recs, _ := artifacttest.Read(t, path)
	return artifact.ToTraces(recs)
}

// TestSendGRPC: every span of an artifact and of an OTLP file arrives at
// an OTLP/gRPC receiver exactly (ids, parent, name, attributes, resource,
// scope), with the headers as metadata, and the counts printed are right.
func TestSendGRPC(t *testing.T) {
	t.Parallel()
	rcv := startGRPCReceiver(t, nil)
	r := agenttrace(t, "", "send", sendArtifact, sendOTLP, "--endpoint", rcv.addr, "--insecure",
		"--header", "X-Tenant=acme", "--header", "authorization=Bearer a=b")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)

	otlpSpans := len(spansOf(t, sendOTLP))
	assert.Equal(t, []string{
		sendArtifact + ": 12 spans in 1 request",
		fmt.Sprintf("%s: %d spans in 1 request", sendOTLP, otlpSpans),
		fmt.Sprintf("sent %d spans in 2 requests to %s (grpc)", 12+otlpSpans, rcv.addr),
	}, lines(r.stdout))

	assert.Equal(t, wantSpans(t, sendArtifact, sendOTLP), rcv.spans(t))
	_, headers := rcv.snapshot(t)
	require.Len(t, headers, 2)
	assert.Equal(t, []string{"gzip", "gzip"}, rcv.encodings(), "gzip by default")
	for _, md := range headers {
		// gRPC metadata keys are lowercase.
		assert.Equal(t, []string{"acme"}, md["x-tenant"])
		assert.Equal(t, []string{"Bearer a=b"}, md["authorization"])
	}
}

// TestSendHTTP: the same over OTLP/HTTP, to the default path for
// HOST:PORT and to the path of a URL, gzip-compressed unless told not to.
func TestSendHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		path     string // where the receiver listens
		endpoint func(hostPort string) string
		args     []string
		encoding string
		shown    func(hostPort string) string
	}{
		{"host:port", "/v1/traces", func(hp string) string { return hp }, []string{"--insecure"}, "gzip",
			func(hp string) string { return "http://" + hp + "/v1/traces" }},
		{"url", "/otlp/v1/traces", func(hp string) string { return "http://" + hp + "/otlp/v1/traces" }, []string{"--compression", "none"}, "",
			func(hp string) string { return "http://" + hp + "/otlp/v1/traces" }},
		{"url without path", "/v1/traces", func(hp string) string { return "http://" + hp + "/" }, nil, "gzip",
			func(hp string) string { return "http://" + hp + "/v1/traces" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rcv := startHTTPReceiver(t, tc.path, 0)
			args := append([]string{"send", sendArtifact, "--protocol", "http", "--endpoint", tc.endpoint(rcv.hostPort()),
				"--header", "X-Tenant=acme"}, tc.args...)
			r := agenttrace(t, "", args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, []string{
				sendArtifact + ": 12 spans in 1 request",
				"sent 12 spans in 1 request to " + tc.shown(rcv.hostPort()) + " (http)",
			}, lines(r.stdout))
			assert.Equal(t, wantSpans(t, sendArtifact), rcv.spans(t))
			_, headers := rcv.snapshot(t)
			require.Len(t, headers, 1)
			assert.Equal(t, "acme", http.Header(headers[0]).Get("X-Tenant"))
			assert.Equal(t, []string{tc.encoding}, rcv.encodings())
		})
	}
}

// TestSendBatches: --batch-spans splits a file into requests, in order,
// each under its own resource and scope, and nothing is lost or repeated.
func TestSendBatches(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"grpc", "http"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			var (
				rcv      *received
				endpoint string
			)
			if protocol == "grpc" {
				g := startGRPCReceiver(t, nil)
				rcv, endpoint = &g.received, g.addr
			} else {
				h := startHTTPReceiver(t, "/v1/traces", 0)
				rcv, endpoint = &h.received, h.hostPort()
			}
			r := agenttrace(t, "", "send", sendArtifact, "--protocol", protocol, "--endpoint", endpoint, "--insecure", "--batch-spans", "5")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, sendArtifact+": 12 spans in 3 requests", lines(r.stdout)[0])
			assert.Contains(t, r.stdout, "sent 12 spans in 3 requests to ")

			reqs, _ := rcv.snapshot(t)
			require.Len(t, reqs, 3)
			for i, want := range []int{5, 5, 2} {
				assert.Equal(t, want, reqs[i].SpanCount(), "request %d", i)
			}
			assert.Equal(t, wantSpans(t, sendArtifact), rcv.spans(t))
		})
	}
}

// TestSendRefused: a permanent refusal (gRPC INVALID_ARGUMENT, HTTP 400)
// fails at once, without retries, with exit 3 and a message naming the
// endpoint and what it said; a partial success is a failure too.
func TestSendRefused(t *testing.T) {
	t.Parallel()
	t.Run("grpc", func(t *testing.T) {
		t.Parallel()
		rcv := startGRPCReceiver(t, func(int) (ptraceotlp.ExportResponse, error) {
			return ptraceotlp.NewExportResponse(), status.Error(codes.InvalidArgument, "span names must shout")
		})
		r := agenttrace(t, "", "send", sendArtifact, "--endpoint", rcv.addr, "--insecure")
		assert.Equal(t, exitUnsent, r.code)
		assert.Empty(t, r.stdout)
		assert.Contains(t, r.stderr, "agenttrace: send to "+rcv.addr+" (grpc): request 1 of 1 (12 spans of "+sendArtifact+")")
		assert.Contains(t, r.stderr, "InvalidArgument")
		assert.Contains(t, r.stderr, "span names must shout")
		assert.Contains(t, r.stderr, "(0 spans in 0 requests sent before)")
		reqs, _ := rcv.snapshot(t)
		assert.Len(t, reqs, 1, "a permanent error is not retried")
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		rcv := startHTTPReceiver(t, "/v1/traces", http.StatusBadRequest)
		r := agenttrace(t, "", "send", sendArtifact, "--protocol", "http", "--endpoint", rcv.hostPort(), "--insecure")
		assert.Equal(t, exitUnsent, r.code)
		assert.Contains(t, r.stderr, "agenttrace: send to "+rcv.srv.URL+"/v1/traces (http): request 1 of 1")
		assert.Contains(t, r.stderr, "400 Bad Request")
		assert.Contains(t, r.stderr, "refused by the test receiver")
		reqs, _ := rcv.snapshot(t)
		assert.Len(t, reqs, 1, "a permanent error is not retried")
	})
	t.Run("partial success", func(t *testing.T) {
		t.Parallel()
		rcv := startGRPCReceiver(t, func(int) (ptraceotlp.ExportResponse, error) {
			resp := ptraceotlp.NewExportResponse()
			resp.PartialSuccess().SetRejectedSpans(2)
			resp.PartialSuccess().SetErrorMessage("2 spans too old")
			return resp, nil
		})
		r := agenttrace(t, "", "send", sendArtifact, "--endpoint", rcv.addr, "--insecure")
		assert.Equal(t, exitUnsent, r.code)
		assert.Contains(t, r.stderr, "partial success: 2 spans too old (2 spans rejected)")
	})
	t.Run("second request", func(t *testing.T) {
		t.Parallel()
		rcv := startGRPCReceiver(t, func(n int) (ptraceotlp.ExportResponse, error) {
			if n == 1 {
				return ptraceotlp.NewExportResponse(), status.Error(codes.PermissionDenied, "quota")
			}
			return ptraceotlp.NewExportResponse(), nil
		})
		r := agenttrace(t, "", "send", sendArtifact, "--endpoint", rcv.addr, "--insecure", "--batch-spans", "5")
		assert.Equal(t, exitUnsent, r.code)
		assert.Contains(t, r.stderr, "request 2 of 3 (5 spans of "+sendArtifact+")")
		assert.Contains(t, r.stderr, "(5 spans in 1 request sent before)")
		reqs, _ := rcv.snapshot(t)
		assert.Len(t, reqs, 2, "sending stops at the first failure")
	})
}

// TestSendRetries: a retryable failure (gRPC UNAVAILABLE, HTTP 503) is
// retried, and the spans then arrive once.
func TestSendRetries(t *testing.T) {
	t.Parallel()
	rcv := startGRPCReceiver(t, func(n int) (ptraceotlp.ExportResponse, error) {
		if n == 0 {
			return ptraceotlp.NewExportResponse(), status.Error(codes.Unavailable, "warming up")
		}
		return ptraceotlp.NewExportResponse(), nil
	})
	r := agenttrace(t, "", "send", sendArtifact, "--endpoint", rcv.addr, "--insecure")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "sent 12 spans in 1 request to ")
	reqs, _ := rcv.snapshot(t)
	require.Len(t, reqs, 2, "one refused attempt, one accepted")
	assert.Equal(t, wantSpans(t, sendArtifact), ptracecmp.Spans(reqs[1]))
}

// TestSendUnreachable: an endpoint that accepts connections and never
// answers fails with exit 3 and a message naming it, within the timeout
// and retry budget given. (A refused connection fails at once:
// TestSendFailsFast.)
func TestSendUnreachable(t *testing.T) {
	t.Parallel()
	silent := silentListener(t)

	tests := []struct {
		name, protocol, endpoint string
		args                     []string
		stderr                   string
	}{
		{"grpc silent", "grpc", silent, []string{"--timeout", "300ms", "--retry-max-elapsed", "0"}, "DeadlineExceeded"},
		{"http silent", "http", silent, []string{"--timeout", "300ms", "--retry-max-elapsed", "0"}, `deadline exceeded|Client.Timeout exceeded`},
		{"grpc silent, retried", "grpc", silent, []string{"--timeout", "300ms", "--retry-max-elapsed", "1s"}, "max retry time elapsed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			args := append([]string{"send", sendArtifact, "--protocol", tc.protocol, "--endpoint", tc.endpoint, "--insecure"}, tc.args...)
			r := agenttrace(t, "", args...)
			took := time.Since(start)
			assert.Equal(t, exitUnsent, r.code, r.stderr)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "agenttrace: send to ")
			assert.Contains(t, r.stderr, tc.endpoint)
			assert.Regexp(t, tc.stderr, r.stderr)
			// The budget is at most 1s of retries plus a last attempt; the
			// rest is slack for a loaded machine under -race.
			assert.Less(t, took, 8*time.Second)
		})
	}
}

// silentListener accepts TCP connections on a loopback port and never
// writes to them, like a hung server; it returns the address.
func silentListener(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		lis.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return lis.Addr().String()
}

// TestSendUsage: a command line that cannot be run is a usage error
// (exit 2) before anything is read or sent.
func TestSendUsage(t *testing.T) {
	t.Parallel()
	rcv := startGRPCReceiver(t, nil)
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no input", []string{"--endpoint", rcv.addr}, "missing input"},
		{"no endpoint", []string{sendArtifact}, "--endpoint is required"},
		{"endpoint without port", []string{sendArtifact, "--endpoint", "localhost"}, `--endpoint "localhost": want HOST:PORT`},
		{"endpoint without host", []string{sendArtifact, "--endpoint", ":4317"}, "the host is missing"},
		{"port out of range", []string{sendArtifact, "--endpoint", "127.0.0.1:70000"}, `port "70000"`},
		{"port not a number", []string{sendArtifact, "--endpoint", "127.0.0.1:otlp"}, `port "otlp"`},
		{"unknown scheme", []string{sendArtifact, "--endpoint", "ftp://127.0.0.1:4317"}, "want HOST:PORT or an http:// or https:// URL"},
		{"grpc url with a path", []string{sendArtifact, "--endpoint", "http://127.0.0.1:4318/v1/traces"}, "a gRPC endpoint has no path"},
		{"https and --insecure", []string{sendArtifact, "--endpoint", "https://127.0.0.1:4318", "--insecure"}, "contradicts --insecure"},
		{"url with a query", []string{sendArtifact, "--protocol", "http", "--endpoint", "http://127.0.0.1:4318/v1/traces?x=1"}, "query"},
		{"bad protocol", []string{sendArtifact, "--endpoint", rcv.addr, "--protocol", "udp"}, `--protocol "udp": want grpc, http`},
		{"header without =", []string{sendArtifact, "--endpoint", rcv.addr, "--header", "X-Tenant"}, `--header "X-Tenant": want key=value`},
		{"header without key", []string{sendArtifact, "--endpoint", rcv.addr, "--header", "=v"}, "not a valid header name"},
		{"header with a space", []string{sendArtifact, "--endpoint", rcv.addr, "--header", "X Tenant=v"}, "not a valid header name"},
		{"header with a newline", []string{sendArtifact, "--endpoint", rcv.addr, "--header", "X-Tenant=a\nb"}, "line break"},
		{"header twice", []string{sendArtifact, "--endpoint", rcv.addr, "--header", "X-Tenant=a", "--header", "x-tenant=b"}, "given twice"},
		{"zero timeout", []string{sendArtifact, "--endpoint", rcv.addr, "--timeout", "0s"}, "--timeout 0s: want more than 0"},
		{"negative retry", []string{sendArtifact, "--endpoint", rcv.addr, "--retry-max-elapsed", "-1s"}, "want 0 or more"},
		{"bad compression", []string{sendArtifact, "--endpoint", rcv.addr, "--compression", "zstd"}, `--compression "zstd"`},
		{"zero batch", []string{sendArtifact, "--endpoint", rcv.addr, "--batch-spans", "0"}, "--batch-spans 0"},
		{"stdin twice", []string{"-", "-", "--endpoint", rcv.addr}, "standard input (-) given more than once"},
		{"unknown flag", []string{sendArtifact, "--endpoint", rcv.addr, "--nope"}, "unknown flag: --nope"},
		{"bad duration", []string{sendArtifact, "--endpoint", rcv.addr, "--timeout", "soon"}, `invalid argument "soon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := agenttrace(t, "", append([]string{"send"}, tc.args...)...)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.Contains(t, r.stderr, "Run 'agenttrace send --help' for usage.")
			assert.Empty(t, r.stdout)
		})
	}
	reqs, _ := rcv.snapshot(t)
	assert.Empty(t, reqs, "a usage error sends nothing")
}

// TestSendInputProblems: a missing file sends nothing (exit 2); bad
// lines are reported with file:line and skipped, the rest is sent, and
// the exit status is 1. Standard input works as an input.
func TestSendInputProblems(t *testing.T) {
	t.Parallel()
	rcv := startGRPCReceiver(t, nil)

	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	r := agenttrace(t, "", "send", sendArtifact, missing, "--endpoint", rcv.addr, "--insecure")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, missing)
	assert.Empty(t, r.stdout)
	reqs, _ := rcv.snapshot(t)
	assert.Empty(t, reqs, "nothing is sent when an input cannot be read")

	bad := writeTemp(t, "bad.jsonl", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}
{"kind":"call","tool":"a","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true}
{"kind":"call", nope
{"kind":"call","tool":"b","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060709","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:03Z","ok":true}
`)
	r = agenttrace(t, "", "send", bad, "--endpoint", rcv.addr, "--insecure")
	assert.Equal(t, exitInvalid, r.code)
	assert.Contains(t, r.stderr, bad+":3: ")
	assert.Contains(t, r.stderr, bad+": 1 bad line(s) skipped")
	assert.Equal(t, []string{bad + ": 2 spans in 1 request", "sent 2 spans in 1 request to " + rcv.addr + " (grpc)"}, lines(r.stdout))

	// Standard input, named as other commands name it.
	r = agenttrace(t, readFile(t, sendArtifact), "send", "-", "--endpoint", rcv.addr, "--insecure")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, stdinName+": 12 spans in 1 request", lines(r.stdout)[0])
	reqs, _ = rcv.snapshot(t)
	require.Len(t, reqs, 2)
	assert.Equal(t, wantSpans(t, sendArtifact), ptracecmp.Spans(reqs[1]))
}
