package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportFilters: the filters keep the runs serve's list keeps. Three
// runs in one folder: a demo run stopped by its token budget (over
// budget, failed spans), a demo run that completed with a failed tool
// call (service agenttrace-demo, the demo's resource), and a captured
// OpenInference tool loop without a failure (service
// capture-openinference-anthropic).
func TestExportFilters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := agenttrace(t, "", "demo", "--out", filepath.Join(dir, "stopped"), "--budget", "3000")
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "demo", "--out", filepath.Join(dir, "done"))
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "convert", "../../testdata/real/openinference-anthropic/payloads/tool-loop.traces.json",
		"-o", filepath.Join(dir, "ok", "run.jsonl"))
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden.jsonl"), []byte("not read"), 0o600))

	cases := []struct {
		name     string
		flags    []string
		kept     int
		filtered string // the note, when runs were filtered out
	}{
		{"none", nil, 3, ""},
		{"status ok", []string{"--status", "ok"}, 1, "2 run(s) filtered out"},
		{"status error", []string{"--status", "error"}, 2, "1 run(s) filtered out"},
		{"over budget", []string{"--over-budget"}, 1, "2 run(s) filtered out"},
		{"over budget and ok", []string{"--over-budget", "--status", "ok"}, 0, "3 run(s) filtered out"},
		{"service", []string{"--service", "agenttrace-demo"}, 2, "1 run(s) filtered out"},
		{"other service", []string{"--service", "capture-openinference-anthropic", "--status", "ok"}, 1, "2 run(s) filtered out"},
		{"no such service", []string{"--service", "checkout"}, 0, "3 run(s) filtered out"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"export", "--format", "chat-jsonl", "--per", "run"}, tc.flags...)
			r := agenttrace(t, "", append(args, dir)...)
			require.Equal(t, 0, r.code, r.stderr)
			lines := parseChatJSONL(t, r.stdout)
			assert.Len(t, lines, tc.kept, "one line per kept run")
			if tc.filtered != "" {
				assert.Contains(t, r.stderr, tc.filtered)
			} else {
				assert.NotContains(t, r.stderr, "filtered out")
			}
		})
	}
}

// TestExportOutput: -o writes the file, and the lines are those written
// to standard output.
func TestExportOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := agenttrace(t, "", "demo", "--out", dir)
	require.Equal(t, 0, r.code, r.stderr)
	out := filepath.Join(t.TempDir(), "sub", "calls.jsonl")
	r = agenttrace(t, "", "export", "--format", "chat-jsonl", "-o", out, dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	std := agenttrace(t, "", "export", "--format", "chat-jsonl", dir)
	require.Equal(t, 0, std.code, std.stderr)
	assert.Equal(t, std.stdout, string(raw))
	assert.NotEmpty(t, parseChatJSONL(t, string(raw)))
}

// TestExportUsage: flags export does not know are usage errors (exit 2)
// that name the flag.
func TestExportUsage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no format", []string{"export", "x.jsonl"}, "--format is required"},
		{"unknown format", []string{"export", "--format", "csv", "x.jsonl"}, `--format "csv"`},
		{"per", []string{"export", "--format", "chat-jsonl", "--per", "trace", "x.jsonl"}, `--per "trace"`},
		{"status", []string{"export", "--format", "chat-jsonl", "--status", "done", "x.jsonl"}, `--status "done"`},
		{"no run", []string{"export", "--format", "chat-jsonl"}, "run"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := agenttrace(t, "", tc.args...)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}
