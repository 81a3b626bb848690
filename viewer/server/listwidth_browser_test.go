package server_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// TestRunsListFits1280 lists every captured tool loop of testdata/real
// (long model, agent and tool names, prompts, costs) and a run near its
// budget, and reads the list in Chromium at 1280 px wide: the page does
// not scroll sideways, and every column is in view (issue 24 point 4).
func TestRunsListFits1280(t *testing.T) {
	dir := t.TempDir()
	payloads, err := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "*", "payloads", "*tool-loop.traces.json"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(payloads), 20)
	for _, p := range payloads {
		lib := filepath.Base(filepath.Dir(filepath.Dir(p)))
		writePayload(t, dir, lib, strings.TrimSuffix(filepath.Base(p), ".traces.json"))
	}
	writeGeneratedRun(t, dir)
	ts := start(t, dir)
	ctx := browsertest.New(t, browsertest.WithNetwork(), browsertest.WithWindow(1280, 900))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/")))
	type width struct {
		Scroll, Client, Rows int
		Right                float64
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[width](`({
	  Scroll: document.documentElement.scrollWidth,
	  Client: document.documentElement.clientWidth,
	  Rows: document.querySelectorAll('tbody tr').length,
	  Right: Math.max(...Array.from(document.querySelectorAll('th, td')).map((e) => e.getBoundingClientRect().right)),
	})`))
	require.NoError(t, err)
	assert.Equal(t, len(payloads)+1, got.Rows, "every run listed")
	assert.LessOrEqual(t, got.Scroll, got.Client, "no horizontal scroll at 1280 px")
	assert.LessOrEqual(t, got.Right, float64(got.Client), "every cell in view")
	browsertest.Screenshot(t, ctx, "runs-list-1280.png")
	if t.Failed() {
		cols, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('thead th')).map((e) => e.textContent + ' ' + Math.round(e.getBoundingClientRect().width))`))
		require.NoError(t, err)
		t.Logf("column widths: %v", cols)
	}
}
