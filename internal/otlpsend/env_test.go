package otlpsend

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mapEnv is an Env over a map, for tests that must not touch the
// process's environment.
func mapEnv(vars map[string]string) Env {
	return Env{
		Getenv:   func(k string) string { return vars[k] },
		ReadFile: func(string) ([]byte, error) { return nil, os.ErrNotExist },
	}
}

// FuzzEnvHeaders: OTEL_EXPORTER_OTLP_HEADERS either parses into headers a
// client can send (valid names, no line breaks) that survive being
// written back in the variable's format, or is a usage error naming the
// variable; never a panic.
func FuzzEnvHeaders(f *testing.F) {
	for _, seed := range []string{"", "a=1", "x-tenant=acme, authorization=Bearer%20a%3Db ,x-empty=", "a", "=1", "a=%zz", "a=%0d%0a", "a b=1", "a=1,,b=2", "k=v=w"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		h, err := mapEnv(map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": value}).headers()
		if err != nil {
			require.Contains(t, err.Error(), "OTEL_EXPORTER_OTLP_HEADERS=")
			require.ErrorIs(t, err, ErrUsage)
			return
		}
		var pairs []string
		for k, v := range h {
			require.True(t, validHeaderKey(k), "key %q", k)
			require.NotContains(t, v, "\r")
			require.NotContains(t, v, "\n")
			require.Equal(t, strings.TrimSpace(v), v)
			pairs = append(pairs, k+"="+url.PathEscape(v))
		}
		again, err := mapEnv(map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": strings.Join(pairs, ",")}).headers()
		require.NoError(t, err)
		if len(h) == 0 {
			require.Empty(t, again)
		} else {
			require.Equal(t, h, again)
		}
	})
}

// FuzzEnvEndpoint: an endpoint variable either gives a target whose
// host:port is valid and, for OTLP/HTTP, whose URL parses back to the
// same host, or is a usage error naming the variable; never a panic.
func FuzzEnvEndpoint(f *testing.F) {
	for _, seed := range []string{"http://127.0.0.1:4318", "https://collector/otlp/", "127.0.0.1:4317", "unix:///x", "http://[::1]:4318/a%20b", "http://:80", "https://h:0", "http://u@h:1", "http://h:1?q", ""} {
		f.Add(seed, false, false)
	}
	f.Fuzz(func(t *testing.T, value string, signal, grpcProto bool) {
		name := envEndpoint
		if signal {
			name = envTracesEndpoint
		}
		protocol := ProtoHTTP
		if grpcProto {
			protocol = ProtoGRPC
		}
		tg, ok, err := mapEnv(map[string]string{name: value}).endpoint(protocol)
		if strings.TrimSpace(value) == "" {
			require.False(t, ok)
			require.NoError(t, err)
			return
		}
		require.True(t, ok)
		if err != nil {
			require.Contains(t, err.Error(), name+"=")
			return
		}
		require.NoError(t, checkHostPort(tg.hostPort))
		if !grpcProto {
			u, err := url.Parse(tg.URL())
			require.NoError(t, err, tg.URL())
			require.Equal(t, tg.hostPort, u.Host)
			require.True(t, strings.HasPrefix(tg.urlPath, "/"), tg.urlPath)
		}
	})
}
