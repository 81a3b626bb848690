package redactprocessor

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/agenttrace/agenttrace/exporter/redactprocessor/internal/metadata"
	"github.com/agenttrace/agenttrace/redact"
)

// NewFactory returns the factory of the agenttrace_redact processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(
		metadata.Type,
		createDefaultConfig,
		processor.WithTraces(createTraces, metadata.TracesStability),
		processor.WithLogs(createLogs, metadata.LogsStability),
	)
}

func createDefaultConfig() component.Config {
	return &Config{Secrets: true}
}

// capabilities: redaction changes spans and log records in place, so the
// pipeline must hand this processor data of its own (a fan-out clones it).
var capabilities = processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true})

func createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	red := newRedactor(cfg.(*Config))
	return processorhelper.NewTraces(ctx, set, cfg, next,
		func(_ context.Context, td ptrace.Traces) (ptrace.Traces, error) {
			red.Traces(td)
			return td, nil
		}, capabilities)
}

func createLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
	red := newRedactor(cfg.(*Config))
	return processorhelper.NewLogs(ctx, set, cfg, next,
		func(_ context.Context, ld plog.Logs) (plog.Logs, error) {
			red.Logs(ld)
			return ld, nil
		}, capabilities)
}

// newRedactor builds the Redactor the exporter builds from the same
// settings (agenttraceexporter's newShared): Traces and Logs are what it
// and serve --otlp run, so a batch comes out of this processor as the
// exporter would have written it.
func newRedactor(c *Config) *redact.Redactor { return redact.New(c.Keys, c.Secrets) }
