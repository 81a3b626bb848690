package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// inFlightTool returns the span id of the first tool call's start record
// ("in_flight":true) in the artifact at path, "" while there is none.
func inFlightTool(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		var rec struct {
			Kind       string `json:"kind"`
			SpanID     string `json:"span_id"`
			InFlight   bool   `json:"in_flight"`
			FinishedAt string `json:"finished_at"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Kind == "call" && rec.InFlight {
			require.Empty(t, rec.FinishedAt, "a start record has no end")
			return rec.SpanID
		}
	}
	return ""
}

// TestServeShowsToolInFlight (issue 24 point 5): the SDK demo, run in
// real time through the span processor with a tool call that lasts
// seconds, writes that call's start record when it starts; serve's page
// shows the call in flight, its time running, and then ended, once its
// ended record supersedes the start record.
func TestServeShowsToolInFlight(t *testing.T) {
	dir := t.TempDir()
	_, url, _ := startServe(t, "", dir, "--addr", "127.0.0.1:0")
	ctx := browsertest.New(t, browsertest.WithNetwork(), browsertest.WithTimeout(2*time.Minute))
	const slow = 8 * time.Second
	startDemo(t, "--out", dir, "--speed", "1", "--slow-tool", slow.String())
	path := filepath.Join(dir, agentsim.TraceID(defaultDemoSeed).String()+".jsonl")
	var span string
	require.Eventually(t, func() bool { span = inFlightTool(t, path); return span != "" }, time.Minute, 20*time.Millisecond,
		"the demo writes the tool call's start record")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"run/"+filepath.Base(path))))
	row := fmt.Sprintf(`document.querySelector('#rows .row[data-span-id="%s"]')`, span)
	// In flight: its row runs, and its time grows past two seconds.
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1" && document.body.dataset.runState === "running" && (() => {
	  const r = `+row+`;
	  if (!r || !r.classList.contains('inflight') || !r.classList.contains('running')) return false;
	  const d = r.querySelector('.dur').textContent;
	  return d.endsWith(' …') && parseFloat(d) >= 2 && / s /.test(d + ' ');
	})()`, chromedp.WithPollingTimeout(slow)))
	require.NoError(t, err, "the tool call shows in flight, its time running")
	browsertest.Screenshot(t, ctx, "demo-tool-in-flight.png")
	// The model call that ended under the running agent is that agent's.
	agents, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#by-agent tbody tr')).map(tr => tr.cells[0].innerText)`))
	require.NoError(t, err)
	require.Equal(t, []string{"planner"}, agents, "the ended call is under its agent in flight, not under no agent")

	// Ended: the ended record supersedes the start record.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
	  const r = `+row+`;
	  return !!r && !r.classList.contains('inflight') && !r.classList.contains('running') && !r.querySelector('.dur').textContent.endsWith(' …');
	})()`, chromedp.WithPollingTimeout(slow+30*time.Second)))
	require.NoError(t, err, "the tool call shows ended")
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#rows .row[data-span-id="`+span+`"]').length`))
	require.NoError(t, err)
	require.Equal(t, 1, n, "one row for the span: the start record superseded")
}
