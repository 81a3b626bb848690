package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transcript log caught while a tool call runs (its tool_use written,
// its tool_result not yet) shows the call in flight while the file is
// being written, not failed; once the file has gained nothing for serve's
// idle time, the log is over and the call failed "incomplete", as convert
// reads it.
func TestServeGrowingLogOpenCallInFlight(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(inputsDir, "session-transcript.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	open := -1 // the first line whose prefix leaves a tool call open
	for i, l := range lines {
		if strings.Contains(l, `"type":"tool_use"`) {
			open = i + 1
			break
		}
	}
	require.Positive(t, open, "the log calls a tool")
	require.NotContains(t, lines[open-1], `"tool_result"`)
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:open], "")), 0o644))
	ts := start(t, dir, fast)

	calls := func() []callRow {
		resp, body := ts.get(t, "/data/session.jsonl")
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var v struct {
			Records []callRow `json:"records"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &v))
		var out []callRow
		for _, r := range v.Records {
			if r.Kind == "call" {
				out = append(out, r)
			}
		}
		return out
	}
	live := calls()
	require.Len(t, live, 1, "the open tool call")
	assert.True(t, live[0].InFlight, "in flight while the log is written")
	assert.False(t, live[0].Failed, "not failed while the log is written")

	old := time.Now().Add(-time.Hour) // idle for longer than serve's idle time
	require.NoError(t, os.Chtimes(path, old, old))
	over := calls()
	require.Len(t, over, 1)
	assert.False(t, over[0].InFlight, "the log is over")
	assert.True(t, over[0].Failed, "no tool result before the end of the log")
}

// callRow is what the test reads of a record of the view model.
type callRow struct {
	Kind     string `json:"kind"`
	InFlight bool   `json:"in_flight"`
	Failed   bool   `json:"failed"`
}
