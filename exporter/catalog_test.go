package agenttraceexporter

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/catalog"
)

// catalog.enabled keeps the directory's run catalog: after shutdown,
// every run written has its row, with its service.
func TestCatalogKeptAsRunsFinalize(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.Catalog.Enabled = true })
	push(t, e,
		spec{tid: 1, sid: 1, res: map[string]any{"service.name": "alpha"}},
		spec{tid: 2, sid: 1, res: map[string]any{"service.name": "beta"}},
	)
	require.NoError(t, e.shutdown(context.Background()))
	p, err := catalog.Query(context.Background(), catalog.Dir(dir), catalog.Filter{}, catalog.Sort{}, 0, 0)
	require.NoError(t, err)
	var got []string
	for _, r := range p.Rows {
		got = append(got, r.Run+" "+r.Service)
	}
	slices.Sort(got)
	assert.Equal(t, []string{tid(1).String() + ".jsonl alpha", tid(2).String() + ".jsonl beta"}, got)
}

func TestRetentionValidate(t *testing.T) {
	tests := []struct {
		r    RetentionConfig
		want string
	}{
		{RetentionConfig{}, ""},
		{RetentionConfig{MaxAge: 24 * time.Hour, MaxBytes: 1 << 30}, ""},
		{RetentionConfig{MaxAge: -time.Hour}, "retention: invalid retention: max_age -1h0m0s is negative"},
		{RetentionConfig{MaxBytes: -1}, "retention: invalid retention: max_bytes -1 is negative"},
	}
	for _, tt := range tests {
		cfg := createDefaultConfig().(*Config)
		cfg.Directory, cfg.Retention = t.TempDir(), tt.r
		err := cfg.Validate()
		if tt.want == "" {
			assert.NoError(t, err)
		} else {
			assert.EqualError(t, err, tt.want)
		}
	}
}
