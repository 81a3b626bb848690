package otlpsend

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// resolveTarget is where to send: --endpoint, else the endpoint
// variables; plaintext or TLS by --insecure, else the URL's scheme, else
// the insecure variables. For an endpoint from a variable, the insecure
// variables override its scheme, as in the SDK.
func (s Settings) resolveTarget(protocol string, env Env) (Target, error) {
	if s.Given("endpoint") {
		if s.Endpoint == "" {
			return Target{}, usageErrorf("--endpoint is required (HOST:PORT, e.g. 127.0.0.1:4317)")
		}
		t, err := parseEndpoint(s.Endpoint, protocol)
		if err != nil {
			return t, err
		}
		switch {
		case t.scheme == "https" && s.Given("insecure") && s.Insecure:
			return t, usageErrorf("--endpoint %q is https, which contradicts --insecure", s.Endpoint)
		case t.scheme != "":
			// The URL's scheme says it.
		case s.Given("insecure"):
			t.insecure = s.Insecure
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
	if s.Given("insecure") {
		t.insecure = s.Insecure
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
func parseEndpoint(s, protocol string) (Target, error) {
	t := Target{protocol: protocol}
	if !strings.Contains(s, "://") {
		if err := checkHostPort(s); err != nil {
			return t, usageErrorf("--endpoint %q: %v", s, err)
		}
		t.hostPort = s
		if t.IsHTTP() {
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
	case t.IsHTTP() && path == "":
		t.urlPath = "/v1/traces"
	case t.IsHTTP():
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
