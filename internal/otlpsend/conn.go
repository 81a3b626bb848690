package otlpsend

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc/credentials"
)

// The connection problems send stops at once for, with a hint, rather
// than retrying: the OTLP clients retry them (gRPC calls them
// UNAVAILABLE) for as long as --retry-max-elapsed allows, though no retry
// can help, and then print a bare TLS or dial error.
var (
	// ErrPlaintextServer: TLS was asked for, and the server answered in
	// plaintext.
	ErrPlaintextServer = errors.New("the server answered in plaintext")
	// ErrTLSServer: plaintext was asked for, and the server speaks TLS.
	ErrTLSServer = errors.New("the server speaks TLS")
	// ErrUntrusted: the server's certificate does not verify.
	ErrUntrusted = errors.New("the server's certificate is not trusted")
	// ErrRefused: nothing accepts connections at the endpoint.
	ErrRefused = errors.New("connection refused")
	// ErrHTTPServer: gRPC was asked for, and the server answered the
	// HTTP/2 preface in HTTP/1.1: an OTLP/HTTP port.
	ErrHTTPServer = errors.New("the server speaks HTTP/1.1")
	// ErrGRPCServer: OTLP/HTTP was asked for, and the server answered in
	// HTTP/2 frames: a gRPC port.
	ErrGRPCServer = errors.New("the server speaks HTTP/2")
)

// probeTimeout bounds the TLS handshake that tells a TLS server that
// hung up on a plaintext request apart from a server that just hung up.
const probeTimeout = time.Second

// ConnProblem is a connection problem found while sending: one of the
// errors above (errors.Is tells which), where, and what the TLS stack
// said. Its message says what to change.
type ConnProblem struct {
	kind   error
	addr   string // host:port
	detail error  // nil for kinds that need none
}

func (c *ConnProblem) Error() string {
	switch c.kind {
	case ErrPlaintextServer:
		return fmt.Sprintf("the server at %s answered in plaintext: pass --insecure (or OTEL_EXPORTER_OTLP_INSECURE=true), or use an http:// endpoint", c.addr)
	case ErrTLSServer:
		return fmt.Sprintf("the server at %s speaks TLS: drop --insecure (and OTEL_EXPORTER_OTLP_INSECURE), or use an https:// endpoint", c.addr)
	case ErrHTTPServer:
		return fmt.Sprintf("the server at %s answered in HTTP/1.1, as an OTLP/HTTP receiver does (port 4318 by convention): pass --protocol http (or OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf), or use its gRPC port", c.addr)
	case ErrGRPCServer:
		return fmt.Sprintf("the server at %s answered in HTTP/2 frames, as an OTLP/gRPC receiver does (port 4317 by convention): pass --protocol grpc (or OTEL_EXPORTER_OTLP_PROTOCOL=grpc), or use its OTLP/HTTP port", c.addr)
	case ErrUntrusted:
		return fmt.Sprintf("the certificate of the server at %s is not trusted (%v): name its CA with OTEL_EXPORTER_OTLP_CERTIFICATE or SSL_CERT_FILE", c.addr, c.detail)
	default:
		return fmt.Sprintf("nothing accepts connections at %s (connection refused): is the collector running, on this port?", c.addr)
	}
}

func (c *ConnProblem) Unwrap() error { return c.kind }

// connWatch watches the connections of one send for the problems above
// and, at the first, cancels the send with it as the cause. The OTLP
// clients see only a canceled context; send reports the cause.
type connWatch struct {
	addr      string // the endpoint's host:port, for messages
	plaintext bool
	grpc      bool // the client speaks gRPC (HTTP/2), not OTLP/HTTP
	cancel    context.CancelCauseFunc
	dialer    net.Dialer

	hc *http.Client // the OTLP/HTTP client's, once made

	mu      sync.Mutex
	problem *ConnProblem
}

func newConnWatch(t Target, cancel context.CancelCauseFunc) *connWatch {
	return &connWatch{addr: t.hostPort, plaintext: t.insecure, grpc: !t.IsHTTP(), cancel: cancel}
}

// found returns the problem found, or nil.
func (w *connWatch) found() *ConnProblem {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.problem
}

// report notes a problem of kind and cancels the send; only the first
// counts.
func (w *connWatch) report(kind, detail error) {
	w.mu.Lock()
	first := w.problem == nil
	if first {
		w.problem = &ConnProblem{kind: kind, addr: w.addr, detail: detail}
	}
	p := w.problem
	w.mu.Unlock()
	if first {
		w.cancel(p)
	}
}

// classify reports err if it is one of the problems above.
func (w *connWatch) classify(err error) {
	var (
		header  tls.RecordHeaderError
		verify  *tls.CertificateVerificationError
		hostErr x509.HostnameError
		unknown x509.UnknownAuthorityError
		invalid x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &header):
		w.report(ErrPlaintextServer, nil)
	case errors.As(err, &verify):
		w.report(ErrUntrusted, verify.Err)
	case errors.As(err, &hostErr), errors.As(err, &unknown), errors.As(err, &invalid):
		w.report(ErrUntrusted, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		w.report(ErrRefused, nil)
	}
}

// dial connects to addr for either client. A plaintext connection is
// watched for a server that speaks TLS.
func (w *connWatch) dial(ctx context.Context, addr string) (net.Conn, error) {
	c, err := w.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		w.classify(err)
		return nil, err
	}
	if w.plaintext {
		return &sniffConn{Conn: c, w: w, addr: addr}, nil
	}
	return c, nil
}

// probeTLS reports whether the server at addr completes a TLS handshake
// (or answers one with a TLS alert). The handshake only asks whether the
// server speaks TLS; nothing is sent over it, so its certificate is not
// checked.
func (w *connWatch) probeTLS(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	d := &net.Dialer{Timeout: probeTimeout}
	c, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{
		ServerName:         host,
		InsecureSkipVerify: true, //nolint:gosec // a probe: see above
		MinVersion:         tls.VersionTLS12,
	})
	if err == nil {
		_ = c.Close()
		return true
	}
	var alert tls.AlertError
	return errors.As(err, &alert)
}

// sniffConn is a plaintext connection that looks at the first bytes the
// server sends: a TLS record there (an alert, most often) means the
// server speaks TLS; "HTTP/" answering the gRPC client means an OTLP/HTTP
// port, and an HTTP/2 SETTINGS frame answering the HTTP/1.1 client a
// gRPC port (left alone, each would retry until --retry-max-elapsed). A server that hangs up before sending anything is
// asked with a TLS handshake (a Go TLS server closes without a word on
// an HTTP/2 preface).
type sniffConn struct {
	net.Conn
	w    *connWatch
	addr string
	// Read is called by one goroutine at a time (each client has one
	// reader per connection), so these need no lock.
	head [5]byte
	seen int
	done bool
	// probed: a write the server cut short (a Go TLS server resets a
	// plaintext request it has answered with a 400) asks once; writes may
	// come from another goroutine than reads.
	probed sync.Once
}

// Write asks the server at addr for a TLS handshake when it reset the
// connection while the request was being written: before anything could
// be read, a TLS server hanging up is the only thing to go on.
func (c *sniffConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
		c.probed.Do(func() {
			if c.w.probeTLS(c.addr) {
				c.w.report(ErrTLSServer, nil)
			}
		})
	}
	return n, err
}

func (c *sniffConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.done {
		return n, err
	}
	for i := 0; i < n && c.seen < len(c.head); i++ {
		c.head[c.seen] = b[i]
		c.seen++
	}
	switch {
	case c.seen > 0:
		c.sniff(err != nil)
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		// The server hung up (not this side: a timeout or a cancel
		// closes the connection from here, and proves nothing).
		c.done = true
		if c.w.probeTLS(c.addr) {
			c.w.report(ErrTLSServer, nil)
		}
	}
	return n, err
}

// sniff looks at the bytes seen so far; ended: no more will come.
func (c *sniffConn) sniff(ended bool) {
	h := c.head[:c.seen]
	switch {
	case len(h) >= 2 && h[0] >= 0x14 && h[0] <= 0x17 && h[1] == 0x03:
		// A record's type (change_cipher_spec, alert, handshake,
		// application_data), then the major version, 3.
		c.done = true
		c.w.report(ErrTLSServer, nil)
	case c.w.grpc && string(h) == "HTTP/":
		c.done = true
		c.w.report(ErrHTTPServer, nil)
	case !c.w.grpc && len(h) >= 4 && h[3] == 0x04:
		// A frame header (24-bit length, then the type): SETTINGS, which
		// an HTTP/2 server sends first.
		c.done = true
		c.w.report(ErrGRPCServer, nil)
	case c.seen == len(c.head) || ended:
		c.done = true
	}
}

// watchedCreds are gRPC transport credentials whose handshake errors go
// to a connWatch.
type watchedCreds struct {
	credentials.TransportCredentials
	w *connWatch
}

func (c watchedCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		c.w.classify(err)
	}
	return conn, info, err
}

func (c watchedCreds) Clone() credentials.TransportCredentials {
	return watchedCreds{TransportCredentials: c.TransportCredentials.Clone(), w: c.w}
}

// httpClient is the OTLP/HTTP client's: the SDK's transport settings,
// dialing through w, with tlsConfig (nil for plaintext) and timeout
// bounding each attempt.
func (w *connWatch) httpClient(tlsConfig *tls.Config, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           func(ctx context.Context, _, addr string) (net.Conn, error) { return w.dial(ctx, addr) },
		TLSClientConfig:       tlsConfig,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	w.hc = &http.Client{Transport: &watchedTransport{base: tr, w: w}, Timeout: timeout}
	return w.hc
}

// close closes the idle connections of the OTLP/HTTP client, which the
// SDK's client leaves open when it stops.
func (w *connWatch) close() {
	if w.hc != nil {
		w.hc.CloseIdleConnections()
	}
}

// watchedTransport sends OTLP/HTTP requests and passes their errors to a
// connWatch. A 400 to a plaintext request may be a TLS server's answer
// ("Client sent an HTTP request to an HTTPS server"): it is asked.
type watchedTransport struct {
	base *http.Transport
	w    *connWatch
}

func (t *watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		t.w.classify(err)
		return nil, err
	}
	if t.w.plaintext && resp.StatusCode == http.StatusBadRequest && t.w.probeTLS(req.URL.Host) {
		t.w.report(ErrTLSServer, nil)
	}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport.
func (t *watchedTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }
