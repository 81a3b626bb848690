package agenttraceexporter

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/plogcmp"
	"github.com/agenttrace/agenttrace/store"
)

const realDir = "../testdata/real/otel-instrumentation-openai/payloads/"

// realPayloads reads a captured run of the official openai
// instrumentation: its spans and the log records holding its prompts and
// answers.
func realPayloads(t *testing.T, scenario string) (ptrace.Traces, plog.Logs) {
	t.Helper()
	raw, err := os.ReadFile(realDir + scenario + ".traces.pb")
	require.NoError(t, err)
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	raw, err = os.ReadFile(realDir + scenario + ".logs.pb")
	require.NoError(t, err)
	ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(raw)
	require.NoError(t, err)
	require.Positive(t, ld.LogRecordCount())
	return td, ld
}

// readLogs reads the spans and log records of the artifact at path.
func readLogs(t *testing.T, path string) ([]*artifact.Record, []artifact.LogRecord) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var logs []artifact.LogRecord
	r := artifact.NewReader(f, artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
	var recs []*artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	assert.Empty(t, r.Problems())
	return recs, logs
}

// pipelines is the agenttrace component in a traces and a logs pipeline,
// as the collector makes it from one configuration (no queue, so that
// what was consumed is written).
type pipelines struct {
	traces interface {
		ConsumeTraces(context.Context, ptrace.Traces) error
	}
	logs interface {
		ConsumeLogs(context.Context, plog.Logs) error
	}
	stop func()
}

func startPipelines(t *testing.T, dir string) pipelines {
	t.Helper()
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Directory = dir
	cfg.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	ctx := context.Background()
	te, err := f.CreateTraces(ctx, exportertest.NewNopSettings(typ), cfg)
	require.NoError(t, err)
	le, err := f.CreateLogs(ctx, exportertest.NewNopSettings(typ), cfg)
	require.NoError(t, err)
	require.NoError(t, te.Start(ctx, componenttest.NewNopHost()))
	require.NoError(t, le.Start(ctx, componenttest.NewNopHost()))
	return pipelines{traces: te, logs: le, stop: func() {
		require.NoError(t, le.Shutdown(ctx))
		require.NoError(t, te.Shutdown(ctx))
	}}
}

// TestLogsPipeline sends the real captures' spans and log records through
// both pipelines of one component, in both orders, redelivered, and again
// after a restart: each trace's artifact holds its spans and its log
// records once each, exactly as received.
func TestLogsPipeline(t *testing.T) {
	for _, scenario := range []string{"tool-loop", "stream", "responses-tool-loop"} {
		for _, logsFirst := range []bool{false, true} {
			name := scenario + "/spans-first"
			if logsFirst {
				name = scenario + "/logs-first"
			}
			t.Run(name, func(t *testing.T) {
				td, ld := realPayloads(t, scenario)
				dir := t.TempDir()
				send := func(p pipelines) {
					ctx := context.Background()
					tc, lc := ptrace.NewTraces(), plog.NewLogs()
					td.CopyTo(tc)
					ld.CopyTo(lc)
					if logsFirst {
						require.NoError(t, p.logs.ConsumeLogs(ctx, lc))
						require.NoError(t, p.traces.ConsumeTraces(ctx, tc))
					} else {
						require.NoError(t, p.traces.ConsumeTraces(ctx, tc))
						require.NoError(t, p.logs.ConsumeLogs(ctx, lc))
					}
				}
				p := startPipelines(t, dir)
				send(p)
				send(p) // redelivered
				p.stop()
				p = startPipelines(t, dir) // a restart
				send(p)
				p.stop()

				recs := artifact.Records(td)
				var spans []*artifact.Record
				var logs []artifact.LogRecord
				for _, g := range store.Split(recs, store.ByTrace, "") {
					s, l := readLogs(t, filepath.Join(dir, store.FileName(g.Key, "")))
					spans, logs = append(spans, s...), append(logs, l...)
				}
				assert.Len(t, spans, len(recs))
				assert.Equal(t, plogcmp.Records(ld), plogcmp.Records(artifact.ToLogs(logs)), "every log record once, as received")
			})
		}
	}
}

// TestLogsPartialFailure: log records of an artifact that cannot be
// written are returned for retrying, the others are written, and the
// retry writes the failed ones once. Records without a trace id go to the
// untraced artifact.
func TestLogsPartialFailure(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, nil)
	push(t, e, spec{tid: 2, sid: 1})
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	untraced := lrs.AppendEmpty()
	untraced.Body().SetStr("no trace")
	traced := lrs.AppendEmpty()
	traced.SetTraceID(tid(2))
	traced.SetSpanID(sid(1))
	traced.Body().SetStr("answer")
	blocker := filepath.Join(dir, store.UntracedFileName)
	require.NoError(t, os.Mkdir(blocker, 0o755))

	err := e.pushLogs(context.Background(), ld)
	require.Error(t, err)
	assert.False(t, consumererror.IsPermanent(err), "retrying may succeed")
	var failed consumererror.Logs
	require.ErrorAs(t, err, &failed)
	retry := failed.Data()
	require.Equal(t, 1, retry.LogRecordCount(), "only the untraced record")
	_, logs := readLogs(t, tracePath(dir, 2))
	require.Len(t, logs, 1)
	assert.Equal(t, "answer", logs[0].Log.Body().Str())

	require.NoError(t, os.Remove(blocker))
	require.NoError(t, e.pushLogs(context.Background(), retry))
	require.NoError(t, e.pushLogs(context.Background(), retry))
	require.NoError(t, e.shutdown(context.Background()))
	_, logs = readLogs(t, filepath.Join(dir, store.UntracedFileName))
	require.Len(t, logs, 1)
	assert.Equal(t, "no trace", logs[0].Log.Body().Str())
}

// TestLogsRedacted: named keys and the secret scan reach log bodies and
// attributes, as they reach spans.
func TestLogsRedacted(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.Redact.Keys = []string{"content"} })
	push(t, e, spec{tid: 1, sid: 1})
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTraceID(tid(1))
	lr.SetSpanID(sid(1))
	lr.Body().SetEmptyMap().PutStr("content", "my secret prompt")
	lr.Attributes().PutStr("content", "my secret prompt")
	require.NoError(t, e.pushLogs(context.Background(), ld))
	require.NoError(t, e.shutdown(context.Background()))
	raw, err := os.ReadFile(tracePath(dir, 1))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "my secret prompt")
	_, logs := readLogs(t, tracePath(dir, 1))
	assert.Len(t, logs, 1)
}
