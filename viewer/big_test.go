package viewer_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// bigRecords is the size the viewer must stay responsive at.
const bigRecords = 5000

// bigRun is 5,000 records with ~2 KB in each message and result, about
// what a long agent run with real prompts writes.
func bigRun() viewer.Run {
	return synth("big.jsonl", bigRecords, "step", strings.Repeat("lorem ipsum dolor sit amet ", 80))
}

func TestFiveThousandRecordsRenderLazily(t *testing.T) {
	run := bigRun()
	page := writePage(t, []viewer.Run{run})
	ctx := browsertest.New(t)
	open(t, ctx, page)
	t.Logf("script: %s ms, of which parsing %s ms", eval[string](t, ctx, `document.body.dataset.renderMs`), eval[string](t, ctx, `document.body.dataset.parseMs`))

	require.Equal(t, strconv.Itoa(bigRecords), eval[string](t, ctx, `document.body.dataset.visibleRows`))
	inDOM := len(rowIDs(t, ctx))
	require.Positive(t, inDOM)
	require.Less(t, inDOM, 200, "rows are rendered for the viewport, not all 5,000")

	// Scrolled to the end, the last record's row is there.
	// The last row is the child that starts last (synth starts each later).
	latest := run.Records[0]
	for _, r := range run.Records[1:] {
		if r.Span.StartTimestamp() > latest.Span.StartTimestamp() {
			latest = r
		}
	}
	last := latest.Span.SpanID().String()
	eval[bool](t, ctx, `(() => { const s = document.getElementById('waterfall-scroll'); s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll')); return true; })()`)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`!!document.querySelector('#rows .row[data-span-id="%s"]')`, last)))
	require.NoError(t, err)

	// Search finds one record among 5,000 (its agent stays as context).
	target := run.Records[bigRecords/2].Span.SpanID().String()
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), target)))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.visibleRows === "2"`))
	require.NoError(t, err)
	require.Equal(t, []string{target}, eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row:not(.ctx)')).map(r => r.dataset.spanId)`))
	clearSearch(t, ctx, inDOM)

	// Next error scrolls to a row deep in the list.
	for range 3 {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next-error"))))
	}
	sel := eval[string](t, ctx, `(document.querySelector('#rows .row.sel') || {dataset: {}}).dataset.spanId || ""`)
	require.NotEmpty(t, sel, "the selected error row is in view")
	browsertest.Screenshot(t, ctx, "viewer-5000.png")
}

// BenchmarkWrite5000 is what `agenttrace html` spends on a 5,000-record
// run, and the page's size.
func BenchmarkWrite5000(b *testing.B) {
	run := bigRun()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := viewer.Write(&buf, []viewer.Run{run}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "page-bytes")
}

// BenchmarkBrowserLoad5000 is the time from navigation to the first
// rendered waterfall, in a real headless Chromium, for a 5,000-record page.
func BenchmarkBrowserLoad5000(b *testing.B) {
	page := writePage(b, []viewer.Run{bigRun()})
	ctx := browsertest.New(b)
	url := browsertest.FileURL(b, page)
	var script float64
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			b.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body && document.body.dataset.ready === "1"`)); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.renderMs`))
		if err != nil {
			b.Fatal(err)
		}
		v, _ := strconv.ParseFloat(ms, 64)
		script += v
	}
	b.ReportMetric(script/float64(b.N), "script-ms/op")
}
