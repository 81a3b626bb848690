package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/converter"
)

// ackExporter is the SDK's OTLP/gRPC exporter, remembering every span of
// the batches it reported as exported: what the collector acknowledged.
type ackExporter struct {
	sdktrace.SpanExporter
	mu    sync.Mutex
	acked map[string]string // span id -> trace id
	n     atomic.Int64
	fails atomic.Int64
}

func (a *ackExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := a.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		a.fails.Add(1)
		return err
	}
	a.mu.Lock()
	for _, s := range spans {
		a.acked[s.SpanContext().SpanID().String()] = s.SpanContext().TraceID().String()
	}
	a.mu.Unlock()
	a.n.Add(int64(len(spans)))
	return nil
}

func (a *ackExporter) snapshot() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]string, len(a.acked))
	for k, v := range a.acked {
		out[k] = v
	}
	return out
}

// killConfig returns the --config arguments that run the shipped single
// collector config unchanged but for its loopback ports and its own
// telemetry (off, so that parallel runs do not fight over port 8888).
func killConfig(t *testing.T, grpcAddr, httpAddr string) []string {
	t.Helper()
	cfg, err := filepath.Abs(filepath.Join(deployDir, "collector", "agenttrace.yaml"))
	require.NoError(t, err)
	args := []string{
		"--config", cfg,
		"--config", "yaml:receivers::otlp::protocols::grpc::endpoint: " + grpcAddr,
		"--config", "yaml:receivers::otlp::protocols::http::endpoint: " + httpAddr,
		"--config", "yaml:service::telemetry::metrics::level: none",
	}
	// AGENTTRACE_KILL_CONFIG merges one more config over it, to measure
	// what another set-up loses (docs/benchmarks.md, Durability).
	if extra := os.Getenv("AGENTTRACE_KILL_CONFIG"); extra != "" {
		args = append(args, "--config", extra)
	}
	return args
}

// startShipped starts bin with the shipped config on the given ports,
// artifacts in dir and its queue beside it, and waits until gRPC accepts.
func startShipped(t *testing.T, bin, dir, grpcAddr, httpAddr string, run int) *collector {
	t.Helper()
	return startShippedLog(t, bin, dir, dir+".queue", grpcAddr, httpAddr, filepath.Join(filepath.Dir(dir), fmt.Sprintf("collector-%d.log", run)))
}

// startShippedQueue is startShipped with the queue in queueDir.
func startShippedQueue(t *testing.T, bin, dir, queueDir, grpcAddr, httpAddr string) *collector {
	t.Helper()
	return startShippedLog(t, bin, dir, queueDir, grpcAddr, httpAddr, filepath.Join(t.TempDir(), "collector.log"))
}

// startShippedLog is startShipped with the queue in queueDir, the log in
// log, and extra arguments after the config's (more --config layers).
func startShippedLog(t *testing.T, bin, dir, queueDir, grpcAddr, httpAddr, log string, extra ...string) *collector {
	t.Helper()
	c := &collector{done: make(chan struct{}), grpc: grpcAddr, http: httpAddr, log: log}
	logf, err := os.Create(c.log)
	require.NoError(t, err)
	defer logf.Close()
	c.cmd = exec.Command(bin, append(killConfig(t, grpcAddr, httpAddr), extra...)...)
	c.cmd.Env = append(os.Environ(), "AGENTTRACE_DIR="+dir, "AGENTTRACE_QUEUE_DIR="+queueDir)
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	require.NoError(t, c.cmd.Start())
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	await(t, 30*time.Second, "collector listening on "+grpcAddr, func() bool {
		select {
		case <-c.done:
			c.dumpLog(t)
			t.Fatalf("collector exited: %v", c.err)
		default:
		}
		return dialable(grpcAddr)
	})
	return c
}

// kill9 sends SIGKILL and waits for the process to be gone.
func (c *collector) kill9(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
	<-c.done
}

// await polls cond until it holds, failing the test after timeout.
func await(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// poll polls cond until it holds (true) or timeout passes (false).
func poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// scanSpanIDs reads the span ids of every complete record line under dir
// (artifacts may be mid-write: a last line without its newline is skipped).
func scanSpanIDs(dir string) map[string]int {
	ids := map[string]int{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
		} else {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var l struct {
				Kind   string `json:"kind"`
				SpanID string `json:"span_id"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.SpanID != "" && l.Kind != "meta" && l.Kind != "summary" {
				ids[l.SpanID]++
			}
		}
	}
	return ids
}

// TestKillNine: the real distribution with the shipped config
// (deploy/collector/agenttrace.yaml: persistent sending queue, no batch
// processor) under load from the Go SDK (otlptracegrpc with retries) is
// killed with SIGKILL and restarted on the same ports, again and again;
// afterwards every span the SDK's exporter reported as exported is in
// exactly one artifact, no span is in two places, and after a clean stop
// every artifact ends with a trailer and reads without a problem.
// AGENTTRACE_LONG=1 runs five kills with more load per run.
func TestKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	kills, perRun := 1, int64(4000)
	if os.Getenv("AGENTTRACE_LONG") == "1" {
		kills, perRun = 5, 20000
	}
	bin := buildDistribution(t)
	root := t.TempDir()
	dir := filepath.Join(root, "runs")
	grpcAddr, httpAddr := freePort(t), freePort(t)

	col := startShipped(t, bin, dir, grpcAddr, httpAddr, 0)

	exp, started, stopLoad := startLoad(t, grpcAddr)

	begin := time.Now()
	var recoveries []time.Duration
	for k := 1; k <= kills; k++ {
		target := int64(k) * perRun
		await(t, 2*time.Minute, fmt.Sprintf("%d acknowledged spans before kill %d", target, k), func() bool { return exp.n.Load() >= target })
		col.kill9(t)
		killedAt := time.Now()
		col = startShipped(t, bin, dir, grpcAddr, httpAddr, k)
		before := exp.n.Load()
		await(t, 2*time.Minute, "acknowledgements after restart", func() bool { return exp.n.Load() > before })
		recoveries = append(recoveries, time.Since(killedAt))
	}
	target := int64(kills+1) * perRun
	await(t, 2*time.Minute, fmt.Sprintf("%d acknowledged spans", target), func() bool { return exp.n.Load() >= target })
	stopLoad()
	elapsed := time.Since(begin)
	acked := exp.snapshot()

	// The queue hands the exporter what it held: wait until every
	// acknowledged span is in an artifact, then stop cleanly.
	// A lost span never comes: then the count below says how many.
	drained := poll(time.Minute, func() bool {
		got := scanSpanIDs(dir)
		for id := range acked {
			if got[id] == 0 {
				return false
			}
		}
		return true
	})
	assert.True(t, drained, "every acknowledged span in an artifact within a minute of the last")
	col.stop(t)

	seen, files, lost := checkArtifacts(t, dir, acked)
	t.Logf("kill -9 x%d: %d spans acknowledged (%d generated) in %v (%.0f spans/s), %d in artifacts, %d lost, %d artifacts, %d failed exports retried by the SDK's caller, restart to first acknowledgement %v",
		kills, len(acked), started(), elapsed.Round(time.Millisecond), float64(len(acked))/elapsed.Seconds(),
		len(seen), lost, files, exp.fails.Load(), recoveries)
}

// dialable reports whether something accepts TCP connections on addr.
func dialable(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// startLoad sends agent runs (invoke_agent over three chat calls) from four
// goroutines through the Go SDK (batch span processor, blocking; OTLP/gRPC
// with quick retries) to grpcAddr until stop, which flushes and shuts the
// provider down. started counts the spans generated.
func startLoad(t *testing.T, grpcAddr string) (exp *ackExporter, started func() int64, stop func()) {
	t.Helper()
	ctx := context.Background()
	inner, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(grpcAddr), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 2 * time.Minute,
		}))
	require.NoError(t, err)
	exp = &ackExporter{SpanExporter: inner, acked: map[string]string{}}
	res := resource.NewSchemaless(attribute.String("service.name", "kill-nine"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithBatcher(exp, sdktrace.WithBlocking(), sdktrace.WithMaxExportBatchSize(256), sdktrace.WithBatchTimeout(10*time.Millisecond)))
	tr := tp.Tracer("agenttrace/kill-nine")

	// Load: agent runs (invoke_agent over three chat calls) from four
	// goroutines until stopped.
	done := make(chan struct{})
	var wg sync.WaitGroup
	var n atomic.Int64
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				rctx, root := tr.Start(ctx, "invoke_agent kill", trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "kill")))
				for range 3 {
					_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
						attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
						attribute.Int64("gen_ai.usage.input_tokens", 100), attribute.Int64("gen_ai.usage.output_tokens", 20)))
					chat.End()
				}
				root.End()
				n.Add(4)
			}
		})
	}

	return exp, n.Load, func() {
		close(done)
		wg.Wait()
		require.NoError(t, tp.Shutdown(ctx), "every span exported")
	}
}

// checkArtifacts reads every artifact of dir after a clean stop: each is
// valid (every line JSON, a header first, a trailer last that counts the
// file), no span is in two places, and every acknowledged span is in its
// trace's artifact. It returns where each span is, the number of
// artifacts and of acknowledged spans lost.
func checkArtifacts(t *testing.T, dir string, acked map[string]string) (seen map[string]string, files, lost int) {
	t.Helper()
	seen = map[string]string{} // span id -> file
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			t.Logf("not an artifact: %s", e.Name())
			continue
		}
		files++
		if info, err := e.Info(); err == nil && info.Size() == 0 {
			t.Errorf("%s: empty file", e.Name())
			continue
		}
		art := readArtifact(t, filepath.Join(dir, e.Name()))
		if assert.NotEmpty(t, art.kinds, e.Name()) {
			assert.Equal(t, "meta", art.kinds[0], "%s: header first", e.Name())
			assert.Equal(t, "summary", art.kinds[len(art.kinds)-1], "%s: a trailer last", e.Name())
		}
		if assert.NotNil(t, art.summary, e.Name()) {
			assert.Equal(t, int64(len(art.records)), art.summary.Records, "%s: the trailer counts the file", e.Name())
			var tally converter.Tally
			for i := range art.records {
				tally.Add(&art.records[i])
			}
			assert.Equal(t, tally.Summary(nil).Tokens, art.summary.Tokens, "%s: the trailer's tokens are the file's", e.Name())
		}
		for _, r := range art.records {
			id := r.Span.SpanID().String()
			if prev, dup := seen[id]; dup {
				t.Errorf("span %s in %s and %s", id, prev, e.Name())
			}
			seen[id] = e.Name()
		}
	}
	for id, traceID := range acked {
		f, ok := seen[id]
		if !ok {
			lost++
			continue
		}
		assert.Equal(t, traceID+".jsonl", f, "span %s in its trace's artifact", id)
	}
	assert.Zero(t, lost, "acknowledged spans lost")
	return seen, files, lost
}
