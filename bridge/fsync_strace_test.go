package bridge_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFsyncPerTurnStrace runs the SDK demo (`agenttrace demo --out DIR`:
// the real OTel Go SDK with this processor, default options) under strace
// and checks the default policy, FsyncTurn: at least one fsync or
// fdatasync per turn, the turns counted from the artifact the run wrote
// (its model calls and tool calls, store.TurnEnds). Before FsyncTurn the
// run made one fsync in all (the root's), so an OS crash lost every turn.
//
// strace is a test dependency: .ci/run installs it. Outside CI a machine
// without it skips the test; with CI=true it fails, as a missing browser
// fails the browser tests there.
func TestFsyncPerTurnStrace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("strace is Linux's")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("strace is required with CI=true (.ci/run installs it): %v", err)
		}
		t.Skip("strace not installed (apt-get install strace); CI=true makes this a failure")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "go is needed to build the CLI")

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "agenttrace")
	build := exec.Command(goBin, "build", "-o", bin, "github.com/agenttrace/agenttrace/cmd/agenttrace")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	dir := filepath.Join(tmp, "runs")
	log := filepath.Join(tmp, "strace.txt")
	run := exec.Command(strace, "-f", "-e", "trace=fsync,fdatasync", "-o", log, bin, "demo", "--out", dir)
	out, err = run.CombinedOutput()
	if err != nil && strings.Contains(string(out), "ptrace") {
		// A container that forbids ptrace cannot run the check at all;
		// that is a machine to fix, not a pass.
		t.Fatalf("strace cannot trace here: %s", out)
	}
	require.NoError(t, err, "strace agenttrace demo: %s", out)

	trace, err := os.ReadFile(log)
	require.NoError(t, err)
	syncs := len(regexp.MustCompile(`(?m)\b(fsync|fdatasync)\(`).FindAll(trace, -1))

	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "the demo wrote no artifact")
	turns := 0
	for _, p := range paths {
		turns += countTurns(t, p)
	}
	require.Positive(t, turns, "the demo's artifact holds no model or tool call")
	t.Logf("%d turns, %d fsyncs", turns, syncs)
	require.GreaterOrEqual(t, syncs, turns, "FsyncTurn must sync once per turn at least")
}

// countTurns counts the records of the artifact at path that end a turn:
// model calls and tool calls (kind "inference" and "call").
func countTurns(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Kind string `json:"kind"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec), "%s", path)
		if rec.Kind == "inference" || rec.Kind == "call" {
			n++
		}
	}
	require.NoError(t, sc.Err())
	return n
}
