package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/report"
)

// In a real browser, a folder of seed-shaped transcript and trajectory
// logs is listed and followed: lines appended to a log while its run page
// is open become rows of its waterfall, and lines appended while the list
// is open change its row, up to what the whole log reads as.
func TestBrowserFollowsInputs(t *testing.T) {
	dir := t.TempDir()
	files := []string{"session-transcript.jsonl", "trajectory-b7e2c1d4.jsonl"}
	parts := map[string][3]string{} // served first, appended on the run page, appended on the list
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(inputsDir, f))
		require.NoError(t, err)
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		a, b := len(lines)/3, 2*len(lines)/3
		parts[f] = [3]string{strings.Join(lines[:a], ""), strings.Join(lines[a:b], ""), strings.Join(lines[b:], "") + "\n"}
		appendFile(t, filepath.Join(dir, f), parts[f][0])
		copyFile(t, filepath.Join(inputsDir, f), dir, "whole/"+f)
	}
	ts := start(t, dir, fast)
	ctx := browsertest.New(t, browsertest.WithNetwork())

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/")))
	for _, f := range files {
		href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('tr[data-path=`+jsString(f)+`] td.run a') || {}).getAttribute?.('href') || ''`))
		require.NoError(t, err)
		require.Equal(t, "/run/"+f, href, "listed, linked to its page")
	}

	for _, f := range files {
		path := filepath.Join(dir, f)
		rows := func(n int, why string) {
			t.Helper()
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.body.dataset.ready === "1" && document.querySelectorAll('#rows .row').length === %d`, n)))
			require.NoError(t, err, "%s: %s: waiting for %d rows", f, why, n)
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/"+f)))
		served := len(ts.data(t, f).Records)
		rows(served, "as served")
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`(document.getElementById('live') || {}).textContent === '● live'`))
		require.NoError(t, err, "the page connected to its event stream")

		// Lines appended, the last one in two writes: the page follows.
		more := parts[f][1]
		appendFile(t, path, more[:len(more)-10])
		appendFile(t, path, more[len(more)-10:])
		grown := len(ts.data(t, f).Records)
		require.Greater(t, grown, served, "%s: the lines appended make records", f)
		rows(grown, "grown")

		// The list follows the rest, up to what the whole log reads as.
		whole := ts.data(t, "whole/"+f)
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/")))
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument = true; true`))
		require.NoError(t, err)
		appendFile(t, path, parts[f][2])
		row := `document.querySelector('tr[data-path=` + jsString(f) + `]')`
		require.Greater(t, len(whole.Records), grown, "%s: the rest makes records", f)
		want := report.Thousands(int64(len(whole.Records)))
		require.NoError(t, pollAcrossNavigation(ctx, `!window.sameDocument && !!`+row+` && `+row+`.querySelector('td[data-col=records]').innerText === `+jsString(want)),
			"%s: the list reloads itself and shows the whole log's %s records", f, want)
		total, err := chromedp.Run(ctx, chromedp.Evaluate[string](row+`.querySelector('td[data-col=total]').innerText`))
		require.NoError(t, err)
		require.Equal(t, report.Thousands(whole.Report.Tokens.Total), total)
	}

	// The transcript's page, as the whole log reads: its tool calls and
	// the tokens its inference.responded lines report.
	tp := parts["session-transcript.jsonl"]
	truth := transcriptTruth(t, []byte(strings.Join(tp[:], "")))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/session-transcript.jsonl")))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1" && document.getElementById('cards').innerText.includes(`+jsString(report.Thousands(truth.tokens.Total))+`)`))
	require.NoError(t, err, "the cards show the log's %d tokens", truth.tokens.Total)
	var calls int64
	for _, n := range truth.tools {
		calls += n
	}
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`Array.from(document.querySelectorAll('#rows .row')).filter(r => r.innerText.includes('execute_tool')).length === %d`, calls)))
	require.NoError(t, err, "one row per tool_use block (%d)", calls)
	browsertest.Screenshot(t, ctx, "viewer-transcript-followed.png")
}
