package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/clibuild"
)

// nobody is the uid and gid the non-root test runs the collector as.
const nobody = 65534

// openToOthers makes path and every directory above it up to the
// system's temporary directory traversable by other users: t.TempDir
// makes 0700 directories, which nobody cannot enter.
func openToOthers(t *testing.T, path string) {
	t.Helper()
	root := filepath.Clean(os.TempDir())
	for d := path; strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		require.NoError(t, err)
		require.NoError(t, os.Chmod(d, fi.Mode().Perm()|0o055))
	}
}

// startAsNobody starts bin with the shipped config (loopback ports, no
// telemetry port) as uid/gid nobody, with env as its whole environment
// but for AGENTTRACE_DIR and AGENTTRACE_QUEUE_DIR, which it never holds.
// It does not wait for the ports: a start that fails is what one case
// checks.
func startAsNobody(t *testing.T, bin string, env []string, grpcAddr, httpAddr string) *collector {
	t.Helper()
	c := &collector{done: make(chan struct{}), grpc: grpcAddr, http: httpAddr, log: filepath.Join(t.TempDir(), "collector.log")}
	logf, err := os.Create(c.log)
	require.NoError(t, err)
	defer logf.Close()
	c.cmd = exec.Command(bin, killConfig(t, grpcAddr, httpAddr)...)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "AGENTTRACE_DIR=") && !strings.HasPrefix(kv, "AGENTTRACE_QUEUE_DIR=") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	c.cmd.Dir = "/" // a directory nobody may enter, as a login shell would have
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
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
	return c
}

// envWithout is os.Environ without HOME and the agenttrace directories.
func envWithout() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "AGENTTRACE_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestCollectorNonRoot is issue 26's deploy check: the shipped single
// collector config (deploy/collector/agenttrace.yaml), run as a non-root
// user (nobody) with AGENTTRACE_DIR and AGENTTRACE_QUEUE_DIR unset,
// starts with its defaults under $HOME/.local/state/agenttrace, accepts a
// trace over OTLP and writes its artifact there, owned by that user, and
// the artifact passes `agenttrace validate` after a clean stop. With HOME
// unset as well the defaults become /.local/state/agenttrace/...: the
// collector must not start (a non-root user cannot create them); its log
// warns that HOME is unset and says the queue's mkdir /.local was denied.
func TestCollectorNonRoot(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("switches users with SysProcAttr.Credential")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the collector as nobody")
	}
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	bin := buildDistribution(t)
	openToOthers(t, filepath.Dir(bin))
	cli := clibuild.Path(t)

	t.Run("defaults under HOME", func(t *testing.T) {
		home := t.TempDir()
		require.NoError(t, os.Chown(home, nobody, nobody))
		openToOthers(t, filepath.Dir(home))
		grpcAddr, httpAddr := freePort(t), freePort(t)
		c := startAsNobody(t, bin, append(envWithout(), "HOME="+home), grpcAddr, httpAddr)
		e2eAwaitDial(t, c, grpcAddr)
		e2eAwaitDial(t, c, httpAddr)
		runs := filepath.Join(home, ".local", "state", "agenttrace", "runs")
		h := &hostileTarget{collector: c, dir: runs}
		h.alive(t)
		h.normal(t)
		files := h.written(t)
		c.stop(t)
		require.Len(t, files, 1)
		for _, p := range []string{files[0], runs, filepath.Join(home, ".local", "state", "agenttrace", "queue")} {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, uint32(nobody), fi.Sys().(*syscall.Stat_t).Uid, "%s owned by nobody", p)
		}
		out, err := exec.Command(cli, "validate", files[0]).CombinedOutput()
		require.NoError(t, err, "validate:\n%s", out)
	})

	t.Run("HOME unset", func(t *testing.T) {
		_, err := os.Stat("/.local")
		require.ErrorIs(t, err, os.ErrNotExist, "/.local exists: the case cannot show what a fresh host does")
		c := startAsNobody(t, bin, envWithout(), freePort(t), freePort(t))
		select {
		case <-c.done:
		case <-time.After(30 * time.Second):
			c.dumpLog(t)
			t.Fatal("collector started as nobody with HOME unset: its directories would be /.local/state/agenttrace")
		}
		require.Error(t, c.err, "exit status")
		log, err := os.ReadFile(c.log)
		require.NoError(t, err)
		t.Logf("HOME unset: %v; log tail:\n%s", c.err, tail(string(log), 6))
		// What a user sees: a warning that HOME is unset, then the queue's
		// mkdir refused. It names neither AGENTTRACE_QUEUE_DIR nor the
		// whole default path (deploy/README.md says which variable to set).
		assert.Regexp(t, `Configuration references unset environment variable\s+\{"name": "HOME"\}`, string(log))
		assert.Contains(t, string(log), `Error: failed to build extensions: failed to create extension "file_storage/queue": mkdir /.local: permission denied`)
	})
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
