package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// failFastBudget is how long a mismatch or a refusal may take to be
// reported: the 3 s, though detection takes milliseconds; the
// retries it cuts short would take --retry-max-elapsed, 30 s by default.
const failFastBudget = 3 * time.Second

// runWithin runs the command line and fails the test if it has not
// ended when ctx is done.
func runWithin(ctx context.Context, t *testing.T, args ...string) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- agenttrace(t, "", args...) }()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		t.Fatalf("agenttrace %s: still running after %s", strings.Join(args, " "), failFastBudget)
		return result{}
	}
}

// TestSendFailsFast: a TLS or protocol mismatch in either direction, a certificate
// that does not verify, or a refused connection stops send at once (well
// within 3 s, with the default 30 s of retries), with one line that says
// what to do, exit 2 for a TLS setting to fix and 3 for an endpoint that
// cannot be reached; nothing is delivered.
func TestSendFailsFast(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: listen, note the port, close.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := lis.Addr().String()
	require.NoError(t, lis.Close())

	plainGRPC := startGRPCReceiver(t, nil)
	plainHTTP := startHTTPReceiver(t, "/v1/traces", 0)
	tlsGRPC, _ := startTLSGRPCReceiver(t)
	tlsHTTP, _ := startTLSHTTPReceiver(t, "/v1/traces")

	tests := []struct {
		name   string
		rcv    *received // nil: nothing to check
		addr   string
		args   []string
		code   int
		stderr string
	}{
		{"grpc: TLS to a plaintext server", &plainGRPC.received, plainGRPC.addr, nil, exitUsage,
			"the server at {addr} answered in plaintext: pass --insecure (or OTEL_EXPORTER_OTLP_INSECURE=true), or use an http:// endpoint"},
		{"http: TLS to a plaintext server", &plainHTTP.received, plainHTTP.hostPort(), []string{"--protocol", "http"}, exitUsage,
			"the server at {addr} answered in plaintext: pass --insecure"},
		{"grpc: plaintext to a TLS server", &tlsGRPC.received, tlsGRPC.addr, []string{"--insecure"}, exitUsage,
			"the server at {addr} speaks TLS: drop --insecure (and OTEL_EXPORTER_OTLP_INSECURE), or use an https:// endpoint"},
		{"http: plaintext to a TLS server", &tlsHTTP.received, tlsHTTP.hostPort(), []string{"--protocol", "http/json", "--insecure"}, exitUsage,
			"the server at {addr} speaks TLS"},
		{"grpc: untrusted certificate", &tlsGRPC.received, tlsGRPC.addr, nil, exitUsage,
			"the certificate of the server at {addr} is not trusted (x509: certificate signed by unknown authority): name its CA with OTEL_EXPORTER_OTLP_CERTIFICATE or SSL_CERT_FILE"},
		{"http: untrusted certificate", &tlsHTTP.received, tlsHTTP.hostPort(), []string{"--protocol", "http"}, exitUsage,
			"the certificate of the server at {addr} is not trusted"},
		// The HTTP receiver sees the HTTP/2 preface as a bad request
		// ("PRI *"): nothing to check there but that send stopped.
		{"grpc to an OTLP/HTTP port", nil, plainHTTP.hostPort(), []string{"--insecure"}, exitUsage,
			"the server at {addr} answered in HTTP/1.1, as an OTLP/HTTP receiver does (port 4318 by convention): pass --protocol http"},
		{"http to an OTLP/gRPC port", &plainGRPC.received, plainGRPC.addr, []string{"--protocol", "http", "--insecure"}, exitUsage,
			"the server at {addr} answered in HTTP/2 frames, as an OTLP/gRPC receiver does (port 4317 by convention): pass --protocol grpc"},
		{"http/json to an OTLP/gRPC port", &plainGRPC.received, plainGRPC.addr, []string{"--protocol", "http/json", "--insecure"}, exitUsage,
			"pass --protocol grpc"},
		{"grpc: refused", nil, closed, []string{"--insecure"}, exitUnsent,
			"nothing accepts connections at {addr} (connection refused): is the collector running, on this port?"},
		{"http: refused", nil, closed, []string{"--protocol", "http", "--insecure"}, exitUnsent,
			"nothing accepts connections at {addr} (connection refused)"},
		{"grpc: refused, TLS", nil, closed, nil, exitUnsent, "nothing accepts connections at {addr}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), failFastBudget)
			defer cancel()
			args := append([]string{"send", sendArtifact, "--endpoint", tc.addr}, tc.args...)
			r := runWithin(ctx, t, args...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			assert.Empty(t, r.stdout)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %s", r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, "agenttrace: send: "), r.stderr)
			assert.Contains(t, r.stderr, strings.ReplaceAll(tc.stderr, "{addr}", tc.addr))
			if tc.rcv != nil {
				reqs, _ := tc.rcv.snapshot(t)
				assert.Empty(t, reqs)
			}
		})
	}
}

// TestSendFailsFastLeavesNothing: a send stopped by a connection problem
// leaves no goroutine behind (the clients' connections are closed).
func TestSendFailsFastLeavesNothing(t *testing.T) {
	plain := startGRPCReceiver(t, nil)
	plainHTTP := startHTTPReceiver(t, "/v1/traces", 0)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, args := range [][]string{
		{"--endpoint", plain.addr},
		{"--endpoint", plainHTTP.hostPort(), "--protocol", "http"},
	} {
		r := agenttrace(t, "", append([]string{"send", sendArtifact}, args...)...)
		assert.Equal(t, exitUsage, r.code, r.stderr)
	}
}
