package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
)

// TestConfigDirsNonRoot: the single-collector configs run as a non-root
// user out of the box (issue 26: the queue defaulted to
// /var/lib/agenttrace/queue, permission denied): with AGENTTRACE_DIR and
// AGENTTRACE_QUEUE_DIR unset, artifacts and queue go under the user's
// state directory ($HOME/.local/state/agenttrace); set, they win.
func TestConfigDirsNonRoot(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, name := range []string{"agenttrace.yaml", "agenttrace-jaeger.yaml"} {
		path := filepath.Join("..", "..", "deploy", "collector", name)
		for _, tc := range []struct {
			name            string
			runs, queue     string
			wantRuns, wantQ string
		}{
			{"defaults", "", "", filepath.Join(home, ".local/state/agenttrace/runs"), filepath.Join(home, ".local/state/agenttrace/queue")},
			{"env", "/srv/runs", "/srv/queue", "/srv/runs", "/srv/queue"},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Setenv("AGENTTRACE_DIR", tc.runs)
				t.Setenv("AGENTTRACE_QUEUE_DIR", tc.queue)
				if tc.runs == "" {
					unsetenv(t, "AGENTTRACE_DIR", "AGENTTRACE_QUEUE_DIR")
				}
				conf := resolve(t, path)
				assert.Equal(t, tc.wantRuns, conf.Get("exporters::agenttrace::directory"))
				assert.Equal(t, tc.wantQ, conf.Get("extensions::file_storage/queue::directory"))
			})
		}
	}
}

// resolve reads the config at path with env expansion, as the collector
// does.
func resolve(t *testing.T, path string) *confmap.Conf {
	t.Helper()
	r, err := confmap.NewResolver(confmap.ResolverSettings{
		URIs:              []string{"file:" + path},
		ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(), fileprovider.NewFactory()},
		DefaultScheme:     "env",
	})
	require.NoError(t, err)
	conf, err := r.Resolve(context.Background())
	require.NoError(t, err, path)
	return conf
}

// unsetenv unsets names for the test (t.Setenv first, so they come back).
func unsetenv(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		t.Setenv(n, "")
		require.NoError(t, os.Unsetenv(n))
	}
}
