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

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// pageRuns is what the page holds after opening files: the span ids of
// each run's rows, by the run picker's label.
const pageRuns = `(() => {
  const pick = document.getElementById('run-pick');
  const out = {};
  for (const opt of pick.options) {
    pick.value = opt.value; pick.dispatchEvent(new Event('change'));
    out[opt.textContent] = Array.from(document.querySelectorAll('#rows .row')).map((row) => row.dataset.spanId);
  }
  return out;
})()`

// dropJS drops a file with text content on the page, as a user would.
func dropJS(t *testing.T, name, content string) string {
	t.Helper()
	js, err := json.Marshal(content)
	require.NoError(t, err)
	jn, err := json.Marshal(name)
	require.NoError(t, err)
	return `(() => {
  const dt = new DataTransfer();
  dt.items.add(new File([` + string(js) + `], ` + string(jn) + `));
  document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
  return true;
})()`
}

// A page written to a file has no server to convert with, and the rules
// live only in Go: it opens a dropped artifact as written (its records'
// own kinds and fields, its trailer's totals, said so on the page), and
// refuses any other format, naming the command that opens it.
func TestDropIn(t *testing.T) {
	base := readRun(t, "../testdata/golden/agent-run.jsonl")
	page := writePage(t, []viewer.Run{base})
	conv := readRun(t, "../testdata/golden/conversation.jsonl")
	convText, err := os.ReadFile("../testdata/golden/conversation.jsonl")
	require.NoError(t, err)

	ctx := browsertest.New(t)
	open(t, ctx, page)
	require.Equal(t, 1, eval[int](t, ctx, `document.getElementById('run-pick').options.length`))
	require.NotContains(t, eval[string](t, ctx, `document.querySelector('header.top').innerText`), "OTLP", "the page offers only what it can open")

	t.Run("an artifact opens as written", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#open-file"), []string{abs(t, "../testdata/golden/conversation.jsonl")})))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('run-pick').options.length === 2`))
		require.NoError(t, err)
		got := eval[map[string][]string](t, ctx, pageRuns)
		want := map[string][]string{}
		want[fmt.Sprintf("agent-run.jsonl — %d records", len(base.Records))] = sorted(spanIDs(base.Records))
		want[fmt.Sprintf("conversation.jsonl — %d records", len(conv.Records))] = sorted(spanIDs(conv.Records))
		for k := range got {
			got[k] = sorted(got[k])
		}
		require.Equal(t, want, got)
		// The picker ends on the last run: the dropped one.
		require.Contains(t, eval[string](t, ctx, `document.getElementById('as-written').innerText`), "agenttrace html conversation.jsonl")
		// Kinds are the file's own, row by row.
		kinds := eval[map[string]string](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll('#rows .row')).map((r) => [r.dataset.spanId, r.dataset.kind]))`)
		for _, line := range bytes.Split(convText, []byte{'\n'}) {
			var rec struct {
				Kind   string `json:"kind"`
				SpanID string `json:"span_id"`
			}
			if json.Unmarshal(line, &rec) != nil || rec.SpanID == "" {
				continue
			}
			require.Equal(t, rec.Kind, kinds[rec.SpanID], "kind of %s", rec.SpanID)
		}
		// Its totals are its trailer's, and there are no token tables.
		var sum struct {
			Tokens struct{ Total int64 } `json:"tokens"`
		}
		last := bytes.Split(bytes.TrimSpace(convText), []byte{'\n'})
		require.NoError(t, json.Unmarshal(last[len(last)-1], &sum))
		require.Contains(t, eval[string](t, ctx, `document.getElementById('cards').innerText`), report.Thousands(sum.Tokens.Total))
		require.Zero(t, eval[int](t, ctx, `document.querySelectorAll('#tables table').length`))
	})

	t.Run("other formats are refused with the command that opens them", func(t *testing.T) {
		otlp, err := os.ReadFile("../testdata/otlp/conversation.json")
		require.NoError(t, err)
		eval[bool](t, ctx, dropJS(t, "conversation.json", string(otlp)))
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById('problems').hidden`))
		require.NoError(t, err)
		require.Equal(t, 2, eval[int](t, ctx, `document.getElementById('run-pick').options.length`), "no run was made of it")
		eval[bool](t, ctx, `document.querySelector('#problems details').open = true`)
		problems := eval[string](t, ctx, `document.getElementById('problems').innerText`)
		require.Contains(t, problems, "conversation.json:1: not an agenttrace artifact")
		require.Contains(t, problems, "agenttrace serve")
	})

	t.Run("a dropped hostile artifact stays text", func(t *testing.T) {
		payload := hostile[0] + hostile[1] + hostile[5]
		var art bytes.Buffer
		run := synth("x.jsonl", 6, payload, payload)
		w := artifact.NewWriter(&art, nil)
		for i := range run.Records {
			require.NoError(t, w.Write(&run.Records[i]))
		}
		require.NoError(t, w.Close())
		eval[bool](t, ctx, dropJS(t, "run "+hostile[5]+".jsonl", art.String()))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('run-pick').options.length === 3`))
		require.NoError(t, err)
		ids := rowIDs(t, ctx)
		require.Equal(t, sorted(spanIDs(run.Records)), sorted(ids))
		for _, mode := range []string{"verbose", "normal"} {
			require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), mode)))
			eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
			for _, id := range ids {
				eval[bool](t, ctx, `(document.querySelector('#rows .row[data-span-id="`+id+`"]') || document.body).click(), true`)
			}
		}
		got := eval[injection](t, ctx, injected)
		require.Zero(t, got.Pwned)
		require.Zero(t, got.Img)
		require.Zero(t, got.Handlers)
		require.Equal(t, 2, got.Scripts)
		require.Contains(t, eval[string](t, ctx, `document.getElementById('detail').innerText`), hostile[1])
	})
	browsertest.Screenshot(t, ctx, "viewer-dropin.png")
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}
