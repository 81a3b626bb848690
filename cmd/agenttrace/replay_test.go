package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// toolsScript is today's version of the demo's tools as a shell script:
// the flight search is still down (503), the others answer. broken names
// a tool that now fails without a code.
func toolsScript(t *testing.T, broken string) string {
	t.Helper()
	script := `#!/bin/sh
in=$(cat)
case "$in" in
  *'"tool":"` + broken + `"'*) echo "` + broken + ` is down" >&2; exit 1;;
  *'"tool":"search_flights"'*) echo "flights.example: 503 Service Unavailable" >&2; echo '{"code":"503"}'; exit 1;;
  *'"args":{'*) echo '{"ok":true}';;
  *) echo "no arguments" >&2; exit 1;;
esac
`
	path := filepath.Join(t.TempDir(), "tools.sh")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// demoArtifact runs the demo (with --budget when budget is not "") and
// returns its artifact.
func demoArtifact(t *testing.T, budget string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"demo", "--out", dir}
	if budget != "" {
		args = append(args, "--budget", budget)
	}
	r := agenttrace(t, "", args...)
	require.Equal(t, 0, r.code, r.stderr)
	runs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	return runs[0]
}

// replayJSON is the part of `replay --json` the tests speak of.
type replayJSON struct {
	Counts   map[string]int `json:"counts"`
	Diverged bool           `json:"diverged"`
	DryRun   bool           `json:"dry_run"`
	Calls    []struct {
		Status   string `json:"status"`
		Recorded struct{ Tool string }
		Replayed *struct {
			OK      bool
			Code    string
			Message string
		}
	} `json:"calls"`
}

func TestReplayExec(t *testing.T) {
	run := demoArtifact(t, "")
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	r := agenttrace(t, "", "replay", run, "--exec", toolsScript(t, "none"))
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Replay  every replayed call matched\nCalls    4: 4 matched, 0 diverged, 0 not replayable, 0 skipped\n", r.stdout)

	r = agenttrace(t, "", "replay", run, "--exec", toolsScript(t, "search_trains"), "--json")
	assert.Equal(t, 1, r.code, r.stderr)
	var got replayJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, 3, got.Counts["matched"])
	assert.Equal(t, 1, got.Counts["diverged"])
	assert.True(t, got.Diverged)
	var diverged []string
	for _, c := range got.Calls {
		if c.Status == "diverged" {
			diverged = append(diverged, c.Recorded.Tool)
			require.NotNil(t, c.Replayed)
			assert.Equal(t, "search_trains is down", c.Replayed.Message, "standard error is the message")
		}
	}
	assert.Equal(t, []string{"search_trains"}, diverged)

	// The failure's code, from standard output, is compared.
	r = agenttrace(t, "", "replay", run, "--exec", `cat >/dev/null; if [ "$AGENTTRACE_TOOL" = search_flights ]; then echo '{"error":{"code":"429"}}'; exit 1; fi; echo '{}'`)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "[1] diverged (code)\n")
	assert.Contains(t, r.stdout, "  now    failed 429: ")
}

func TestReplayBudgetStoppedRun(t *testing.T) {
	r := agenttrace(t, "", "replay", demoArtifact(t, "3000"), "--exec", toolsScript(t, "none"), "--json")
	assert.Equal(t, 0, r.code, r.stderr)
	var got replayJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, map[string]int{"calls": 3, "matched": 2, "diverged": 0, "not_replayable": 0, "skipped": 1}, got.Counts)
}

func TestReplayValidate(t *testing.T) {
	run := demoArtifact(t, "")
	r := agenttrace(t, "", "replay", run, "--validate", `cat >/dev/null; [ "$AGENTTRACE_TOOL" != find_hotels ] || { echo "find_hotels: near is not allowed" >&2; exit 1; }`, "--json")
	assert.Equal(t, 1, r.code, r.stderr)
	var got replayJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.True(t, got.DryRun)
	assert.Equal(t, 3, got.Counts["matched"])
	assert.Equal(t, 1, got.Counts["diverged"])
}

func TestReplayUsage(t *testing.T) {
	run := judgeFixture("diff-base.jsonl")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no command", []string{run}, 2, "replay needs --exec CMD"},
		{"both commands", []string{run, "--exec", "true", "--validate", "true"}, 2, "cannot be used together"},
		{"no input", []string{"--exec", "true"}, 2, "missing input"},
		{"two inputs", []string{run, run, "--exec", "true"}, 2, "got 2 inputs"},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.jsonl"), "--exec", "true"}, 2, "none.jsonl"},
		{"command not found", []string{run, "--exec", "agenttrace-no-such-command"}, 2, "cannot be run (exit status 127)"},
		{"bad timeout", []string{run, "--exec", "true", "--timeout", "0s"}, 2, "--timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := agenttrace(t, "", append([]string{"replay"}, tt.args...)...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
		})
	}
}

// TestReplayTimeout: a call past --timeout failed.
func TestReplayTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := agenttrace(t, "", "replay", judgeFixture("diff-base.jsonl"), "--exec", "sleep 5", "--timeout", "50ms", "--json")
	assert.Equal(t, 1, r.code, r.stderr)
	var got replayJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.NotEmpty(t, got.Calls)
	require.NotNil(t, got.Calls[0].Replayed)
	assert.Contains(t, got.Calls[0].Replayed.Message, "no answer within 50ms")
}
