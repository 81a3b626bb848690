package receiver

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/agenttrace/agenttrace/internal/hostcheck"
)

// WithAllowedHosts names the hosts, besides loopback names, an OTLP/HTTP
// request's Host header may carry: those of the addresses the receiver
// was started on on purpose (serve's --otlp-http with
// --otlp-allow-remote). An empty or unspecified host (0.0.0.0, ::) allows
// any IP literal but no other name (package hostcheck). Without it only
// loopback names are answered, so a web page whose name its owner pointed
// at 127.0.0.1 (DNS rebinding) cannot write runs.
func WithAllowedHosts(hosts ...string) Option {
	return func(r *Receiver) { r.hosts = append(r.hosts, hosts...) }
}

// WithCORS lets web pages of the given origins ("https://app.example:8080",
// or "*" for any) export to the OTLP/HTTP endpoint from a browser: their
// preflight is answered and their requests carry
// Access-Control-Allow-Origin. A request with any other Origin than the
// receiver's own is refused with 403, since a page the user merely visits
// must not write runs.
func WithCORS(origins ...string) Option {
	return func(r *Receiver) {
		for _, o := range origins {
			r.cors = append(r.cors, normalOrigin(o))
		}
	}
}

// normalOrigin is o as browsers send it: scheme and host in lower case,
// no trailing slash.
func normalOrigin(o string) string { return strings.ToLower(strings.TrimSuffix(o, "/")) }

// access refuses what a browser page of another site could send before
// next sees it: a Host that is not one of the receiver's (DNS rebinding)
// and an Origin that is neither the receiver's own nor allowed by
// WithCORS. It answers the CORS preflight of an allowed origin.
func (r *Receiver) access(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !hostcheck.Allowed(req.Host, r.hosts...) {
			r.c.forbidden.Add(1)
			r.log.Warn("refused OTLP request: Host is not a loopback name", "host", req.Host)
			writeStatus(w, ctJSON, http.StatusForbidden, codes.PermissionDenied,
				"forbidden: this receiver answers only to localhost, 127.0.0.1, [::1] or the address it was started on")
			return
		}
		origin := req.Header.Get("Origin")
		if origin == "" || sameOrigin(origin, req.Host) {
			next.ServeHTTP(w, req)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		if !r.corsAllows(origin) {
			r.c.forbidden.Add(1)
			r.log.Warn("refused OTLP request: cross-origin", "origin", origin)
			writeStatus(w, ctJSON, http.StatusForbidden, codes.PermissionDenied,
				"forbidden: cross-origin request from "+origin+"; serve --cors ORIGIN allows a web page to export here")
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		if req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", http.MethodPost)
			if ah := req.Header.Get("Access-Control-Request-Headers"); ah != "" {
				// The origin is trusted by the user's flag; its
				// exporter's own headers (an API key) pass.
				h.Set("Access-Control-Allow-Headers", ah)
			}
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// corsAllows reports whether WithCORS named origin (or "*").
func (r *Receiver) corsAllows(origin string) bool {
	o := normalOrigin(origin)
	return slices.ContainsFunc(r.cors, func(c string) bool { return c == "*" || c == o })
}

// sameOrigin reports whether origin is http(s)://HOST with the Host the
// request was sent to (already checked to be the receiver's).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && strings.EqualFold(u.Host, host)
}
