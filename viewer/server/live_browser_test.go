package server_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// The viewer itself follows a growing run: records appended to the file
// after the page was served become waterfall rows, with the cards updated,
// and nothing is shown twice.
func TestViewerTailsRun(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	records := 0
	for _, l := range lines {
		if !strings.Contains(l, `"kind":"meta"`) && !strings.Contains(l, `"kind":"summary"`) {
			records++
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "live.jsonl")
	appendFile(t, path, lines[0]+lines[1])
	ts := start(t, dir, fast)
	ctx := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/live.jsonl")))
	rows := func(n int) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.body.dataset.ready === "1" && document.querySelectorAll('#rows .row').length === %d`, n)))
		require.NoError(t, err, "waiting for %d rows", n)
	}
	// The first record, and its parent, which has not ended yet: running.
	rows(2)
	_, err0 := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.runState === "running" && document.querySelectorAll('#rows .row.running').length === 1`))
	require.NoError(t, err0, "the parent shows as running")
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(document.getElementById('live') || {}).textContent === '● live'`))
	require.NoError(t, err, "the page connected to its event stream")

	// The rest of the run, one line torn across two writes.
	rest := strings.Join(lines[2:], "")
	appendFile(t, path, rest[:len(rest)/2])
	appendFile(t, path, rest[len(rest)/2:])
	rows(records)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.runState`))
	require.NoError(t, err)
	require.Equal(t, "done", state)
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#rows .row')).map(r => r.dataset.spanId)`))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, id := range ids {
		require.False(t, seen[id], "row %s shown twice", id)
		seen[id] = true
	}
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('cards').innerText`))
	require.NoError(t, err)
	require.Contains(t, cards, fmt.Sprint(records))
	browsertest.Screenshot(t, ctx, "viewer-live.png")
}
