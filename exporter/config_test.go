package agenttraceexporter

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	full := createDefaultConfig().(*Config)
	full.Directory = "./runs"
	full.GroupBy = "resource:service.name"
	full.FinalizeAfter = 2 * time.Minute
	full.MaxOpenFiles = 16
	full.Fsync = FsyncAlways
	full.Budget = BudgetConfig{Tokens: 50000, USD: 2.5, WarnThreshold: 0.9}
	full.Redact = RedactConfig{Keys: []string{"password", "api_key"}, Secrets: false}
	full.MaxRecordsPerArtifact = 10000
	full.RotateBytes = 256 << 20
	full.RotateAfter = time.Hour
	full.TimeoutConfig.Timeout = 10 * time.Second
	q := exporterhelper.NewDefaultQueueConfig()
	q.NumConsumers, q.QueueSize = 4, 500
	full.QueueConfig = configoptional.Some(q)
	full.RetryConfig.Enabled = true
	full.RetryConfig.InitialInterval = time.Second

	def := createDefaultConfig().(*Config)
	def.Directory = "/var/lib/agenttrace/runs"

	usdOnly := createDefaultConfig().(*Config)
	usdOnly.Directory, usdOnly.Budget.USD = "./runs", 0.75

	withDialects := createDefaultConfig().(*Config)
	withDialects.Directory, withDialects.Dialects = "./runs", []string{"../semconv/testdata/mylib.dialect.yaml"}

	conv := createDefaultConfig().(*Config)
	conv.Directory, conv.GroupBy = "./runs", GroupByConversation

	withBucket := createDefaultConfig().(*Config)
	withBucket.Directory, withBucket.Compression = "./runs", CompressionZstd
	withBucket.Bucket = "s3://runs/prod?endpoint=http://127.0.0.1:8333&region=us-east-1&use_path_style=true"
	bucketCatalog := createDefaultConfig().(*Config)
	bucketCatalog.Directory, bucketCatalog.Bucket, bucketCatalog.Catalog.Enabled = "./runs", "file:///srv/runs", true

	tests := []struct {
		name    string
		want    *Config
		wantErr []string // substrings of the Validate or Unmarshal error
	}{
		{name: "", want: def},
		{name: "full", want: full},
		{name: "conversation", want: conv},
		{name: "no_queue"},
		{name: "missing_directory", wantErr: []string{"directory: must be set"}},
		{name: "bad_group_by", wantErr: []string{`group_by: "span" is not one of trace, conversation, resource:<attribute>`}},
		{name: "empty_resource_attribute", wantErr: []string{`group_by: "resource:" names no resource attribute`}},
		{name: "bad_fsync", wantErr: []string{`fsync: "sometimes" is not one of trace_end, always, never`}},
		{name: "bad_numbers", wantErr: []string{
			"finalize_after: must be positive",
			"max_open_files: must be at least 1",
			"budget.tokens: must not be negative",
			"budget.usd: must be a number of dollars, 0 or more, got -0.5",
			"budget.warn_threshold: must be between 0 and 1",
			"max_records_per_artifact: must not be negative",
			"rotate_bytes: must not be negative",
			"rotate_after: must not be negative",
		}},
		{name: "budget_usd_only", want: usdOnly},
		{name: "budget_usd_inf", wantErr: []string{"budget.usd: must be a number of dollars, 0 or more, got +Inf"}},
		{name: "typo", wantErr: []string{"finalise_after"}},
		{name: "dialects", want: withDialects},
		{name: "bucket", want: withBucket},
		{name: "bad_bucket", wantErr: []string{
			"bucket: ftp://runs/prod: bucket URL scheme is not one of s3, gs, azblob, file, mem",
			`compression: "gzip" is not one of none, zstd`,
		}},
		{name: "bucket_and_catalog", want: bucketCatalog},
		{name: "bucket_and_retention", wantErr: []string{"bucket: retention bounds the directory's runs"}},
		{name: "zstd_without_bucket", wantErr: []string{"compression: zstd compresses uploads, and no bucket is set"}},
		{name: "bad_dialect", wantErr: []string{"dialects[0]: testdata/bad.dialect.yaml:4: "}},
	}
	for _, tt := range tests {
		t.Run("agenttrace/"+tt.name, func(t *testing.T) {
			id := component.NewIDWithName(typ, tt.name)
			sub, err := cm.Sub(id.String())
			require.NoError(t, err)
			cfg := createDefaultConfig()
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
			if tt.want != nil {
				assert.Equal(t, tt.want, cfg)
			}
			if tt.name == "no_queue" {
				assert.False(t, cfg.(*Config).QueueConfig.HasValue())
			}
		})
	}
}

func TestDefaultConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	assert.Equal(t, GroupByTrace, cfg.GroupBy)
	assert.Equal(t, 30*time.Second, cfg.FinalizeAfter)
	assert.Equal(t, 128, cfg.MaxOpenFiles)
	assert.Equal(t, FsyncTraceEnd, cfg.Fsync)
	assert.True(t, cfg.Redact.Secrets)
	assert.True(t, cfg.QueueConfig.HasValue())
	// Only the directory is missing.
	assert.EqualError(t, cfg.Validate(), "directory: must be set")
}
