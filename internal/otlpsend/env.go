package otlpsend

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// The OTLP exporter variables send reads, as the OpenTelemetry
// specification names them ("OpenTelemetry Protocol Exporter",
// configuration options). Each has a signal-specific form,
// OTEL_EXPORTER_OTLP_TRACES_*, that wins over the generic one.
//
// The SDK's exporters read these variables too, but keep what they read
// to themselves (their config package is internal): send has to know the
// endpoint and protocol it ends up with, to pick the gRPC or the HTTP
// client (which no SDK client does from OTEL_EXPORTER_OTLP_PROTOCOL), to
// name the endpoint in its messages, and to watch the connection for a
// TLS mismatch. So send resolves them here, with the semantics of the
// Go SDK's envconfig (v1.47.0), and passes the result to the SDK's
// clients as options; the send command's tests check each variable
// against what the SDK's own clients do with it. Where the SDK logs a bad value and goes
// on without it, send stops with a usage error naming the variable: a
// command line should not send somewhere other than where the user said.
const (
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envPrefix         = "OTEL_EXPORTER_OTLP_"
	envTracesPrefix   = "OTEL_EXPORTER_OTLP_TRACES_"
)

// Env reads the OTLP exporter variables through Getenv, and the files
// they name through ReadFile.
type Env struct {
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
}

// lookup returns the value of OTEL_EXPORTER_OTLP_TRACES_<key>, else of
// OTEL_EXPORTER_OTLP_<key>, trimmed as the SDK trims it, and the name of
// the variable it came from ("" when neither is set).
func (v Env) lookup(key string) (value, name string) {
	for _, name := range []string{envTracesPrefix + key, envPrefix + key} {
		if s := strings.TrimSpace(v.Getenv(name)); s != "" {
			return s, name
		}
	}
	return "", ""
}

// protocol is OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL, checked; "" when
// unset.
func (v Env) protocol() (string, error) {
	s, name := v.lookup("PROTOCOL")
	if s == "" {
		return "", nil
	}
	if _, ok := Protocols[s]; !ok || s == "http" {
		return "", envUsagef(name, s, "want grpc, http/protobuf or http/json")
	}
	return s, nil
}

// endpoint is the target the endpoint variables name, for protocol;
// ok is false when neither is set. As in the SDK: the signal-specific
// URL is used as it is (no path means "/"), the generic one is a base
// to which OTLP/HTTP appends v1/traces; gRPC ignores the path. The
// scheme says TLS (https) or plaintext (http); for gRPC a bare
// HOST:PORT means TLS. The insecure variables, read later, override it.
func (v Env) endpoint(protocol string) (t Target, ok bool, err error) {
	t.protocol = protocol
	name, raw := envTracesEndpoint, strings.TrimSpace(v.Getenv(envTracesEndpoint))
	if raw == "" {
		name, raw = envEndpoint, strings.TrimSpace(v.Getenv(envEndpoint))
	}
	if raw == "" {
		return t, false, nil
	}
	if !strings.Contains(raw, "://") {
		if protocol != ProtoGRPC {
			return t, true, envUsagef(name, raw, "want an http:// or https:// URL")
		}
		if err := checkHostPort(raw); err != nil {
			return t, true, envUsagef(name, raw, "%v", err)
		}
		t.hostPort = raw
		return t, true, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return t, true, envUsagef(name, raw, "%v", err)
	}
	switch u.Scheme {
	case "http":
		t.insecure = true
	case "https":
	default:
		return t, true, envUsagef(name, raw, "want an http:// or https:// URL")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return t, true, envUsagef(name, raw, "a user, query or fragment cannot be sent over OTLP")
	}
	if t.hostPort, err = hostPortOf(u); err != nil {
		return t, true, envUsagef(name, raw, "%v", err)
	}
	if protocol == ProtoGRPC {
		return t, true, nil
	}
	p := u.Path
	switch {
	case name == envEndpoint:
		p = path.Join(p, "/v1/traces")
	case p == "":
		p = "/"
	}
	t.urlPath = (&url.URL{Path: p}).EscapedPath()
	return t, true, nil
}

// insecure is OTEL_EXPORTER_OTLP_[TRACES_]INSECURE: "true" in any case
// is true, any other value false (the SDK's reading); set is false when
// neither is set.
func (v Env) insecure() (insecure, set bool) {
	s, name := v.lookup("INSECURE")
	return strings.EqualFold(s, "true"), name != ""
}

// headers is OTEL_EXPORTER_OTLP_[TRACES_]HEADERS: a list of key=value
// pairs separated by commas, values percent-decoded and both trimmed
// (the W3C Baggage format the specification names). The signal-specific
// variable replaces the generic one, as in the SDK.
func (v Env) headers() (map[string]string, error) {
	s, name := v.lookup("HEADERS")
	if s == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok {
			return nil, envUsagef(name, s, "%q: want key=value", strings.TrimSpace(pair))
		}
		if !validHeaderKey(k) {
			return nil, envUsagef(name, s, "%q is not a valid header name", k)
		}
		dec, err := url.PathUnescape(val)
		if err != nil {
			return nil, envUsagef(name, s, "the value of %s: %v", k, err)
		}
		dec = strings.TrimSpace(dec)
		if strings.ContainsAny(dec, "\r\n\x00") {
			return nil, envUsagef(name, s, "the value of %s holds a line break or NUL", k)
		}
		out[k] = dec
	}
	return out, nil
}

// timeout is OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT, in milliseconds; 0 when
// unset.
func (v Env) timeout() (time.Duration, error) {
	s, name := v.lookup("TIMEOUT")
	if s == "" {
		return 0, nil
	}
	ms, err := strconv.Atoi(s)
	if err != nil || ms <= 0 {
		return 0, envUsagef(name, s, "want a number of milliseconds, more than 0")
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// compression is OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION; "" when unset.
func (v Env) compression() (string, error) {
	s, name := v.lookup("COMPRESSION")
	if s != "" && s != "gzip" && s != "none" {
		return "", envUsagef(name, s, "want gzip or none")
	}
	return s, nil
}

// tlsConfig is the TLS configuration: the system's roots, unless
// OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE names a PEM file of others; a
// client certificate from OTEL_EXPORTER_OTLP_[TRACES_]CLIENT_CERTIFICATE
// and _CLIENT_KEY.
func (v Env) tlsConfig() (*tls.Config, error) {
	// No server name: the endpoint's host is checked, as a browser would.
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if file, name := v.lookup("CERTIFICATE"); file != "" {
		pem, err := v.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, envUsagef(name, file, "no PEM certificate in the file")
		}
		cfg.RootCAs = pool
	}
	for _, prefix := range []string{envTracesPrefix, envPrefix} {
		certName, keyName := prefix+"CLIENT_CERTIFICATE", prefix+"CLIENT_KEY"
		certFile, keyFile := strings.TrimSpace(v.Getenv(certName)), strings.TrimSpace(v.Getenv(keyName))
		if certFile == "" || keyFile == "" {
			continue
		}
		certPEM, err := v.ReadFile(certFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", certName, err)
		}
		keyPEM, err := v.ReadFile(keyFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keyName, err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, usageErrorf("%s and %s: %v", certName, keyName, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
		break
	}
	return cfg, nil
}

// OSEnv reads the process's environment and files.
var OSEnv = Env{Getenv: os.Getenv, ReadFile: os.ReadFile}
