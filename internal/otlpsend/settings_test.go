package otlpsend

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResolve: a setting given wins over its variable, a default does
// not; a bad value of either is ErrUsage naming it; an unreadable file a
// variable names is not a usage error, and keeps its cause.
func TestResolve(t *testing.T) {
	given := func(flags ...string) func(string) bool {
		return func(f string) bool {
			for _, g := range flags {
				if g == f {
					return true
				}
			}
			return false
		}
	}
	base := Settings{Protocol: ProtoGRPC, Timeout: DefaultTimeout, Compression: "gzip", BatchSpans: DefaultBatchSpans}
	tests := []struct {
		name    string
		set     func(*Settings)
		env     map[string]string
		want    string // Target.String()
		wantErr string
	}{
		{name: "flag endpoint", set: func(s *Settings) { s.Endpoint, s.Given = "127.0.0.1:4317", given("endpoint") },
			want: "127.0.0.1:4317 (grpc)"},
		{name: "variable endpoint and protocol", env: map[string]string{envEndpoint: "http://collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			want: "http://collector:4318/v1/traces (http/json)"},
		{name: "flag protocol wins", set: func(s *Settings) { s.Protocol, s.Given = "http", given("protocol") },
			env: map[string]string{envEndpoint: "http://collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, want: "http://collector:4318/v1/traces (http)"},
		{name: "no endpoint", wantErr: "--endpoint is required"},
		{name: "bad variable", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon", envEndpoint: "http://c:4318"},
			wantErr: `OTEL_EXPORTER_OTLP_TIMEOUT="soon"`},
		{name: "bad flag", set: func(s *Settings) { s.BatchSpans = 0; s.Endpoint, s.Given = "c:1", given("endpoint") },
			wantErr: "--batch-spans 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			if tc.set != nil {
				tc.set(&s)
			}
			p, err := Resolve(s, mapEnv(tc.env))
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrUsage)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.Target.String())
		})
	}

	_, err := Resolve(Settings{Protocol: ProtoGRPC, Timeout: DefaultTimeout, Compression: "gzip", BatchSpans: 1, Endpoint: "c:1", Given: given("endpoint")},
		mapEnv(map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nowhere.pem"}))
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrUsage))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "OTEL_EXPORTER_OTLP_CERTIFICATE")
}
