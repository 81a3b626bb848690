package main

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/agenttrace/agenttrace/internal/otlpsend"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// deadEndpoint is an address nothing should be sent to: a case that
// sets it in a variable expects another setting to win over it.
const deadEndpoint = "http://127.0.0.1:9"

// startTLSGRPCReceiver is startGRPCReceiver over TLS, with httptest's
// certificate (for 127.0.0.1); certFile is a PEM file of it.
func startTLSGRPCReceiver(t *testing.T) (rcv *grpcReceiver, certFile string) {
	t.Helper()
	cert := httptest.NewTLSServer(http.NotFoundHandler())
	cfg := &tls.Config{Certificates: cert.TLS.Certificates, MinVersion: tls.VersionTLS12}
	certFile = certPEM(t, cert.Certificate())
	cert.Close()
	return startGRPCReceiverWith(t, nil, grpc.Creds(credentials.NewTLS(cfg))), certFile
}

// sdkSend sends the spans of sendArtifact with the SDK's own client for
// protocol, configured by the environment alone, as an application's
// exporter would be.
func sdkSend(t *testing.T, protocol string) {
	t.Helper()
	rss, err := otlpsend.ToProto(readArtifact(t, sendArtifact))
	require.NoError(t, err)
	var c otlptrace.Client
	if protocol == otlpsend.ProtoGRPC {
		c = otlptracegrpc.NewClient()
	} else {
		c = otlptracehttp.NewClient()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	require.NoError(t, c.UploadTraces(ctx, rss), "the SDK's %s client", protocol)
	require.NoError(t, c.Stop(ctx))
}

// seen is what a receiver saw of one request: what the variables decide.
type seen struct {
	Path, ContentType, Encoding string
	Headers                     map[string]string // the test's own headers
}

// TestSendEnv: each OTEL_EXPORTER_OTLP_* variable does what it does to
// the SDK's own exporters: for each case, send (with the flags given)
// and, where no flag is given, the SDK's client configured by the same
// environment alone deliver the same request (path, content type,
// compression, headers) to a real OTLP receiver, and it is what the
// specification says. Flags win over variables. (Not parallel: it sets
// the process's environment.)
func TestSendEnv(t *testing.T) {
	type receiverKind int
	const (
		plainHTTP receiverKind = iota
		tlsHTTP
		plainGRPC
		tlsGRPC
	)
	tests := []struct {
		name     string
		receiver receiverKind
		// env is the variables; {addr} is the receiver's host:port,
		// {cert} the PEM file of its certificate.
		env  map[string]string
		args []string // flags to send besides the input
		want seen
		// sdk: the SDK's client, given the same environment, sends the
		// same request (false where a flag decides).
		sdk bool
	}{
		{
			name: "endpoint is a base: /v1/traces appended", receiver: plainHTTP, sdk: true,
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}/base/", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: seen{Path: "/base/v1/traces", ContentType: "application/x-protobuf", Encoding: "gzip"},
		},
		{
			name: "traces endpoint used as is, and wins", receiver: plainHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": deadEndpoint, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://{addr}/custom/traces",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
			},
			want: seen{Path: "/custom/traces", ContentType: "application/x-protobuf", Encoding: "gzip"},
		},
		{
			name: "traces endpoint without a path posts to /", receiver: plainHTTP, sdk: true,
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: seen{Path: "/", ContentType: "application/x-protobuf", Encoding: "gzip"},
		},
		{
			name: "http/json", receiver: plainHTTP, sdk: true,
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			want: seen{Path: "/v1/traces", ContentType: "application/json", Encoding: "gzip"},
		},
		{
			name: "traces protocol wins", receiver: plainHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
			},
			want: seen{Path: "/v1/traces", ContentType: "application/json", Encoding: "gzip"},
		},
		{
			name: "headers: comma-separated, percent-decoded, trimmed", receiver: plainHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_HEADERS": "x-tenant=acme, authorization=Bearer%20a%3Db ,x-empty=",
			},
			want: seen{Path: "/v1/traces", ContentType: "application/x-protobuf", Encoding: "gzip",
				Headers: map[string]string{"X-Tenant": "acme", "Authorization": "Bearer a=b", "X-Empty": ""}},
		},
		{
			name: "traces headers replace the generic ones", receiver: plainHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_HEADERS": "x-tenant=acme,x-generic=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-tenant=beta",
			},
			want: seen{Path: "/v1/traces", ContentType: "application/x-protobuf", Encoding: "gzip",
				Headers: map[string]string{"X-Tenant": "beta", "X-Generic": ""}},
		},
		{
			name: "compression none", receiver: plainHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_COMPRESSION": "none",
			},
			want: seen{Path: "/v1/traces", ContentType: "application/x-protobuf"},
		},
		{
			name: "https with the certificate variable", receiver: tlsHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "https://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_CERTIFICATE": "{cert}", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			},
			want: seen{Path: "/v1/traces", ContentType: "application/x-protobuf", Encoding: "gzip"},
		},
		{
			name: "insecure overrides an https endpoint", receiver: plainHTTP, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "https://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_INSECURE": "TRUE",
			},
			want: seen{Path: "/v1/traces", ContentType: "application/x-protobuf", Encoding: "gzip"},
		},
		{
			name: "grpc: http:// endpoint is plaintext, headers as metadata", receiver: plainGRPC, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_HEADERS": "x-tenant=acme", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			},
			want: seen{Encoding: "gzip", Headers: map[string]string{"X-Tenant": "acme"}},
		},
		{
			// The specification wants a URL; the SDK takes a bare
			// HOST:PORT for a host name (url.Parse reads "localhost" as
			// the scheme) and ignores one for an IP address (url.Parse
			// fails). send takes both.
			name: "grpc: HOST:PORT with the insecure variable", receiver: plainGRPC,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_TRACES_INSECURE": "true",
			},
			want: seen{Encoding: "gzip"},
		},
		{
			name: "grpc: TLS with the traces certificate variable", receiver: tlsGRPC, sdk: true,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "https://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": "{cert}",
			},
			want: seen{Encoding: "gzip"},
		},
		// Flags win.
		{
			name: "--endpoint and --protocol win", receiver: plainHTTP,
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": deadEndpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			args: []string{"--endpoint", "http://{addr}/flag/v1/traces", "--protocol", "http/json"},
			want: seen{Path: "/flag/v1/traces", ContentType: "application/json", Encoding: "gzip"},
		},
		{
			name: "--header wins per key, the others stay", receiver: plainHTTP,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_HEADERS": "x-tenant=env,authorization=Basic%20eA",
			},
			args: []string{"--header", "X-Tenant=flag"},
			want: seen{Path: "/v1/traces", ContentType: "application/x-protobuf", Encoding: "gzip",
				Headers: map[string]string{"X-Tenant": "flag", "Authorization": "Basic eA"}},
		},
		{
			name: "--compression and --insecure win", receiver: plainGRPC,
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "{addr}", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_INSECURE": "false", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			},
			args: []string{"--insecure", "--compression", "none"},
			want: seen{},
		},
		{
			name: "--endpoint HOST:PORT takes TLS from the insecure variable", receiver: plainGRPC,
			env:  map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "true"},
			args: []string{"--endpoint", "{addr}"},
			want: seen{Encoding: "gzip"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var (
				rcv      *received
				hr       *httpReceiver
				addr     string
				certFile string
				grpcRcv  bool
			)
			switch tc.receiver {
			case plainHTTP:
				hr = startHTTPReceiver(t, "", 0)
			case tlsHTTP:
				hr, certFile = startTLSHTTPReceiver(t, "")
			case plainGRPC:
				g := startGRPCReceiver(t, nil)
				rcv, addr, grpcRcv = &g.received, g.addr, true
			case tlsGRPC:
				var g *grpcReceiver
				g, certFile = startTLSGRPCReceiver(t)
				rcv, addr, grpcRcv = &g.received, g.addr, true
			}
			if hr != nil {
				rcv, addr = &hr.received, hr.hostPort()
			}
			fill := strings.NewReplacer("{addr}", addr, "{cert}", certFile).Replace
			for k, v := range tc.env {
				t.Setenv(k, fill(v))
			}
			args := []string{"send", sendArtifact, "--retry-max-elapsed", "0"}
			for _, a := range tc.args {
				args = append(args, fill(a))
			}
			r := agenttrace(t, "", args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			if tc.sdk {
				protocol := otlpsend.ProtoHTTP
				if grpcRcv {
					protocol = otlpsend.ProtoGRPC
				}
				sdkSend(t, protocol)
			}

			reqs, headers := rcv.snapshot(t)
			want := 1
			if tc.sdk {
				want = 2
			}
			require.Len(t, reqs, want, "send's request, then the SDK's")
			encodings := rcv.encodings()
			var paths, types []string
			if hr != nil {
				paths, types = hr.requests()
			}
			got := make([]seen, len(reqs))
			for i := range reqs {
				assert.Equal(t, wantSpans(t, sendArtifact), ptracecmp.Spans(reqs[i]), "request %d", i)
				got[i] = seen{Encoding: encodings[i]}
				if hr != nil {
					got[i].Path, got[i].ContentType = paths[i], types[i]
				}
				if tc.want.Headers != nil {
					got[i].Headers = map[string]string{}
					for k := range tc.want.Headers {
						got[i].Headers[k] = headerValue(headers[i], k)
					}
				}
			}
			assert.Equal(t, tc.want, got[0], "what send sent")
			if tc.sdk {
				// The SDK compresses only when told to; send by default.
				sdkWant := tc.want
				sdkWant.Encoding = ""
				if v := tc.env["OTEL_EXPORTER_OTLP_COMPRESSION"]; v == "gzip" {
					sdkWant.Encoding = "gzip"
				}
				assert.Equal(t, sdkWant, got[1], "what the SDK's client sent, under the same environment")
			}
		})
	}
}

// headerValue is header k of an HTTP request or gRPC metadata (whose
// keys are lowercase).
func headerValue(h map[string][]string, k string) string {
	if v := http.Header(h).Get(k); v != "" {
		return v
	}
	if v := h[strings.ToLower(k)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// TestSendEnvTimeout: OTEL_EXPORTER_OTLP_TIMEOUT, in milliseconds, bounds
// an attempt; --timeout wins over it.
func TestSendEnvTimeout(t *testing.T) {
	silent := silentListener(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "200")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+silent)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")

	r := agenttrace(t, "", "send", sendArtifact, "--retry-max-elapsed", "0")
	assert.Equal(t, exitUnsent, r.code, r.stderr)
	assert.Regexp(t, `deadline exceeded|Client.Timeout exceeded`, r.stderr)

	// A flag's timeout outlasts a slow receiver the variable's would not.
	rcv := &httpReceiver{path: "/v1/traces"}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(500 * time.Millisecond) // a slow server: longer than the variable's 200 ms
		rcv.serve(w, r)
	}))
	t.Cleanup(slow.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", slow.URL)
	r = agenttrace(t, "", "send", sendArtifact, "--retry-max-elapsed", "0", "--timeout", "20s")
	require.Equal(t, 0, r.code, r.stderr)
	reqs, _ := rcv.snapshot(t)
	assert.Len(t, reqs, 1)
}

// TestSendEnvErrors: a bad value in a variable is a usage error naming
// the variable, before anything is sent, where the SDK would log it and
// go on without.
func TestSendEnvErrors(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		stderr string
	}{
		{"no endpoint anywhere", nil, "--endpoint is required (HOST:PORT, e.g. 127.0.0.1:4317), or OTEL_EXPORTER_OTLP_ENDPOINT"},
		{"protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "http"},
			`OTEL_EXPORTER_OTLP_PROTOCOL="http": want grpc, http/protobuf or http/json`},
		{"traces protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"},
			`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="thrift"`},
		{"http endpoint without a scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="127.0.0.1:4318": want an http:// or https:// URL`},
		{"endpoint scheme", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "unix:///tmp/otlp.sock"},
			`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="unix:///tmp/otlp.sock": want an http:// or https:// URL`},
		{"endpoint port", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:99999"}, `port "99999"`},
		{"headers without =", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_HEADERS": "a=1,b"},
			`OTEL_EXPORTER_OTLP_HEADERS="a=1,b": "b": want key=value`},
		{"header name", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_HEADERS": "a b=1"},
			`"a b" is not a valid header name`},
		{"header escape", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=%zz"},
			`OTEL_EXPORTER_OTLP_TRACES_HEADERS="a=%zz": the value of a`},
		{"timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
			`OTEL_EXPORTER_OTLP_TIMEOUT="10s": want a number of milliseconds`},
		{"compression", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			`OTEL_EXPORTER_OTLP_COMPRESSION="zstd": want gzip or none`},
		{"certificate", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_CERTIFICATE": "../../go.mod"},
			`OTEL_EXPORTER_OTLP_CERTIFICATE="../../go.mod": no PEM certificate in the file`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r := agenttrace(t, "", "send", sendArtifact)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.Empty(t, r.stdout)
		})
	}
}
