// Package hostcheck is the one rule agenttrace's local servers (the
// viewer of `serve` and its OTLP receiver) apply to a request's Host
// header against DNS rebinding: a page on another site whose name its
// owner pointed at 127.0.0.1 would otherwise be same-origin with the
// server and could read or write through it; its requests carry that
// site's name, so a server answering only loopback names refuses them.
package hostcheck

import (
	"net"
	"net/netip"
	"strings"
)

// Loopback reports whether host (no port) is "localhost" or a loopback
// IP literal. Names are not looked up, since what they resolve to may
// change.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.WithZone("").IsLoopback()
}

// Host returns the host part of a Host header ("name:port", "[::1]:80",
// "[::1]" or a bare name), without brackets.
func Host(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		return hostport[1 : len(hostport)-1]
	}
	return hostport
}

// Allowed reports whether a request's Host header (hostport) names a
// loopback host or one of also: the hosts a server was told to listen on
// on purpose, compared without case. An also that is empty or an
// unspecified IP (0.0.0.0, ::: every interface) allows any IP literal,
// which no rebinding can produce (a rebinding page's requests carry its
// DNS name), but still no other name.
func Allowed(hostport string, also ...string) bool {
	host := Host(hostport)
	if Loopback(host) {
		return true
	}
	for _, a := range also {
		if strings.EqualFold(host, a) {
			return true
		}
		if ip, err := netip.ParseAddr(a); a == "" || (err == nil && ip.IsUnspecified()) {
			if _, err := netip.ParseAddr(host); err == nil {
				return true
			}
		}
	}
	return false
}
