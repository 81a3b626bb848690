package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/plogcmp"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// realOpenAI holds the payloads the official
// @opentelemetry/instrumentation-openai exported (testdata/real/README.md):
// spans with usage, and the log records with the prompts and answers.
const realOpenAI = "../../testdata/real/otel-instrumentation-openai/payloads/"

// realRun is one captured run: its spans and log records, as the
// instrumentation's exporter sent them.
type realRun struct {
	name   string
	traces ptrace.Traces
	logs   plog.Logs
}

func loadRealRun(t *testing.T, scenario, enc string) realRun {
	t.Helper()
	read := func(kind string) []byte {
		b, err := os.ReadFile(realOpenAI + scenario + "." + kind + "." + enc)
		require.NoError(t, err)
		return b
	}
	r := realRun{name: scenario + "." + enc}
	var err error
	if enc == "pb" {
		r.traces, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(read("traces"))
		require.NoError(t, err)
		r.logs, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(read("logs"))
	} else {
		r.traces, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(read("traces"))
		require.NoError(t, err)
		r.logs, err = (&plog.JSONUnmarshaler{}).UnmarshalLogs(read("logs"))
	}
	require.NoError(t, err)
	require.Positive(t, r.logs.LogRecordCount(), r.name)
	return r
}

// sender sends a run's spans and log records over one transport.
type sender struct {
	name   string
	traces func(t *testing.T, td ptrace.Traces)
	logs   func(t *testing.T, ld plog.Logs)
}

// httpSender posts OTLP/HTTP protobuf bodies to /v1/traces and /v1/logs.
func httpSender(c *collector) sender {
	post := func(t *testing.T, path string, body []byte) {
		t.Helper()
		resp, err := http.Post("http://"+c.http+path, "application/x-protobuf", bytes.NewReader(body))
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, b)
	}
	return sender{
		name: "http",
		traces: func(t *testing.T, td ptrace.Traces) {
			b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
			require.NoError(t, err)
			post(t, "/v1/traces", b)
		},
		logs: func(t *testing.T, ld plog.Logs) {
			b, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
			require.NoError(t, err)
			post(t, "/v1/logs", b)
		},
	}
}

// grpcSender exports over OTLP/gRPC.
func grpcSender(t *testing.T, c *collector) sender {
	conn, err := grpc.NewClient(c.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	ctx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 30*time.Second)
	}
	return sender{
		name: "grpc",
		traces: func(t *testing.T, td ptrace.Traces) {
			c, cancel := ctx()
			defer cancel()
			_, err := ptraceotlp.NewGRPCClient(conn).Export(c, ptraceotlp.NewExportRequestFromTraces(td))
			require.NoError(t, err)
		},
		logs: func(t *testing.T, ld plog.Logs) {
			c, cancel := ctx()
			defer cancel()
			_, err := plogotlp.NewGRPCClient(conn).Export(c, plogotlp.NewExportRequestFromLogs(ld))
			require.NoError(t, err)
		},
	}
}

// send sends r's spans and log records, log records first or last.
func (s sender) send(t *testing.T, r realRun, logsFirst bool) {
	t.Helper()
	if logsFirst {
		s.logs(t, r.logs)
		s.traces(t, r.traces)
		return
	}
	s.traces(t, r.traces)
	s.logs(t, r.logs)
}

// TestEndToEndLogs runs the distribution with a logs pipeline and sends
// the official openai instrumentation's captured runs, spans and log
// records, over OTLP/HTTP and gRPC, log records first and last; then,
// after a restart, every run again in the other order over the other
// transport. Each trace's artifact holds its spans and its log records
// exactly as received, each once.
func TestEndToEndLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	bin := buildDistribution(t)
	dir := t.TempDir()
	runs := []realRun{
		loadRealRun(t, "tool-loop", "pb"),
		loadRealRun(t, "stream", "pb"),
		loadRealRun(t, "responses-tool-loop", "json"),
		loadRealRun(t, "responses-stream", "json"),
	}
	for life := range 2 {
		col := startCollector(t, bin, dir)
		senders := []sender{httpSender(col), grpcSender(t, col)}
		for i, r := range runs {
			// Each run over one transport, in one order; the next life
			// swaps both.
			s := senders[(i+life)%2]
			logsFirst := (i/2+life)%2 == 0
			t.Logf("life %d: %s over %s, logs first: %v", life, r.name, s.name, logsFirst)
			s.send(t, r, logsFirst)
		}
		col.stop(t)
	}

	for _, r := range runs {
		recs := artifact.Records(r.traces)
		wantLogs := artifact.LogRecords(r.logs)
		for id, spans := range byTrace(recs) {
			path := filepath.Join(dir, id+".jsonl")
			gotSpans, gotLogs := readWithLogs(t, path)
			assert.Equal(t, ptracecmp.Spans(artifact.ToTraces(spans)), ptracecmp.Spans(artifact.ToTraces(gotSpans)),
				"%s: trace %s: its spans, once each", r.name, id)
			var want []artifact.LogRecord
			for _, l := range wantLogs {
				if l.Log.TraceID().String() == id {
					want = append(want, l)
				}
			}
			assert.Equal(t, plogcmp.Records(artifact.ToLogs(want)), plogcmp.Records(artifact.ToLogs(gotLogs)),
				"%s: trace %s: its log records, once each", r.name, id)
		}
	}
}

// readWithLogs reads an artifact's records and log lines.
func readWithLogs(t *testing.T, path string) ([]artifact.Record, []artifact.LogRecord) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var logs []artifact.LogRecord
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithSource(path),
		artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		recs = append(recs, *rec)
	}
	assert.Empty(t, r.Problems(), path)
	return recs, logs
}
