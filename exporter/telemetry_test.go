package agenttraceexporter

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
)

// TestSelfTelemetry: the exporter counts what it writes, drops and skips,
// the artifacts it opens and finalizes, and its open files, through the
// MeterProvider the collector gives it.
func TestSelfTelemetry(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	tel, err := newTelemetry(mp)
	require.NoError(t, err)

	cfg := createDefaultConfig().(*Config)
	cfg.Directory = t.TempDir()
	cfg.MaxRecordsPerArtifact = 2
	e := newExporter(cfg, zap.NewNop(), tel)
	require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))

	require.NoError(t, e.pushTraces(context.Background(), batch(spec{tid: 1, sid: 2, parent: 1}, spec{tid: 1, sid: 3, parent: 1}, spec{tid: 1, sid: 4, parent: 1})))
	require.NoError(t, e.pushTraces(context.Background(), batch(spec{tid: 1, sid: 2, parent: 1}, spec{tid: 2, sid: 1})))
	got := collect(t, reader)
	assert.Equal(t, int64(3), got["agenttrace_exporter_spans_written"], "2 of trace 1 (the cap), 1 of trace 2")
	assert.Equal(t, int64(1), got["agenttrace_exporter_spans_dropped"], "past the cap")
	assert.Equal(t, int64(1), got["agenttrace_exporter_duplicates_skipped"])
	assert.Equal(t, int64(2), got["agenttrace_exporter_artifacts_opened"])
	assert.Equal(t, int64(2), got["agenttrace_exporter_open_files"])

	require.NoError(t, e.shutdown(context.Background()))
	got = collect(t, reader)
	assert.Equal(t, int64(2), got["agenttrace_exporter_artifacts_finalized"])
	assert.Equal(t, int64(0), got["agenttrace_exporter_open_files"])
}

// collect returns every int64 sum the reader holds, by name.
func collect(t *testing.T, r sdkmetric.Reader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(context.Background(), &rm))
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if s, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range s.DataPoints {
					out[m.Name] += dp.Value
				}
			}
		}
	}
	return out
}
