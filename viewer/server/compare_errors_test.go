package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompareErrorsDiffer: two runs with the same tool calls and outcomes
// but a model call that failed in one of them are not "same outcomes"
// (issue 26: /compare said so whenever the tool calls matched). B is the
// golden agent-run.jsonl with its first model call marked failed.
func TestCompareErrorsDiffer(t *testing.T) {
	dir := goldenDir(t, "agent-run.jsonl")
	b, err := os.ReadFile(filepath.Join(dir, "agent-run.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	require.Contains(t, lines[1], `"kind":"inference"`)
	require.Contains(t, lines[1], `"ok":true`)
	lines[1] = strings.Replace(lines[1], `"ok":true`, `"ok":false,"code":"rate_limited"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "failed.jsonl"), []byte(strings.Join(lines, "\n")), 0o644))

	ts := start(t, dir)
	resp, body := ts.get(t, "/compare?a=agent-run.jsonl&b=failed.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.NotContains(t, body, "same outcomes")
	assert.Contains(t, body, "Same tool calls, other errors</span>: A has 1, B 2", "get_weather failed in both; the model call in B only")
}
