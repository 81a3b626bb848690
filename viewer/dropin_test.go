package viewer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// traceSpans is what Go reads from an OTLP or Jaeger file: span ids by
// trace id, the runs the page must make of it (one per trace).
func traceSpans(recs []converter.Record) map[string][]string {
	out := map[string][]string{}
	for i := range recs {
		tid := recs[i].Span.TraceID().String()
		out[tid] = append(out[tid], recs[i].Span.SpanID().String())
	}
	return out
}

// pageRuns is what the page holds after opening files: span ids by the
// trace id of each run's records.
const pageRuns = `(() => {
  const pick = document.getElementById('run-pick');
  const out = {};
  for (const opt of pick.options) {
    pick.value = opt.value; pick.dispatchEvent(new Event('change'));
    for (const row of document.querySelectorAll('#rows .row')) {
      out[opt.textContent] = (out[opt.textContent] || []).concat([row.dataset.spanId]);
    }
  }
  return out;
})()`

func TestDropIn(t *testing.T) {
	base := readRun(t, "../testdata/golden/agent-run.jsonl")
	page := writePage(t, []viewer.Run{base})

	otlpFile := "../testdata/otlp/conversation.json"
	f, err := os.Open(otlpFile)
	require.NoError(t, err)
	td, err := converter.ReadOTLP(f, converter.FormatOTLPJSON, otlpFile)
	f.Close()
	require.NoError(t, err)
	wantOTLP := traceSpans(converter.Records(td))

	jaegerFile := "../testdata/shapes/jaeger.json"
	jb, err := os.ReadFile(jaegerFile)
	require.NoError(t, err)
	var jrecs []converter.Record
	_, err = importer.ReadJaeger(bytes.NewReader(jb), jaegerFile, func(r *converter.Record) error {
		jrecs = append(jrecs, *r)
		return nil
	})
	require.NoError(t, err)
	wantJaeger := traceSpans(jrecs)

	ctx := browsertest.New(t)
	open(t, ctx, page)
	runsBefore := eval[int](t, ctx, `document.getElementById('run-pick').options.length`)
	require.Equal(t, 1, runsBefore)

	t.Run("open an OTLP/JSON file", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#open-file"), []string{abs(t, otlpFile)})))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('run-pick').options.length === %d`, 1+len(wantOTLP))))
		require.NoError(t, err)
	})

	t.Run("drop a Jaeger JSON file", func(t *testing.T) {
		js, err := json.Marshal(string(jb))
		require.NoError(t, err)
		eval[bool](t, ctx, `(() => {
  const dt = new DataTransfer();
  dt.items.add(new File([`+string(js)+`], 'jaeger.json', {type: 'application/json'}));
  document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
  return true;
})()`)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('run-pick').options.length === %d`, 1+len(wantOTLP)+len(wantJaeger))))
		require.NoError(t, err)
	})

	t.Run("every span of every file is a row of its run", func(t *testing.T) {
		got := eval[map[string][]string](t, ctx, pageRuns)
		var all, want []string
		for _, ids := range got {
			all = append(all, ids...)
		}
		want = append(want, spanIDs(base.Records)...)
		for _, m := range []map[string][]string{wantOTLP, wantJaeger} {
			for _, ids := range m {
				want = append(want, ids...)
			}
		}
		require.Equal(t, sorted(want), sorted(all))
		require.Len(t, got, 1+len(wantOTLP)+len(wantJaeger))
	})

	t.Run("a dropped hostile artifact stays text", func(t *testing.T) {
		payload := hostile[0] + hostile[1] + hostile[5]
		var art bytes.Buffer
		run := synth("x.jsonl", 6, payload, payload)
		w := converter.NewWriter(&art, nil)
		for i := range run.Records {
			require.NoError(t, w.Write(&run.Records[i]))
		}
		require.NoError(t, w.Close())
		js, err := json.Marshal(art.String())
		require.NoError(t, err)
		eval[bool](t, ctx, `(() => {
  const dt = new DataTransfer();
  dt.items.add(new File([`+string(js)+`], `+"`"+`run `+hostile[5]+`.jsonl`+"`"+`));
  document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
  return true;
})()`)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('run-pick').options.length === %d`, 2+len(wantOTLP)+len(wantJaeger))))
		require.NoError(t, err)
		for _, id := range rowIDs(t, ctx) {
			eval[bool](t, ctx, `(document.querySelector('#rows .row[data-span-id="`+id+`"]') || document.body).click(), true`)
		}
		got := eval[injection](t, ctx, injected)
		require.Zero(t, got.Pwned)
		require.Zero(t, got.Img)
		require.Zero(t, got.Handlers)
		require.Equal(t, 3, got.Scripts)
	})
	browsertest.Screenshot(t, ctx, "viewer-dropin.png")
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}
