package twotier

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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

const (
	// builderVersion is the OpenTelemetry Collector Builder that builds the
	// gateway; its core version is the one otelcol-agenttrace is built on.
	builderVersion = "v0.162.0"
	// The shipped configs: the ConfigMaps of these manifests are run
	// unchanged but for addresses, directories and the resolver.
	tier1Manifest = "../k8s/tier1-loadbalancer.yaml"
	tier2Manifest = "../k8s/agenttrace-collector.yaml"
	// Each agent run is a root span over three chat calls of 100 input
	// and 20 output tokens.
	spansPerTrace              = 4
	inputPerTrace, outPerTrace = 300, 60
)

// binDir holds the otelcol-agenttrace binary built for this run.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce                sync.Once
	gatewayBin, collectorBin string
	buildErr                 error
)

// binaries builds the tier-2 distribution (plain `go build` of
// cmd/otelcol-agenttrace) and the tier-1 gateway (the builder, cached),
// once per test binary.
func binaries(t *testing.T) (gateway, collector string) {
	t.Helper()
	if os.Getenv("AGENTTRACE_TWOTIER") != "1" {
		t.Skip("two-tier end-to-end test: set AGENTTRACE_TWOTIER=1 (builds a contrib collector; minutes)")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "twotier")
		if buildErr != nil {
			return
		}
		collectorBin = filepath.Join(binDir, "otelcol-agenttrace")
		build := exec.Command("go", "build", "-o", collectorBin, ".")
		build.Dir = filepath.Join("..", "..", "cmd", "otelcol-agenttrace")
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build otelcol-agenttrace: %w\n%s", err, out)
			return
		}
		gatewayBin, buildErr = buildGateway()
	})
	require.NoError(t, buildErr)
	return gatewayBin, collectorBin
}

// buildGateway builds builder-config.yaml with the builder into
// $AGENTTRACE_CACHE (default ~/.cache/agenttrace), in a directory named
// after the manifest, the builder and the Go version, and reuses it when
// it is there. The build goes to a side directory first, so an
// interrupted one never looks finished.
func buildGateway() (string, error) {
	manifest, err := os.ReadFile("builder-config.yaml")
	if err != nil {
		return "", fmt.Errorf("gateway manifest: %w", err)
	}
	cache := os.Getenv("AGENTTRACE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("gateway cache: %w", err)
		}
		cache = filepath.Join(home, ".cache", "agenttrace")
	}
	sum := sha256.Sum256(fmt.Appendf(manifest, "\n%s %s", builderVersion, runtime.Version()))
	dir := filepath.Join(cache, "otelcol-gateway-"+hex.EncodeToString(sum[:6]))
	bin := filepath.Join(dir, "otelcol-gateway")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("gateway build directory: %w", err)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("gateway cache: %w", err)
	}
	withOutput := strings.Replace(string(manifest), "\ndist:\n", "\ndist:\n  output_path: "+tmp+"\n", 1)
	if withOutput == string(manifest) {
		return "", errors.New("builder-config.yaml: no top-level `dist:` section to add output_path to")
	}
	m := tmp + ".yaml"
	if err := os.WriteFile(m, []byte(withOutput), 0o644); err != nil {
		return "", fmt.Errorf("gateway manifest: %w", err)
	}
	defer os.Remove(m)
	build := exec.Command("go", "run", "go.opentelemetry.io/collector/cmd/builder@"+builderVersion, "--config", m)
	build.Dir = cache
	// The generated module is not part of this repository's workspace.
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the gateway with the builder %s: %w\n%s", builderVersion, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("gateway build directory: %w", err)
	}
	return bin, nil
}

// configMapConfig writes the `config.yaml` of the ConfigMap in manifest to
// a file and returns its path: the collector config as shipped.
func configMapConfig(t *testing.T, manifest string) string {
	t.Helper()
	raw, err := os.ReadFile(manifest)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var body []string
	for i, l := range lines {
		if strings.TrimSpace(l) != "config.yaml: |" {
			continue
		}
		cut := -1
		for _, b := range lines[i+1:] {
			if strings.TrimSpace(b) == "" {
				body = append(body, "")
				continue
			}
			if cut < 0 {
				cut = indent(b)
			}
			if indent(b) <= indent(l) {
				break
			}
			body = append(body, b[min(cut, indent(b)):])
		}
		break
	}
	require.NotEmpty(t, body, "%s: no ConfigMap with a config.yaml", manifest)
	p := filepath.Join(t.TempDir(), filepath.Base(manifest))
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(body, "\n")), 0o644))
	return p
}

// process is a running collector.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // of Wait, once done is closed
	log  string
}

// start runs bin with args, its output in log, and waits until addr
// accepts connections. It is killed at cleanup if still running.
func start(t *testing.T, name, log, addr, bin string, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: name, done: make(chan struct{}), log: log}
	f, err := os.Create(log)
	require.NoError(t, err)
	defer f.Close()
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	require.NoError(t, p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	await(t, 30*time.Second, name+" listening on "+addr, func() bool {
		select {
		case <-p.done:
			p.dumpLog(t)
			t.Fatalf("%s exited: %v", name, p.err)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return p
}

func (p *process) dumpLog(t *testing.T) {
	b, _ := os.ReadFile(p.log)
	t.Logf("%s log (last 4 KB):\n%s", p.name, b[max(0, len(b)-4096):])
}

// kill9 sends SIGKILL and waits for the process to be gone.
func (p *process) kill9(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.done
}

// stop sends SIGTERM and waits for a clean exit.
func (p *process) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.dumpLog(t)
		t.Fatalf("%s did not exit within a minute of SIGTERM", p.name)
	}
	if p.err != nil {
		p.dumpLog(t)
	}
	require.NoError(t, p.err, "%s exit", p.name)
}

// tier2 is one agenttrace collector: its ports, artifact folder and queue
// outlive its restarts.
type tier2 struct {
	grpc, http, dir, queue string
	proc                   *process
	starts                 int
}

// layout is the gateway in front of two agenttrace collectors, all on
// loopback, with the shipped configs of deploy/k8s.
type layout struct {
	t                        *testing.T
	root                     string
	gatewayBin, collectorBin string
	gatewayConfig            string
	collectorConfig          string
	grpc, http               string // the gateway's, where the SDK sends
	gateway                  *process
	gatewayStarts            int
	tier2                    [2]*tier2
}

func newLayout(t *testing.T) *layout {
	t.Helper()
	gw, col := binaries(t)
	l := &layout{
		t: t, root: t.TempDir(), gatewayBin: gw, collectorBin: col,
		gatewayConfig:   configMapConfig(t, tier1Manifest),
		collectorConfig: configMapConfig(t, tier2Manifest),
		grpc:            freePort(t), http: freePort(t),
	}
	for i := range l.tier2 {
		l.tier2[i] = &tier2{
			grpc: freePort(t), http: freePort(t),
			dir:   filepath.Join(l.root, fmt.Sprintf("tier2-%d", i), "runs"),
			queue: filepath.Join(l.root, fmt.Sprintf("tier2-%d", i), "queue"),
		}
		l.startCollector(i)
	}
	l.startGateway()
	return l
}

// startCollector (re)starts tier-2 collector i with the shipped tier-2
// config on its own ports and folders; its telemetry is off so that
// the three processes do not share port 8888.
func (l *layout) startCollector(i int) {
	c := l.tier2[i]
	c.proc = start(l.t, fmt.Sprintf("tier2-%d", i), filepath.Join(l.root, fmt.Sprintf("tier2-%d.%d.log", i, c.starts)), c.grpc, l.collectorBin, nil,
		"--config", l.collectorConfig,
		"--config", "yaml:receivers::otlp::protocols::grpc::endpoint: "+c.grpc,
		"--config", "yaml:receivers::otlp::protocols::http::endpoint: "+c.http,
		"--config", "yaml:exporters::agenttrace::directory: "+c.dir,
		"--config", "yaml:extensions::file_storage/queue::directory: "+c.queue,
		"--config", "yaml:service::telemetry::metrics::level: none")
	c.starts++
}

// startGateway (re)starts the gateway with the shipped tier-1 config,
// the DNS resolver replaced by a static one naming the two collectors.
// AGENTTRACE_TWOTIER_GATEWAY_CONFIG merges one more config over it (to
// measure another set-up, e.g. testdata/tier1-persistent-queue.yaml);
// TWOTIER_GATEWAY_QUEUE names a directory such a config may use.
func (l *layout) startGateway() {
	args := []string{
		"--config", l.gatewayConfig,
		"--config", "yaml:receivers::otlp::protocols::grpc::endpoint: " + l.grpc,
		"--config", "yaml:receivers::otlp::protocols::http::endpoint: " + l.http,
		"--config", "yaml:exporters::loadbalancing::resolver::dns: null",
		"--config", "yaml:exporters::loadbalancing::resolver::static::hostnames: [" + l.tier2[0].grpc + ", " + l.tier2[1].grpc + "]",
		"--config", "yaml:service::telemetry::metrics::level: none",
	}
	if extra := os.Getenv("AGENTTRACE_TWOTIER_GATEWAY_CONFIG"); extra != "" {
		abs, err := filepath.Abs(extra)
		require.NoError(l.t, err)
		args = append(args, "--config", abs)
	}
	env := []string{"TWOTIER_GATEWAY_QUEUE=" + filepath.Join(l.root, "gateway-queue")}
	l.gateway = start(l.t, "gateway", filepath.Join(l.root, fmt.Sprintf("gateway.%d.log", l.gatewayStarts)), l.grpc, l.gatewayBin, env, args...)
	l.gatewayStarts++
}

func (l *layout) dirs() []string { return []string{l.tier2[0].dir, l.tier2[1].dir} }

// finish waits until every acknowledged span is in an artifact (the
// collectors' queues hand over what they hold; a lost span never comes,
// and the count says how many), then stops the gateway and the
// collectors cleanly so that every artifact gets its trailer.
func (l *layout) finish(acked map[string]string) {
	drained := poll(2*time.Minute, func() bool {
		got := spanIDs(l.dirs())
		for id := range acked {
			if got[id] == 0 {
				return false
			}
		}
		return true
	})
	assert.True(l.t, drained, "every acknowledged span in an artifact within two minutes of the last")
	l.gateway.stop(l.t)
	for _, c := range l.tier2 {
		c.proc.stop(l.t)
	}
}

// sender is the SDK's OTLP/gRPC exporter, remembering the spans of every
// batch the gateway acknowledged, and of every batch the exporter gave up
// on (its 10 s timeout passed; the batch span processor then drops it).
type sender struct {
	sdktrace.SpanExporter
	mu      sync.Mutex
	acked   map[string]string // span id -> trace id
	refused map[string]string // span id -> trace id
	n       atomic.Int64
}

func (s *sender) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := s.SpanExporter.ExportSpans(ctx, spans)
	into := s.acked
	if err != nil {
		into = s.refused
	}
	s.mu.Lock()
	for _, sp := range spans {
		into[sp.SpanContext().SpanID().String()] = sp.SpanContext().TraceID().String()
	}
	s.mu.Unlock()
	if err == nil {
		s.n.Add(int64(len(spans)))
	}
	return err
}

// sent is what the SDK made of a run.
type sent struct {
	acked, refused map[string]string // span id -> trace id
	generated      int
}

// load sends agent runs from four goroutines through the Go SDK (batch
// span processor, blocking; OTLP/gRPC with quick retries for two minutes)
// to addr until stop, which flushes and shuts the provider down.
func load(t *testing.T, addr string) (s *sender, stop func() sent) {
	t.Helper()
	ctx := context.Background()
	exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(addr), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 2 * time.Minute,
		}))
	require.NoError(t, err)
	s = &sender{SpanExporter: exp, acked: map[string]string{}, refused: map[string]string{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "twotier"))),
		sdktrace.WithBatcher(s, sdktrace.WithBlocking(), sdktrace.WithMaxExportBatchSize(256), sdktrace.WithBatchTimeout(10*time.Millisecond)))
	tr := tp.Tracer("agenttrace/twotier")
	done := make(chan struct{})
	var wg sync.WaitGroup
	var generated atomic.Int64
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				rctx, root := tr.Start(ctx, "invoke_agent twotier", trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "twotier")))
				for range spansPerTrace - 1 {
					_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
						attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
						attribute.Int64("gen_ai.usage.input_tokens", inputPerTrace/(spansPerTrace-1)),
						attribute.Int64("gen_ai.usage.output_tokens", outPerTrace/(spansPerTrace-1))))
					chat.End()
				}
				root.End()
				generated.Add(spansPerTrace)
			}
		})
	}
	return s, func() sent {
		close(done)
		wg.Wait()
		require.NoError(t, tp.Shutdown(ctx), "the SDK flushed")
		s.mu.Lock()
		defer s.mu.Unlock()
		return sent{acked: s.acked, refused: s.refused, generated: int(generated.Load())}
	}
}

// outcome is what the artifacts of both collectors hold after a run.
type outcome struct {
	generated, acked, refused int
	written, lost, dup        int
	refusedWritten            int    // of the refused spans, in artifacts all the same
	traces                    int    // trace ids with an artifact
	perCollector              [2]int // artifacts in each folder
	split                     int    // traces with an artifact in both folders
	partial                   int    // artifacts of traces the SDK gave up some spans of
}

func (o outcome) String() string {
	return fmt.Sprintf("%d spans generated, %d acknowledged, %d given up by the SDK (%d of them written all the same), %d in artifacts, %d acknowledged lost, %d duplicated; %d traces: %d + %d artifacts in the two folders, %d traces split, %d partial (spans given up)",
		o.generated, o.acked, o.refused, o.refusedWritten, o.written, o.lost, o.dup, o.traces, o.perCollector[0], o.perCollector[1], o.split, o.partial)
}

// check reads every artifact of both folders after a clean stop: each is
// valid (every line JSON, a header first, a trailer last counting the
// file, tokens and all; a whole trace has its three calls' tokens), a
// trace has an artifact in one folder only, no span is written twice,
// and every acknowledged span is in its trace's artifact. A trace the SDK
// gave up some spans of may be partial; every other trace is whole.
func check(t *testing.T, dirs []string, s sent) outcome {
	t.Helper()
	o := outcome{generated: s.generated, acked: len(s.acked), refused: len(s.refused)}
	partial := map[string]bool{} // trace ids with spans given up
	for _, traceID := range s.refused {
		partial[traceID] = true
	}
	where := map[string]string{} // span id -> folder/file
	folders := map[string]int{}  // trace id -> folders holding it
	for i, dir := range dirs {
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range ents {
			name := filepath.Join(dir, e.Name())
			if !strings.HasSuffix(e.Name(), ".jsonl") {
				t.Errorf("not an artifact: %s", name)
				continue
			}
			o.perCollector[i]++
			traceID := strings.TrimSuffix(e.Name(), ".jsonl")
			folders[traceID]++
			if partial[traceID] {
				o.partial++
			}
			for _, id := range checkArtifact(t, name, !partial[traceID]) {
				if prev, dup := where[id]; dup {
					o.dup++
					t.Errorf("span %s in %s and %s", id, prev, name)
				}
				where[id] = name
			}
		}
	}
	o.traces = len(folders)
	for id, n := range folders {
		if n > 1 {
			o.split++
			t.Errorf("trace %s has an artifact in both folders", id)
		}
	}
	o.written = len(where)
	for id := range s.refused {
		if where[id] != "" {
			o.refusedWritten++
		}
	}
	for id, traceID := range s.acked {
		f, ok := where[id]
		if !ok {
			o.lost++
			continue
		}
		assert.Equal(t, traceID+".jsonl", filepath.Base(f), "span %s in its trace's artifact", id)
	}
	return o
}

// checkArtifact checks one artifact, whole or not, and returns its span
// ids.
func checkArtifact(t *testing.T, path string, whole bool) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	var kinds []string
	for _, line := range lines {
		var l struct {
			Kind string `json:"kind"`
		}
		if !assert.NoError(t, json.Unmarshal(line, &l), "%s: %s", path, line) {
			return nil
		}
		kinds = append(kinds, l.Kind)
	}
	assert.Equal(t, "meta", kinds[0], "%s: a header first", path)
	assert.Equal(t, "summary", kinds[len(kinds)-1], "%s: a trailer last", path)
	r := converter.NewReader(bytes.NewReader(raw), converter.WithSource(path))
	var ids []string
	var tally converter.Tally
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		tally.Add(rec)
		ids = append(ids, rec.Span.SpanID().String())
	}
	for _, p := range r.Problems() {
		t.Errorf("%s: %v", path, p)
	}
	sum := r.Summary()
	if assert.NotNil(t, sum, "%s: trailer", path) {
		assert.Equal(t, int64(len(ids)), sum.Records, "%s: the trailer counts the file", path)
		assert.Equal(t, tally.Summary(nil).Tokens, sum.Tokens, "%s: the trailer's tokens are the file's", path)
		// A whole trace is in its one artifact: four spans and the
		// tokens of its three calls.
		if whole {
			assert.Len(t, ids, spansPerTrace, "%s: a whole trace", path)
			assert.Equal(t, [2]int64{inputPerTrace, outPerTrace}, [2]int64{sum.Tokens.Input, sum.Tokens.Output}, "%s: a whole trace's tokens", path)
		}
	}
	return ids
}

// spanIDs counts the span ids of the complete record lines in dirs
// (artifacts may be mid-write).
func spanIDs(dirs []string) map[string]int {
	ids := map[string]int{}
	for _, dir := range dirs {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			b = b[:bytes.LastIndexByte(b, '\n')+1]
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
	}
	return ids
}

// freePort returns a loopback address nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
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

// spansPerPhase is how many spans the SDK must see acknowledged before a
// kill and again after it (AGENTTRACE_TWOTIER_SPANS overrides it).
func spansPerPhase(t *testing.T) int64 {
	n := int64(10000)
	if v := os.Getenv("AGENTTRACE_TWOTIER_SPANS"); v != "" {
		var err error
		n, err = strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "AGENTTRACE_TWOTIER_SPANS")
	}
	return n
}

// TestTwoTier runs the layout under load from the Go SDK: steadily, with
// a `kill -9` of one tier-2 collector (restarted at once, and after 15 s
// down), and with one of the gateway. In each, every acknowledged span is
// in exactly one artifact, every trace is whole in one collector's folder,
// both collectors get traces (the routing by trace id spreads them), and
// after a clean stop every artifact has a trailer that counts it.
func TestTwoTier(t *testing.T) {
	for _, tc := range []struct {
		name string
		down time.Duration // how long the killed process stays down
		kill func(l *layout) *process
		back func(l *layout)
	}{
		{name: "steady"},
		{
			name: "kill-9 tier 2",
			kill: func(l *layout) *process { return l.tier2[0].proc },
			back: func(l *layout) { l.startCollector(0) },
		},
		{
			name: "kill-9 tier 2, 15 s down", down: 15 * time.Second,
			kill: func(l *layout) *process { return l.tier2[0].proc },
			back: func(l *layout) { l.startCollector(0) },
		},
		{
			name: "kill-9 tier 1",
			kill: func(l *layout) *process { return l.gateway },
			back: func(l *layout) { l.startGateway() },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			phase := spansPerPhase(t)
			s, stop := load(t, l.grpc)
			begin := time.Now()
			var recovery time.Duration
			var ackedWhileDown int64
			if tc.kill != nil {
				await(t, 3*time.Minute, fmt.Sprintf("%d acknowledged spans before the kill", phase), func() bool { return s.n.Load() >= phase })
				tc.kill(l).kill9(t)
				killed, before := time.Now(), s.n.Load()
				if tc.down > 0 {
					time.Sleep(tc.down) // an outage of a fixed length, not a wait for a condition
					ackedWhileDown = s.n.Load() - before
				}
				tc.back(l)
				restarted := s.n.Load()
				await(t, 3*time.Minute, "acknowledgements after the restart", func() bool { return s.n.Load() > restarted })
				recovery = time.Since(killed)
			}
			target := s.n.Load() + phase
			await(t, 3*time.Minute, fmt.Sprintf("%d acknowledged spans", target), func() bool { return s.n.Load() >= target })
			run := stop()
			elapsed := time.Since(begin)
			l.finish(run.acked)

			o := check(t, l.dirs(), run)
			assert.Zero(t, o.lost, "acknowledged spans lost")
			assert.Zero(t, o.dup, "spans written twice")
			assert.Zero(t, o.split, "traces split over the collectors")
			assert.Equal(t, o.generated, o.acked+o.refused, "every span generated was acknowledged or given up")
			if tc.kill == nil {
				assert.Zero(t, o.refused, "spans given up by the SDK under steady load")
			}
			for i, n := range o.perCollector {
				assert.Positive(t, n, "artifacts in tier-2 collector %d", i)
			}
			t.Logf("%s: %v in %v (%.0f spans/s acknowledged); %d acknowledged while down; kill to first acknowledgement after the restart %v",
				tc.name, o, elapsed.Round(time.Millisecond), float64(o.acked)/elapsed.Seconds(), ackedWhileDown, recovery.Round(time.Millisecond))
		})
	}
}

// TestShippedGatewayConfig: the gateway binary accepts the tier-1 config
// exactly as shipped, DNS resolver and all (the load test swaps that
// resolver for a static one).
func TestShippedGatewayConfig(t *testing.T) {
	gw, _ := binaries(t)
	out, err := exec.Command(gw, "validate", "--config", configMapConfig(t, tier1Manifest)).CombinedOutput()
	require.NoError(t, err, "%s", out)
}
