package hostcheck_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/internal/hostcheck"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		hostport string
		also     []string
		want     bool
	}{
		{"localhost:4318", nil, true},
		{"LocalHost", nil, true},
		{"127.0.0.1:4318", nil, true},
		{"127.9.9.9", nil, true},
		{"[::1]:4318", nil, true},
		{"[::1]", nil, true},
		{"evil.example:4318", nil, false},
		{"localhost.evil.example", nil, false},
		{"10.0.0.5:4318", nil, false},
		{"", nil, false},
		// A server started on another address on purpose answers to it.
		{"10.0.0.5:4318", []string{"10.0.0.5"}, true},
		{"Box.LAN:4318", []string{"box.lan"}, true},
		{"evil.example:4318", []string{"box.lan"}, false},
		// Every interface: any IP literal, still no other name.
		{"10.0.0.5:4318", []string{"0.0.0.0"}, true},
		{"[fd00::5]:4318", []string{"::"}, true},
		{"10.0.0.5:4318", []string{""}, true},
		{"evil.example:4318", []string{"0.0.0.0"}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hostcheck.Allowed(tt.hostport, tt.also...), "%q also %q", tt.hostport, tt.also)
	}
}

// FuzzAllowed: no Host header panics, and a name that is not loopback is
// never allowed without also.
func FuzzAllowed(f *testing.F) {
	for _, s := range []string{"localhost:1", "[::1]", "evil.example:80", "[", "]:", "127.0.0.1:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		if hostcheck.Allowed(hostport) {
			assert.True(t, hostcheck.Loopback(hostcheck.Host(hostport)), "%q", hostport)
		}
	})
}
