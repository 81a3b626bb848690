package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// viewRun is the part of a run's view model these tests read.
type viewRun struct {
	Name    string `json:"name"`
	Records []struct {
		Kind    string  `json:"kind"`
		TraceID string  `json:"trace_id"`
		SpanID  string  `json:"span_id"`
		T0      float64 `json:"t0"`
	} `json:"records"`
	Report struct {
		Tokens      artifact.Tokens        `json:"tokens"`
		Budget      *artifact.BudgetStatus `json:"budget"`
		FromTrailer bool                   `json:"from_trailer"`
		Dropped     int64                  `json:"dropped"`
		Notes       []string               `json:"notes"`
	} `json:"report"`
	Problems []struct {
		Line    int    `json:"line"`
		Message string `json:"message"`
	} `json:"problems"`
}

// post sends body to /convert as a viewer page of ts would, with the
// given Origin ("" for none).
func (ts *testServer) post(t *testing.T, name, origin string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.url+"/convert?name="+name, bytes.NewReader(body))
	require.NoError(t, err)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := ts.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// goSpans reads a file with the Go importer of its shape: span ids by
// trace id, the runs the viewer must make of it.
func goSpans(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	read, ok := importer.For(importer.Detect(data))
	require.True(t, ok, path)
	out := map[string][]string{}
	_, err = read(bytes.NewReader(data), path, func(r *artifact.Record) error {
		tid := r.Span.TraceID().String()
		out[tid] = append(out[tid], r.Span.SpanID().String())
		return nil
	})
	require.NoError(t, err)
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

func runSpans(runs []viewRun) map[string][]string {
	out := map[string][]string{}
	for _, r := range runs {
		for _, rec := range r.Records {
			out[rec.TraceID] = append(out[rec.TraceID], rec.SpanID)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// A file dropped on a served page is converted by Go: OTLP/JSON, OTLP
// protobuf, Jaeger JSON and artifacts all come back as view models, one
// run per trace, with every span the importer reads.
func TestConvertDroppedFiles(t *testing.T) {
	ts := start(t, t.TempDir())
	origin := ts.url
	for _, file := range []string{
		"../../testdata/otlp/conversation.json",
		"../../testdata/otlp/agent-run.pb",
		"../../testdata/otlp/conversation.lines.json",
		"../../testdata/shapes/jaeger.json",
		"../../testdata/golden/agent-run.jsonl",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			code, body := ts.post(t, filepath.Base(file), origin, data)
			require.Equal(t, http.StatusOK, code, "%s", body)
			var got struct{ Runs []viewRun }
			require.NoError(t, json.Unmarshal(body, &got))
			want := goSpans(t, file)
			require.Len(t, got.Runs, len(want), "one run per trace")
			require.Equal(t, want, runSpans(got.Runs))
			for _, r := range got.Runs {
				require.True(t, strings.HasPrefix(r.Name, filepath.Base(file)))
				for _, rec := range r.Records {
					require.Contains(t, []string{"agent", "inference", "call", "span"}, rec.Kind)
					require.Positive(t, rec.T0)
				}
			}
		})
	}
}

func TestConvertRefuses(t *testing.T) {
	ts := start(t, t.TempDir(), server.WithMaxUpload(1000))
	big, err := os.ReadFile("../../testdata/otlp/conversation.json")
	require.NoError(t, err)
	require.Greater(t, len(big), 1000)
	for _, tc := range []struct {
		name, origin string
		body         []byte
		code         int
		says         string
	}{
		{"no Origin (not a page of this viewer)", "", []byte(`{}`), http.StatusForbidden, "no Origin"},
		{"another site", "http://evil.example", []byte(`{}`), http.StatusForbidden, "evil.example"},
		{"another port", "http://127.0.0.1:1", []byte(`{}`), http.StatusForbidden, "127.0.0.1:1"},
		{"too large", ts.url, big, http.StatusRequestEntityTooLarge, "1000 bytes"},
		{"not a format agenttrace reads", ts.url, []byte("hello\n"), http.StatusUnprocessableEntity, "x.txt"},
		{"empty", ts.url, nil, http.StatusUnprocessableEntity, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := ts.post(t, "x.txt", tc.origin, tc.body)
			require.Equal(t, tc.code, code, "%s", body)
			var e struct{ Error string }
			require.NoError(t, json.Unmarshal(body, &e))
			require.Contains(t, e.Error, tc.says)
		})
	}
	resp, _ := ts.get(t, "/convert")
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// cappedArtifact is the golden run's first records, and a trailer saying
// 6 records were dropped and 1,200 tokens spent of a 1,000 budget.
func cappedArtifact(t *testing.T) string {
	t.Helper()
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &meta))
	meta["budget"] = map[string]any{"budget_tokens": 1000, "warn_threshold": 0.8}
	head, err := json.Marshal(meta)
	require.NoError(t, err)
	sum := artifact.AppendSummary(nil, &artifact.Summary{
		FinishedAt: time.Date(2026, 5, 4, 14, 4, 0, 0, time.UTC), Complete: true, Records: 5, Inferences: 2, Calls: 2, Agents: 1,
		Tokens:  artifact.Tokens{Input: 1000, Output: 200, Total: 1200},
		Budget:  &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 1200, Remaining: 0, OverBudget: true, WarnThreshold: 0.8},
		Dropped: 6,
	})
	return string(head) + "\n" + strings.Join(lines[1:6], "") + string(sum)
}

// An artifact whose trailer accounts for more than its records: the run's
// data and its page say so, with the trailer's totals and budget.
func TestServedRunWithDroppedRecords(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "capped.jsonl"), []byte(cappedArtifact(t)), 0o644))
	ts := start(t, dir)
	resp, body := ts.get(t, "/data/capped.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var run viewRun
	require.NoError(t, json.Unmarshal([]byte(body), &run))
	require.True(t, run.Report.FromTrailer)
	require.EqualValues(t, 6, run.Report.Dropped)
	require.EqualValues(t, 1200, run.Report.Tokens.Total)
	require.True(t, run.Report.Budget.OverBudget)
	require.NotEmpty(t, run.Report.Notes)

	ctx := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/capped.jsonl")))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1"`))
	require.NoError(t, err)
	note, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('dropped').innerText`))
	require.NoError(t, err)
	require.Contains(t, note, "6 records were dropped")
	require.Contains(t, note, "not in the file")
	budget, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('budget').innerText`))
	require.NoError(t, err)
	require.Contains(t, budget, "1,200 of 1,000 tokens")
	browsertest.Screenshot(t, ctx, "serve-dropped.png")
}

// A file dropped on a served page goes to the server and comes back as
// runs the page shows: every span of an OTLP and a Jaeger file is a row.
func TestServedPageConvertsDroppedFiles(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "run.jsonl")
	ts := start(t, dir)
	ctx := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/run.jsonl")))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1"`))
	require.NoError(t, err)
	want := map[string][]string{}
	runs := 1
	for _, file := range []string{"../../testdata/otlp/conversation.json", "../../testdata/shapes/jaeger.json"} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		spans := goSpans(t, file)
		runs += len(spans)
		for k, v := range spans {
			want[k] = v
		}
		js, err := json.Marshal(string(data))
		require.NoError(t, err)
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
  const dt = new DataTransfer();
  dt.items.add(new File([`+string(js)+`], `+fmt.Sprintf("%q", filepath.Base(file))+`));
  document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
  return true;
})()`))
		require.NoError(t, err)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('run-pick').options.length === %d`, runs)))
		require.NoError(t, err, "waiting for the runs of %s", file)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](`(() => {
  const pick = document.getElementById('run-pick');
  const out = {};
  for (const opt of Array.from(pick.options).slice(1)) {
    pick.value = opt.value; pick.dispatchEvent(new Event('change'));
    for (const row of document.querySelectorAll('#rows .row')) {
      const rec = row.dataset.spanId;
      (out[opt.textContent] = out[opt.textContent] || []).push(rec);
    }
  }
  return out;
})()`))
	require.NoError(t, err)
	var all, wantAll []string
	for _, ids := range got {
		all = append(all, ids...)
	}
	for _, ids := range want {
		wantAll = append(wantAll, ids...)
	}
	slices.Sort(all)
	slices.Sort(wantAll)
	require.Equal(t, wantAll, all)
	browsertest.Screenshot(t, ctx, "serve-dropin.png")

	// A hostile file comes back from the server as data, and stays text.
	payload := `<img src=x onerror="window.pwned=1"></script><script>window.pwned=1</script>"'><svg onload="window.pwned=1">`
	otlp := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":` + fmt.Sprintf("%q", payload) + `}}]},"scopeSpans":[{"spans":[` +
		`{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":` + fmt.Sprintf("%q", "execute_tool "+payload) + `,"startTimeUnixNano":"1","endTimeUnixNano":"2",` +
		`"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":` + fmt.Sprintf("%q", payload) + `}},` +
		`{"key":"gen_ai.tool.call.result","value":{"stringValue":` + fmt.Sprintf("%q", payload) + `}}]}]}]}]}`
	js, err := json.Marshal(otlp)
	require.NoError(t, err)
	name, err := json.Marshal(payload + ".json")
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
  window.violations = 0; document.addEventListener('securitypolicyviolation', () => window.violations++);
  const dt = new DataTransfer();
  dt.items.add(new File([`+string(js)+`], `+string(name)+`));
  document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
  return true;
})()`))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('run-pick').options.length === %d`, runs+1)))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#rows .row').click(), true`))
	require.NoError(t, err)
	type injection struct {
		Pwned, Img, Scripts, Handlers, Violations int
		Detail                                    string
	}
	inj, err := chromedp.Run(ctx, chromedp.Evaluate[injection](`({
  Pwned: window.pwned || 0,
  Img: document.querySelectorAll('img, svg, iframe, object, embed').length,
  Scripts: document.querySelectorAll('script').length,
  Handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
  Violations: window.violations,
  Detail: document.getElementById('detail').innerText,
})`))
	require.NoError(t, err)
	require.Equal(t, injection{Scripts: 2, Detail: inj.Detail}, inj)
	require.Contains(t, inj.Detail, payload)
}

// A partly broken artifact opens with its bad lines named, and starts
// when its records do, not in 1970.
func TestServedRunNamesBadLines(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	broken := "{not json\n" + strings.Join(lines[1:4], "") + "[1,2]\n" + strings.Join(lines[4:], "")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte(broken), 0o644))
	ts := start(t, dir)
	resp, body := ts.get(t, "/data/broken.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	var run viewRun
	require.NoError(t, json.Unmarshal([]byte(body), &run))
	var bad []int
	for _, p := range run.Problems {
		bad = append(bad, p.Line)
	}
	// Line 1 is not JSON, line 2 is a record where the header should be,
	// line 5 is not an object.
	require.Equal(t, []int{1, 2, 5}, bad)
	require.Len(t, run.Records, len(lines)-2, "every record (all but the header and the trailer)")

	ctx := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/broken.jsonl")))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1"`))
	require.NoError(t, err)
	banner, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#problems details').open = true, document.getElementById('problems').innerText)`))
	require.NoError(t, err)
	require.Contains(t, banner, "broken.jsonl:1:")
	require.Contains(t, banner, "broken.jsonl:5:")
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('cards').innerText`))
	require.NoError(t, err)
	require.NotContains(t, cards, "1970")
	require.Contains(t, cards, "2026-05-04")
	browsertest.Screenshot(t, ctx, "serve-broken.png")

	// Nothing readable at all: the banner names every line, and no date
	// is made up.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "garbage.jsonl"), []byte("{not json\n\x00\x01\n[1]\n"), 0o644))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/run/garbage.jsonl")))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1"`))
	require.NoError(t, err)
	banner, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('problems').innerText`))
	require.NoError(t, err)
	for _, line := range []string{"garbage.jsonl:1:", "garbage.jsonl:2:", "garbage.jsonl:3:"} {
		require.Contains(t, banner, line)
	}
	cards, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('cards').innerText`))
	require.NoError(t, err)
	require.NotContains(t, cards, "1970")
}

// The list tells the trailer's truth too: a run whose trailer accounts
// for dropped records is listed with the trailer's tokens and budget, and
// how many records were dropped.
func TestListTellsTheTrailersTruth(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "capped.jsonl"), []byte(cappedArtifact(t)), 0o644))
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "whole.jsonl")
	ts := start(t, dir)
	resp, page := ts.get(t, "/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := map[string]map[string]string{}
	for _, r := range rows(t, page) {
		got[r.path] = r.cols
	}
	capped := got["capped.jsonl"]
	require.Equal(t, "1,000", capped["in"])
	require.Equal(t, "200", capped["out"])
	require.Contains(t, capped["budget"], "1,200 of 1,000 tokens")
	require.Contains(t, capped["state"], "6 dropped")
	require.NotContains(t, got["whole.jsonl"]["state"], "dropped")
}
