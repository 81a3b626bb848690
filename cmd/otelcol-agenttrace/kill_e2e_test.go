package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/e2eload"
)

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
	return startProcess(t, bin, append(killConfig(t, grpcAddr, httpAddr), extra...),
		[]string{"AGENTTRACE_DIR=" + dir, "AGENTTRACE_QUEUE_DIR=" + queueDir}, grpcAddr, httpAddr, log)
}

// startProcess starts bin with args, the test's environment and env, its
// output in log, and waits until it accepts connections on grpcAddr. It
// is killed at cleanup if the test has not stopped it.
func startProcess(t *testing.T, bin string, args, env []string, grpcAddr, httpAddr, log string) *collector {
	t.Helper()
	c := &collector{done: make(chan struct{}), grpc: grpcAddr, http: httpAddr, log: log}
	logf, err := os.Create(c.log)
	require.NoError(t, err)
	defer logf.Close()
	c.cmd = exec.Command(bin, args...)
	c.cmd.Env = append(os.Environ(), env...)
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
	e2eload.Await(t, 30*time.Second, "collector listening on "+grpcAddr, func() bool {
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
		e2eload.Await(t, 2*time.Minute, fmt.Sprintf("%d acknowledged spans before kill %d", target, k), func() bool { return exp.Acked() >= target })
		col.kill9(t)
		killedAt := time.Now()
		col = startShipped(t, bin, dir, grpcAddr, httpAddr, k)
		before := exp.Acked()
		e2eload.Await(t, 2*time.Minute, "acknowledgements after restart", func() bool { return exp.Acked() > before })
		recoveries = append(recoveries, time.Since(killedAt))
	}
	target := int64(kills+1) * perRun
	e2eload.Await(t, 2*time.Minute, fmt.Sprintf("%d acknowledged spans", target), func() bool { return exp.Acked() >= target })
	stopLoad()
	elapsed := time.Since(begin)
	acked := exp.AckedSpans()

	// The queue hands the exporter what it held: wait until every
	// acknowledged span is in an artifact, then stop cleanly.
	// A lost span never comes: then the count below says how many.
	drained := e2eload.Poll(time.Minute, func() bool { return e2eload.AllWritten(acked, dir) })
	assert.True(t, drained, "every acknowledged span in an artifact within a minute of the last")
	col.stop(t)

	seen, files, lost := checkArtifacts(t, dir, acked)
	t.Logf("kill -9 x%d: %d spans acknowledged (%d generated) in %v (%.0f spans/s), %d in artifacts, %d lost, %d artifacts, %d failed exports retried by the SDK's caller, restart to first acknowledgement %v",
		kills, len(acked), started(), elapsed.Round(time.Millisecond), float64(len(acked))/elapsed.Seconds(),
		len(seen), lost, files, exp.Fails(), recoveries)
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

// startLoad sends agent runs (invoke_agent over three chat calls,
// service "kill-nine") from four goroutines through the Go SDK to
// grpcAddr until stop, which flushes and shuts the provider down. started
// counts the spans generated.
func startLoad(t *testing.T, grpcAddr string) (exp *e2eload.Sender, started func() int64, stop func()) {
	t.Helper()
	l := e2eload.Start(t, grpcAddr, e2eload.Options{Service: "kill-nine", Scope: "agenttrace/kill-nine", Agent: "kill"})
	return l.Sender, l.Generated, l.Stop
}

// checkArtifacts reads every artifact of dir after a clean stop: each is
// valid (e2eload.CheckArtifact), no span is in two places, and every
// acknowledged span is in its trace's artifact. It returns where each span is, the number of
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
		art := e2eload.CheckArtifact(t, filepath.Join(dir, e.Name()))
		if art == nil {
			continue
		}
		for _, id := range art.SpanIDs() {
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
