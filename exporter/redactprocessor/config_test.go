package redactprocessor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/agenttrace/agenttrace/exporter/redactprocessor/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	tests := []struct {
		name    string
		want    *Config
		wantErr []string // substrings of the Validate or Unmarshal error
	}{
		{name: "", want: &Config{Secrets: true}},
		{name: "keys", want: &Config{Keys: []string{"password", "x-api-key"}, Secrets: true}},
		{name: "keys_only", want: &Config{Keys: []string{"session_cookie"}}},
		{name: "nothing", wantErr: []string{"secrets: false with no keys redacts nothing"}},
		{name: "empty_key", wantErr: []string{"keys[1]: must not be empty"}},
		{name: "typo", wantErr: []string{"secret"}},
	}
	for _, tt := range tests {
		t.Run("agenttrace_redact/"+tt.name, func(t *testing.T) {
			sub, err := cm.Sub(component.NewIDWithName(metadata.Type, tt.name).String())
			require.NoError(t, err)
			cfg := NewFactory().CreateDefaultConfig()
			err = sub.Unmarshal(cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			if len(tt.wantErr) > 0 {
				require.Error(t, err)
				for _, w := range tt.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg)
		})
	}
}

func TestDefaultConfig(t *testing.T) {
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	assert.True(t, cfg.Secrets, "the secret scan is on unless turned off")
	assert.Empty(t, cfg.Keys)
	assert.NoError(t, cfg.Validate())
}
