package agenttraceexporter

import (
	"context"

	"go.uber.org/zap"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/agenttrace/agenttrace/store"
)

// meterScope names the exporter's own metrics.
const meterScope = "github.com/agenttrace/agenttrace/exporter"

// telemetry is the exporter's self-telemetry, reported through the
// collector's own MeterProvider (so it appears wherever the collector's
// metrics go, e.g. its Prometheus endpoint):
//
//	agenttrace_exporter_spans_written        spans written as records
//	agenttrace_exporter_spans_dropped        spans not written (record cap, write error)
//	agenttrace_exporter_duplicates_skipped   spans already in their artifact (a redelivered batch)
//	agenttrace_exporter_artifacts_opened     artifacts created or adopted from disk
//	agenttrace_exporter_artifacts_finalized  trailers written on finalization
//	agenttrace_exporter_open_files           artifact files open now
//	agenttrace_exporter_artifacts_set_aside  files that could not be continued, renamed aside
//	agenttrace_exporter_artifacts_repaired   files continued after a torn last line was cut off
//	agenttrace_exporter_logs_written         log records written to their trace's artifact
//	agenttrace_exporter_logs_duplicates      log records already in their artifact, or already held
//	agenttrace_exporter_logs_held            log records held until their trace's artifact existed
//	agenttrace_exporter_logs_untraced        log records without a trace id (written to the untraced artifact)
//	agenttrace_exporter_logs_failed          log records whose write failed (returned for retrying)
//	agenttrace_exporter_objects_uploaded     artifacts uploaded to the bucket (existed=true: found there already)
//	agenttrace_exporter_upload_failures      upload attempts that failed (each tried again)
type telemetry struct {
	written, dropped, duplicates, opened, finalized, setAside metric.Int64Counter
	repaired                                                  metric.Int64Counter
	openFiles                                                 metric.Int64UpDownCounter
	logsWritten, logsDups, logsHeld, logsUntraced, logsFailed metric.Int64Counter
	uploads, uploadFailures                                   metric.Int64Counter
}

func newTelemetry(mp metric.MeterProvider) (*telemetry, error) {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter(meterScope)
	t := &telemetry{}
	var err error
	counter := func(dst *metric.Int64Counter, name, desc, unit string) {
		if err == nil {
			*dst, err = m.Int64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		}
	}
	counter(&t.written, "agenttrace_exporter_spans_written", "Spans written to artifacts as records.", "{span}")
	counter(&t.dropped, "agenttrace_exporter_spans_dropped", "Spans not written: past the record cap, or a failed write.", "{span}")
	counter(&t.duplicates, "agenttrace_exporter_duplicates_skipped", "Spans skipped because their artifact already holds them.", "{span}")
	counter(&t.opened, "agenttrace_exporter_artifacts_opened", "Artifacts created, or adopted from disk to append to.", "{artifact}")
	counter(&t.finalized, "agenttrace_exporter_artifacts_finalized", "Artifacts finalized: trailer written, file closed.", "{artifact}")
	counter(&t.setAside, "agenttrace_exporter_artifacts_set_aside", "Files that could not be continued (torn header, garbage), renamed aside.", "{file}")
	counter(&t.repaired, "agenttrace_exporter_artifacts_repaired", "Files continued after cutting off a torn last line a crash left (its span, never counted, is written again when redelivered).", "{file}")
	counter(&t.logsWritten, "agenttrace_exporter_logs_written", "Log records written to their trace's artifact.", "{log}")
	counter(&t.logsDups, "agenttrace_exporter_logs_duplicates", "Log records skipped because their artifact already holds them, or they are already held.", "{log}")
	counter(&t.logsHeld, "agenttrace_exporter_logs_held", "Log records held until their trace's artifact existed.", "{log}")
	counter(&t.logsUntraced, "agenttrace_exporter_logs_untraced", "Log records without a trace id, written to the untraced artifact.", "{log}")
	counter(&t.logsFailed, "agenttrace_exporter_logs_failed", "Log records whose write failed, returned for retrying.", "{log}")
	counter(&t.uploads, "agenttrace_exporter_objects_uploaded", "Artifacts uploaded to the bucket (existed: an identical object was there already).", "{object}")
	counter(&t.uploadFailures, "agenttrace_exporter_upload_failures", "Upload attempts that failed; each is tried again.", "{attempt}")
	if err == nil {
		t.openFiles, err = m.Int64UpDownCounter("agenttrace_exporter_open_files",
			metric.WithDescription("Artifact files open now."), metric.WithUnit("{file}"))
	}
	return t, err
}

// hooks reports what the store does through the metrics, and logs the
// files it sets aside or repairs.
func (t *telemetry) hooks(logger *zap.Logger) store.Hooks {
	return store.Hooks{
		Written:    func(n int64) { t.written.Add(bg, n) },
		Dropped:    func(n int64) { t.dropped.Add(bg, n) },
		Duplicates: func(n int64) { t.duplicates.Add(bg, n) },
		Opened:     func() { t.opened.Add(bg, 1) },
		Finalized:  func(string) { t.finalized.Add(bg, 1) },
		OpenFiles:  func(d int64) { t.openFiles.Add(bg, d) },
		SetAside: func(from, to string, why error) {
			t.setAside.Add(bg, 1)
			logger.Warn("artifact cannot be continued; set aside", zap.String("path", from), zap.String("moved_to", to), zap.Error(why))
		},
		Repaired: func(path string, cut int64) {
			t.repaired.Add(bg, 1)
			logger.Warn("artifact continued after cutting off a torn last line", zap.String("path", path), zap.Int64("bytes_cut", cut))
		},
	}
}

// logHooks reports what the store does with log records.
func (t *telemetry) logHooks() store.LogHooks {
	return store.LogHooks{
		Written:    func(n int64) { t.logsWritten.Add(bg, n) },
		Duplicates: func(n int64) { t.logsDups.Add(bg, n) },
		Held:       func(n int64) { t.logsHeld.Add(bg, n) },
		Untraced:   func(n int64) { t.logsUntraced.Add(bg, n) },
		Failed:     func(n int64) { t.logsFailed.Add(bg, n) },
	}
}

// The hooks take no context from the caller: the counts are the
// exporter's own, not the request's.
var bg = context.Background()

// uploaded counts an artifact published to the bucket.
func (t *telemetry) uploaded(_ string, existed bool) {
	t.uploads.Add(context.Background(), 1, metric.WithAttributes(attribute.Bool("existed", existed)))
}

// uploadFailed counts a failed upload attempt.
func (t *telemetry) uploadFailed() { t.uploadFailures.Add(context.Background(), 1) }
