package server_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// stepLines are records from through to-1 of a run whose root (span 1)
// has not ended: tool calls, one after another, every seventh failing.
func stepLines(from, to int) string {
	var b strings.Builder
	t0 := time.Date(2026, 12, 5, 22, 0, 0, 0, time.UTC)
	for i := from; i < to; i++ {
		start := t0.Add(time.Duration(i) * time.Second)
		ok := "true"
		if i%7 == 0 {
			ok = `false,"code":"timeout"`
		}
		fmt.Fprintf(&b, `{"kind":"call","name":"execute_tool step","trace_id":"%032x","span_id":"%016x","parent_span_id":"%016x","op":"execute_tool","started_at":"%s","finished_at":"%s","ok":%s,"tool":"step-%d"}`+"\n",
			7, i+2, 1, start.Format(time.RFC3339Nano), start.Add(500*time.Millisecond).Format(time.RFC3339Nano), ok, i)
	}
	return b.String()
}

// The run page follows new rows while the view is at its bottom, and
// stays where the user scrolled to otherwise; its filters and layout
// settings (search, kinds, errors only, detail mode) are kept across a
// reload.
func TestViewerFollowsAndKeepsSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "steps.jsonl")
	appendFile(t, path, `{"v":1,"kind":"meta","started_at":"2026-12-05T22:00:00Z"}`+"\n"+stepLines(0, 100))
	ts := start(t, dir, fast)
	ctx := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/steps.jsonl")))
	await := func(js, what string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js))
		require.NoError(t, err, what)
	}
	eval := func(js string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
		require.NoError(t, err)
	}
	rows := func(n int) string {
		return fmt.Sprintf(`document.body.dataset.ready === "1" && document.body.dataset.visibleRows === "%d"`, n)
	}
	const atBottom = `(() => { const s = document.getElementById('waterfall-scroll'); return s.scrollHeight > s.clientHeight && s.scrollTop + s.clientHeight >= s.scrollHeight - 1; })()`
	await(rows(101)+` && (document.getElementById('live') || {}).textContent === '● live'`, "100 records and their running root, live")

	// At the bottom, new rows are followed.
	eval(`(() => { const s = document.getElementById('waterfall-scroll'); s.scrollTop = s.scrollHeight; })()`)
	await(atBottom, "scrolled to the bottom")
	appendFile(t, path, stepLines(100, 120))
	await(rows(121), "20 more rows")
	await(atBottom+` && document.querySelector('#rows .row:last-child').dataset.spanId === '`+fmt.Sprintf("%016x", 121)+`'`, "the view followed them to the last row")

	// Scrolled up, the view stays.
	eval(`document.getElementById('waterfall-scroll').scrollTop = 0`)
	appendFile(t, path, stepLines(120, 140))
	await(rows(141), "20 more rows")
	top, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById('waterfall-scroll').scrollTop`))
	require.NoError(t, err)
	require.Zero(t, top, "scrolled up: not moved")

	// Settings, then a reload.
	eval(`(() => {
	  document.getElementById('errors-only').click();
	  const m = document.getElementById('mode'); m.value = 'verbose'; m.dispatchEvent(new Event('change'));
	  const s = document.getElementById('search'); s.value = 'Step-1'; s.dispatchEvent(new Event('input'));
	})()`)
	// Errors among step-1, step-10..19, step-100..139: i%7 == 0 → 14, 105, 112, 119, 126, 133; with their root as context.
	await(rows(7), "errors only, searched")
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	await(rows(7), "the same rows after a reload")
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`[document.getElementById('search').value, document.getElementById('errors-only').checked, document.getElementById('mode').value, document.body.dataset.mode]`))
	require.NoError(t, err)
	require.Equal(t, []any{"Step-1", true, "verbose", "verbose"}, kept)
}
