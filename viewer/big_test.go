package viewer_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
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

// BenchmarkWriteSynth10000 is viewer.Write of the 10,000-record run that
// docs/benchmarks.md times `agenttrace html` on (TestWriteSynthRun's:
// 100 agents, ~1 KB messages), without reading the artifact; its B/op
// and allocs/op say what the page costs beside the records.
func BenchmarkWriteSynth10000(b *testing.B) {
	recs := artifact.Records(synthTraces(10_000, 100, "step", bigMessage))
	artifact.SortRecords(recs)
	run := viewer.Run{Name: "synth.jsonl", Records: recs}
	b.ReportAllocs()
	for b.Loop() {
		if err := viewer.Write(io.Discard, []viewer.Run{run}); err != nil {
			b.Fatal(err)
		}
	}
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

// firstPaint is what the benchmark's observer, added to every page before
// it loads, saw: the browser's first contentful paint (the tab no longer
// blank), when the summary's first card and the waterfall's first
// row were in the document and the next frame came (when the browser
// could paint them), when the page said it had every record, in ms since
// navigation, and where the waterfall's top was on the screen then.
type firstPaint struct {
	Contentful   float64 `json:"fcp"`
	Summary      float64 `json:"summary"`
	Row          float64 `json:"row"`
	Ready        float64 `json:"ready"`
	WaterfallTop float64 `json:"top"`
	Screen       float64 `json:"screen"`
}

// paintObserver records a firstPaint in window.__paint; it runs before
// the page's own code, from DevTools (the page's policy does not apply).
const paintObserver = `(() => {
  const p = window.__paint = { fcp: 0, summary: 0, row: 0, ready: 0, top: 0, screen: innerHeight };
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') p.fcp = e.startTime;
  }).observe({ type: 'paint', buffered: true });
  const frame = (k) => requestAnimationFrame(() => { p[k] = performance.now(); });
  const seen = {};
  const mo = new MutationObserver(() => {
    if (!seen.summary && document.querySelector('#cards .card')) { seen.summary = 1; frame('summary'); }
    if (!seen.row && document.querySelector('#rows .row')) {
      seen.row = 1; frame('row');
      const w = document.getElementById('waterfall');
      p.top = w ? w.getBoundingClientRect().top + scrollY : -1;
    }
    if (!seen.ready && document.body && document.body.dataset.ready === '1') { seen.ready = 1; p.ready = performance.now(); }
    if (seen.summary && seen.row && seen.ready) mo.disconnect();
  });
  mo.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-ready'] });
})()`

// BenchmarkBrowserPaint is issue 24's check on a run of 10,000, 50,000
// and 100,000 records (synth's, N/100 agents, ~1 KB messages: the run
// TestWriteSynthRun writes), in a real headless Chromium on a 1400×1000
// window: the time from navigation to the summary and to the first row
// of the waterfall on screen (the target is under a second at 100,000),
// to every record read, where the waterfall's top is (px from the page's
// top; the first screen is 1,000 px), and the page's size beside the
// artifact's. -short runs 10,000 only.
func BenchmarkBrowserPaint(b *testing.B) {
	sizes := []int{10_000, 50_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			td := synthTraces(n, max(n/100, 1), "step", bigMessage)
			var file bytes.Buffer
			aw := artifact.NewWriter(&file, nil)
			require.NoError(b, aw.WriteTraces(td))
			require.NoError(b, aw.Close())
			recs := artifact.Records(td)
			artifact.SortRecords(recs)
			path := filepath.Join(b.TempDir(), "page.html")
			f, err := os.Create(path)
			require.NoError(b, err)
			require.NoError(b, viewer.Write(f, []viewer.Run{{Name: "big.jsonl", Records: recs}}))
			require.NoError(b, f.Close())
			fi, err := os.Stat(path)
			require.NoError(b, err)
			td, recs = ptrace.Traces{}, nil // the browser's memory, not ours

			ctx := browsertest.New(b, browsertest.WithTimeout(10*time.Minute))
			_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: paintObserver})
			require.NoError(b, err)
			url := browsertest.FileURL(b, path)
			var sum firstPaint
			for b.Loop() {
				require.NoError(b, chromedp.Do(ctx, chromedp.Navigate(url)))
				_, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.__paint && window.__paint.ready > 0 && window.__paint.row > 0 && window.__paint.summary > 0 && window.__paint.fcp > 0`))
				require.NoError(b, err)
				got, err := chromedp.Run(ctx, chromedp.Evaluate[firstPaint](`window.__paint`))
				require.NoError(b, err)
				sum.Contentful += got.Contentful
				sum.Summary += got.Summary
				sum.Row += got.Row
				sum.Ready += got.Ready
				sum.WaterfallTop = got.WaterfallTop
				sum.Screen = got.Screen
			}
			k := float64(b.N)
			b.ReportMetric(sum.Contentful/k, "contentful-paint-ms")
			b.ReportMetric(sum.Summary/k, "summary-ms")
			b.ReportMetric(sum.Row/k, "first-row-ms")
			b.ReportMetric(sum.Ready/k, "all-ms")
			b.ReportMetric(sum.WaterfallTop, "waterfall-top-px")
			b.ReportMetric(float64(fi.Size()), "page-bytes")
			b.ReportMetric(float64(fi.Size())/float64(file.Len()), "page/artifact")
		})
	}
}

// bigMessage is the bulk of each message and tool result in the big-run
// benchmarks: ~1 KB per model call, as issue 24 measured.
var bigMessage = strings.Repeat("lorem ipsum dolor sit amet ", 20)

// TestWriteSynthRun writes synth's run of N records, N/100 agents and
// ~1 KB messages, as an artifact to AGENTTRACE_SYNTH_RUN=PATH:N, for
// timing whole commands on it (agenttrace html and convert,
// docs/benchmarks.md); opt-in.
func TestWriteSynthRun(t *testing.T) {
	path, count, ok := strings.Cut(os.Getenv("AGENTTRACE_SYNTH_RUN"), ":")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n <= 0 {
		t.Skip("AGENTTRACE_SYNTH_RUN=PATH:RECORDS writes a generated run")
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	aw := artifact.NewWriter(f, nil)
	require.NoError(t, aw.WriteTraces(synthTraces(n, max(n/100, 1), "step", bigMessage)))
	require.NoError(t, aw.Close())
	require.NoError(t, f.Close())
}
