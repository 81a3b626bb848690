package agenttraceexporter

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configretry"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/agenttrace/agenttrace/exporter/internal/metadata"
)

// Defaults, in one place.
const (
	defaultFinalizeAfter = 30 * time.Second
	defaultMaxOpenFiles  = 128
)

// NewFactory returns the factory of the agenttrace exporter.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(
		metadata.Type,
		createDefaultConfig,
		exporter.WithTraces(createTraces, metadata.TracesStability),
		exporter.WithLogs(createLogs, metadata.LogsStability),
	)
}

func createDefaultConfig() component.Config {
	return &Config{
		GroupBy:       GroupByTrace,
		FinalizeAfter: defaultFinalizeAfter,
		MaxOpenFiles:  defaultMaxOpenFiles,
		Fsync:         FsyncTraceEnd,
		Redact:        RedactConfig{Secrets: true},
		TimeoutConfig: exporterhelper.NewDefaultTimeoutConfig(),
		QueueConfig:   configoptional.Some(exporterhelper.NewDefaultQueueConfig()),
		RetryConfig:   configretry.NewDefaultBackOffConfig(),
	}
}

func createTraces(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
	c := cfg.(*Config)
	e, err := sharedExporter(c, set)
	if err != nil {
		return nil, fmt.Errorf("agenttrace exporter telemetry: %w", err)
	}
	return exporterhelper.NewTraces(ctx, set, cfg, e.pushTraces, e.options()...)
}

// createLogs makes the logs half of the component: the same exporter (and
// store) as its traces half, so log records land in their traces'
// artifacts.
func createLogs(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Logs, error) {
	c := cfg.(*Config)
	e, err := sharedExporter(c, set)
	if err != nil {
		return nil, fmt.Errorf("agenttrace exporter telemetry: %w", err)
	}
	return exporterhelper.NewLogs(ctx, set, cfg, e.pushLogs, e.options()...)
}

// options are the exporterhelper options of either signal.
func (s *shared) options() []exporterhelper.Option {
	c := s.cfg
	return []exporterhelper.Option{
		// Redaction (in the store) changes spans and log records in place.
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: c.Redact.Enabled()}),
		exporterhelper.WithTimeout(c.TimeoutConfig),
		exporterhelper.WithQueue(c.QueueConfig),
		exporterhelper.WithRetry(c.RetryConfig),
		exporterhelper.WithStart(s.start),
		exporterhelper.WithShutdown(s.shutdown),
	}
}
