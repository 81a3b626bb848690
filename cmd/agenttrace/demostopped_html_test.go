package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// TestHTMLShowsKilledDemoUnended: the artifact of a run killed mid-run,
// attached to a bug and opened as a page, shows what was running when it
// died. The SDK demo (start records on, as --speed sets) is killed with
// SIGKILL while a tool call lasts: the file holds the model call that
// ended and the start records of the agent and of the tool call, no
// trailer. `html` of it, once the file is older than serve's idle time,
// shows the run "stopped without an end" with the agent and the tool call
// as never ended (before: a lone model call, the run "running"), and
// `validate` and `tokens` say those spans are in no total.
func TestHTMLShowsKilledDemoUnended(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL on Windows")
	}
	dir := t.TempDir()
	demo := startDemo(t, "--out", dir, "--speed", "1", "--slow-tool", "60s")
	path := filepath.Join(dir, agentsim.TraceID(defaultDemoSeed).String()+".jsonl")
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), `"kind":"inference"`) && strings.Contains(string(b), `"kind":"call"`)
	}, time.Minute, 20*time.Millisecond, "the demo writes its first model call and starts a tool call")
	require.NoError(t, demo.Process.Signal(os.Kill))
	_ = demo.Wait()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(raw), `"kind":"summary"`, "killed: no trailer")
	old := time.Now().Add(-time.Hour) // idle for longer than serve's --idle
	require.NoError(t, os.Chtimes(path, old, old))

	v := agenttrace(t, "", "validate", path)
	require.Equal(t, 0, v.code, v.stderr)
	assert.Contains(t, v.stderr, "span(s) started and not ended, and no trailer")
	tok := agenttrace(t, "", "tokens", path)
	require.Equal(t, 0, tok.code, tok.stderr)
	assert.Contains(t, tok.stderr, "span(s) started and not ended")
	tj := agenttrace(t, "", "tokens", "--json", path)
	require.Equal(t, 0, tj.code, tj.stderr)
	var rep struct {
		ByAgent []struct {
			Agent      string `json:"agent"`
			Runs       int64  `json:"runs"`
			Inferences int64  `json:"inferences"`
		} `json:"by_agent"`
	}
	require.NoError(t, json.Unmarshal([]byte(tj.stdout), &rep))
	require.Len(t, rep.ByAgent, 1, tj.stdout)
	assert.Equal(t, "planner", rep.ByAgent[0].Agent, "the model call that ended is the running agent's")
	assert.Equal(t, int64(1), rep.ByAgent[0].Inferences)
	assert.Zero(t, rep.ByAgent[0].Runs, "the agent never ended: no run counted")

	page := filepath.Join(t.TempDir(), "killed.html")
	h := agenttrace(t, "", "html", path, "-o", page)
	require.Equal(t, 0, h.code, h.stderr)
	ctx := browsertest.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1"`))
	require.NoError(t, err)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.runState`))
	require.NoError(t, err)
	assert.Equal(t, "stopped", state)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('waterfall').innerText`))
	require.NoError(t, err)
	assert.Contains(t, rows, "execute_tool", "the tool call running when the demo died is on the page")
	assert.GreaterOrEqual(t, strings.Count(rows, "never ended"), 2, "the agent and the tool call never ended: %s", rows)
	browsertest.Screenshot(t, ctx, "html-killed-demo.png")
}
