package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// dialectsDir holds the OTLP/JSON payloads of every GenAI dialect.
const dialectsDir = "../../testdata/dialects"

// TestEndToEnd builds the distribution, runs it with the OTLP receiver and
// the agenttrace exporter, sends GenAI traces over gRPC, HTTP/protobuf and
// HTTP/JSON, and checks the artifacts it leaves, across a restart.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	bin := buildDistribution(t)
	dir := t.TempDir()
	ctx := context.Background()

	// First run: three traces, over gRPC, HTTP/protobuf and HTTP/JSON.
	col := startCollector(t, bin, dir)
	sentA := sendAgentTrace(ctx, t, grpcExporter(ctx, t, col.grpc), "grpc-agent")
	sentB := sendAgentTrace(ctx, t, httpExporter(ctx, t, col.http), "http-agent")
	oiPayload := readPayload(t, filepath.Join(dialectsDir, "openinference.json"))
	col.postJSON(t, oiPayload)
	col.stop(t)

	oiWant := byTrace(artifact.Records(unmarshalJSON(t, oiPayload)))
	wantFiles := []string{sentA.file(), sentB.file()}
	for id := range oiWant {
		wantFiles = append(wantFiles, id+".jsonl")
	}
	assert.ElementsMatch(t, wantFiles, artifactNames(t, dir), "one artifact per trace")

	for _, s := range []*sentTrace{sentA, sentB} {
		art := readArtifact(t, filepath.Join(dir, s.file()))
		assert.ElementsMatch(t, s.spanIDs, art.spanIDs(), "%s: every span exactly once", s.file())
		require.NotNil(t, art.summary, s.file())
		assert.Equal(t, s.input, art.summary.Tokens.Input, s.file())
		assert.Equal(t, s.output, art.summary.Tokens.Output, s.file())
		assert.Equal(t, s.input+s.output, art.summary.Tokens.Total, s.file())
		assert.Equal(t, []string{"meta"}, art.kinds[:1], s.file())
		assert.Equal(t, "summary", art.kinds[len(art.kinds)-1], s.file())
	}
	oiCounts := map[string]int{}
	for id, recs := range oiWant {
		file := id + ".jsonl"
		art := readArtifact(t, filepath.Join(dir, file))
		var want []string
		var tally artifact.Tally
		for i := range recs {
			want = append(want, recs[i].Span.SpanID().String())
			tally.Add(&recs[i])
		}
		assert.ElementsMatch(t, want, art.spanIDs(), "%s: every span exactly once", file)
		require.NotNil(t, art.summary, file)
		assert.Equal(t, tally.Summary(nil).Tokens, art.summary.Tokens, file)
		oiCounts[file] = len(art.records)
	}

	// Second run on the same directory: a late span of trace (a) and the
	// OpenInference batch redelivered.
	col = startCollector(t, bin, dir)
	late := sendLateSpan(ctx, t, grpcExporter(ctx, t, col.grpc), sentA)
	col.postJSON(t, oiPayload)
	col.stop(t)

	art := readArtifact(t, filepath.Join(dir, sentA.file()))
	assert.Equal(t, 1, count(art.kinds, "meta"), "one header")
	assert.Equal(t, "meta", art.kinds[0])
	assert.Equal(t, "summary", art.kinds[len(art.kinds)-1], "a new trailer last")
	assert.Equal(t, 2, count(art.kinds, "summary"), "the first run's trailer and the new one")
	assert.ElementsMatch(t, append(append([]string{}, sentA.spanIDs...), late), art.spanIDs(), "late span appended once")
	require.NotNil(t, art.summary)
	assert.Equal(t, sentA.input+lateInput, art.summary.Tokens.Input, "the last trailer counts the whole file")
	assert.Equal(t, sentA.output+lateOutput, art.summary.Tokens.Output)
	assert.Equal(t, int64(len(sentA.spanIDs)+1), art.summary.Records)
	for file, n := range oiCounts {
		art := readArtifact(t, filepath.Join(dir, file))
		ids := art.spanIDs()
		assert.Len(t, ids, n, "%s: same record count as before", file)
		assert.Equal(t, len(ids), len(uniq(ids)), "%s: no duplicate span ids", file)
	}

	// Every dialect, into a fresh directory: the artifact holds the spans
	// `agenttrace convert` writes for the same payload.
	t.Run("dialects", func(t *testing.T) {
		dir := t.TempDir()
		col := startCollector(t, bin, dir)
		paths, err := filepath.Glob(filepath.Join(dialectsDir, "*.json"))
		require.NoError(t, err)
		want := map[string][]artifact.Record{}
		from := map[string]string{}
		for _, p := range paths {
			if strings.HasSuffix(p, ".expect.json") {
				continue
			}
			payload := readPayload(t, p)
			for id, recs := range byTrace(artifact.Records(unmarshalJSON(t, payload))) {
				require.NotContains(t, from, id, "trace %s in both %s and %s", id, from[id], p)
				from[id], want[id] = filepath.Base(p), recs
			}
			col.postJSON(t, payload)
		}
		require.NotEmpty(t, want)
		col.stop(t)
		for id, recs := range want {
			art := readArtifact(t, filepath.Join(dir, id+".jsonl"))
			assert.Equal(t, ptracecmp.Spans(artifact.ToTraces(recs)), ptracecmp.Spans(artifact.ToTraces(art.records)),
				"%s: trace %s", from[id], id)
		}
	})
}

// buildDistribution builds this package into a temporary directory.
func buildDistribution(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "otelcol-agenttrace")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return bin
}

// collector is a running distribution.
type collector struct {
	cmd        *exec.Cmd
	done       chan struct{}
	err        error // of Wait, once done is closed
	log        string
	grpc, http string
}

// freePort returns a loopback address nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// startCollector starts bin with testdata/e2e.yaml writing to dir and
// waits until both OTLP ports accept connections. The process is killed at
// cleanup if the test has not stopped it.
func startCollector(t *testing.T, bin, dir string) *collector {
	t.Helper()
	c := &collector{done: make(chan struct{}), grpc: freePort(t), http: freePort(t)}
	c.log = filepath.Join(t.TempDir(), "collector.log")
	logf, err := os.Create(c.log)
	require.NoError(t, err)
	defer logf.Close()
	cfg, err := filepath.Abs("testdata/e2e.yaml")
	require.NoError(t, err)
	c.cmd = exec.Command(bin, "--config", cfg)
	c.cmd.Env = append(os.Environ(),
		"E2E_GRPC_ENDPOINT="+c.grpc, "E2E_HTTP_ENDPOINT="+c.http, "E2E_DIR="+dir,
		// Beside dir, not in it: the queue belongs to dir's runs and
		// outlives a restart with them.
		"E2E_QUEUE_DIR="+dir+".queue")
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	require.NoError(t, c.cmd.Start())
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
			return
		default:
		}
		_ = c.cmd.Process.Kill()
		<-c.done
		c.dumpLog(t)
	})

	deadline := time.Now().Add(30 * time.Second)
	for _, addr := range []string{c.http, c.grpc} {
		for {
			conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-c.done:
				c.dumpLog(t)
				t.Fatalf("collector exited before listening on %s: %v", addr, c.err)
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				c.dumpLog(t)
				t.Fatalf("collector not listening on %s: %v", addr, err)
			}
		}
	}
	return c
}

func (c *collector) dumpLog(t *testing.T) {
	b, _ := os.ReadFile(c.log)
	t.Logf("collector log:\n%s", b)
}

// stop sends SIGTERM and waits for a clean exit.
func (c *collector) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		c.dumpLog(t)
		t.Fatal("collector did not exit within 30s of SIGTERM")
	}
	if c.err != nil {
		c.dumpLog(t)
	}
	require.NoError(t, c.err, "collector exit")
}

// postJSON sends an OTLP/JSON payload to /v1/traces.
func (c *collector) postJSON(t *testing.T, payload []byte) {
	t.Helper()
	resp, err := http.Post("http://"+c.http+"/v1/traces", "application/json", bytes.NewReader(payload))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
}

func grpcExporter(ctx context.Context, t *testing.T, addr string) sdktrace.SpanExporter {
	t.Helper()
	exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(addr), otlptracegrpc.WithInsecure())
	require.NoError(t, err)
	return exp
}

func httpExporter(ctx context.Context, t *testing.T, addr string) sdktrace.SpanExporter {
	t.Helper()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure())
	require.NoError(t, err)
	return exp
}

// sentTrace is what a test sent of one trace.
type sentTrace struct {
	traceID       trace.TraceID
	rootID        trace.SpanID
	spanIDs       []string
	input, output int64
}

func (s *sentTrace) file() string { return s.traceID.String() + ".jsonl" }

// withProvider runs f with a tracer of a provider exporting to exp, then
// flushes and shuts the provider down.
func withProvider(ctx context.Context, t *testing.T, exp sdktrace.SpanExporter, service string, f func(trace.Tracer)) {
	t.Helper()
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", service)))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	f(tp.Tracer("agenttrace/e2e"))
	require.NoError(t, tp.ForceFlush(ctx))
	require.NoError(t, tp.Shutdown(ctx))
}

// sendAgentTrace sends an agent run: invoke_agent, two chat calls with
// token usage and a tool call.
func sendAgentTrace(ctx context.Context, t *testing.T, exp sdktrace.SpanExporter, agent string) *sentTrace {
	t.Helper()
	s := &sentTrace{}
	withProvider(ctx, t, exp, agent, func(tr trace.Tracer) {
		rctx, root := tr.Start(ctx, "invoke_agent "+agent, trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(
				attribute.String("gen_ai.operation.name", "invoke_agent"),
				attribute.String("gen_ai.agent.name", agent),
			))
		s.traceID, s.rootID = root.SpanContext().TraceID(), root.SpanContext().SpanID()
		for i, u := range [][2]int64{{120, 30}, {200, 45}} {
			_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient),
				trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "chat"),
					attribute.String("gen_ai.provider.name", "openai"),
					attribute.String("gen_ai.request.model", "gpt-4o"),
					attribute.Int64("gen_ai.usage.input_tokens", u[0]),
					attribute.Int64("gen_ai.usage.output_tokens", u[1]),
				))
			s.input, s.output = s.input+u[0], s.output+u[1]
			s.spanIDs = append(s.spanIDs, chat.SpanContext().SpanID().String())
			chat.End()
			if i == 0 {
				_, tool := tr.Start(rctx, "execute_tool search", trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "execute_tool"),
					attribute.String("gen_ai.tool.name", "search"),
				))
				s.spanIDs = append(s.spanIDs, tool.SpanContext().SpanID().String())
				tool.End()
			}
		}
		s.spanIDs = append(s.spanIDs, root.SpanContext().SpanID().String())
		root.End()
	})
	return s
}

const lateInput, lateOutput = 11, 4

// sendLateSpan sends one more chat span of s's trace, under its root.
func sendLateSpan(ctx context.Context, t *testing.T, exp sdktrace.SpanExporter, s *sentTrace) string {
	t.Helper()
	var id string
	withProvider(ctx, t, exp, "grpc-agent", func(tr trace.Tracer) {
		parent := trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: s.traceID, SpanID: s.rootID, TraceFlags: trace.FlagsSampled, Remote: true,
		})
		_, sp := tr.Start(trace.ContextWithRemoteSpanContext(ctx, parent), "chat gpt-4o",
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.request.model", "gpt-4o"),
				attribute.Int64("gen_ai.usage.input_tokens", lateInput),
				attribute.Int64("gen_ai.usage.output_tokens", lateOutput),
			))
		id = sp.SpanContext().SpanID().String()
		sp.End()
	})
	return id
}

func readPayload(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func unmarshalJSON(t *testing.T, payload []byte) ptrace.Traces {
	t.Helper()
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(payload)
	require.NoError(t, err)
	return td
}

// byTrace groups records by hex trace id.
func byTrace(recs []artifact.Record) map[string][]artifact.Record {
	out := map[string][]artifact.Record{}
	for _, r := range recs {
		id := r.Span.TraceID().String()
		out[id] = append(out[id], r)
	}
	return out
}

func artifactNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// readBack is an artifact as read back.
type readBack struct {
	records []artifact.Record
	summary *artifact.Summary // the last trailer
	kinds   []string          // "kind" of every line, in order
}

func (a *readBack) spanIDs() []string {
	var ids []string
	for _, r := range a.records {
		ids = append(ids, r.Span.SpanID().String())
	}
	return ids
}

func readArtifact(t *testing.T, path string) *readBack {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotEmpty(t, raw, path)
	a := &readBack{}
	for _, line := range bytes.Split(bytes.TrimRight(raw, "\n"), []byte("\n")) {
		var l struct {
			Kind string `json:"kind"`
		}
		require.NoError(t, json.Unmarshal(line, &l), "%s: %s", path, line)
		a.kinds = append(a.kinds, l.Kind)
	}
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithSource(path))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		a.records = append(a.records, *rec)
	}
	for _, p := range r.Problems() {
		t.Errorf("%s: %v", path, p)
	}
	a.summary = r.Summary()
	return a
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

func uniq(ss []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[s] = true
	}
	return m
}
