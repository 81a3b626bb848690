package twotier

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrace/agenttrace/internal/e2eload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	e2eload.Await(t, 30*time.Second, name+" listening on "+addr, func() bool {
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
	drained := e2eload.Poll(2*time.Minute, func() bool { return e2eload.AllWritten(acked, l.dirs()...) })
	assert.True(l.t, drained, "every acknowledged span in an artifact within two minutes of the last")
	l.gateway.stop(l.t)
	for _, c := range l.tier2 {
		c.proc.stop(l.t)
	}
}
