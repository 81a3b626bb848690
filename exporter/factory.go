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
	tel, err := newTelemetry(set.MeterProvider)
	if err != nil {
		return nil, fmt.Errorf("agenttrace exporter telemetry: %w", err)
	}
	e := newExporter(c, set.Logger, tel)
	return exporterhelper.NewTraces(ctx, set, cfg, e.pushTraces,
		// Redaction changes spans in place.
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: e.red != nil}),
		exporterhelper.WithTimeout(c.TimeoutConfig),
		exporterhelper.WithQueue(c.QueueConfig),
		exporterhelper.WithRetry(c.RetryConfig),
		exporterhelper.WithStart(e.start),
		exporterhelper.WithShutdown(e.shutdown),
	)
}
