package bridge_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
)

const crashEnv = "AGENTTRACE_CRASH_CHILD"

// TestCrashChild is the agent killed by TestCrashLeavesReadableArtifact:
// it records spans until it dies. Run alone, it does nothing.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("runs as the child of TestCrashLeavesReadableArtifact")
	}
	p, err := bridge.New(bridge.WithFile(path), bridge.WithBatchSize(1), bridge.WithBatchTimeout(time.Millisecond))
	require.NoError(t, err)
	tr := provider(t, p)
	for {
		ctx, root := tr.Start(context.Background(), "invoke_agent loop")
		chat(ctx, tr, 100, 20)
		tool(ctx, tr, "search", `{"q":"lisbon"}`, `{"hits":["a","b","c"]}`, "")
		root.End() // a root's end syncs the artifact
	}
}

// TestCrashLeavesReadableArtifact kills an agent mid-run (SIGKILL: no
// Shutdown, no trailer) and reads what it left: every complete line, and
// at worst one torn last line reported and skipped.
func TestCrashLeavesReadableArtifact(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("child")
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	require.NoError(t, cmd.Start())
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && bytes.Count(b, []byte("\n")) >= 60
	}, 30*time.Second, 5*time.Millisecond, "the child writes records")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	killed = true

	recs, r := readRecords(t, readFile(t, path))
	assert.GreaterOrEqual(t, len(recs), 59)
	assert.LessOrEqual(t, len(r.Problems()), 1, "at most a torn last line: %v", r.Problems())
	for _, p := range r.Problems() {
		assert.ErrorIs(t, p, artifact.ErrTornLine)
	}
	assert.Nil(t, r.Summary(), "killed: no trailer")
}
