package server_test

import (
	"encoding/json"
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
	// The first record is a model call asking for two tools, whose tool
	// spans have not arrived: its calls show, unlinked.
	first, tools := firstCallAndTools(t, lines)
	require.Len(t, tools, 2)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[any](`location.hash = '#span=`+first+`'`))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('#detail .part.tool-call').length === 2 && !document.querySelector('#detail .tool-link')`))
	require.NoError(t, err, "the model call's tool calls, unlinked")

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
	// The tool spans arrived: the model call, still selected, links its
	// calls to them (the view model the page fetched again carries the
	// links Go computed over the whole run).
	links, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
	  const l = Array.from(document.querySelectorAll('#detail .part.tool-call .tool-link')).map((e) => e.dataset.spanId);
	  return l.length === 2 ? l : null;
	})()`))
	require.NoError(t, err, "the tool calls link to their tool spans once these arrive")
	require.ElementsMatch(t, tools, links)
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('cards').innerText`))
	require.NoError(t, err)
	require.Contains(t, cards, fmt.Sprint(records))
	browsertest.Screenshot(t, ctx, "viewer-live.png")
}

// firstCallAndTools returns the span id of the first record of lines, a
// model call, and those of the tool spans that ran the tool calls it asked
// for (by tool call id), from the lines as written.
func firstCallAndTools(t *testing.T, lines []string) (string, []string) {
	t.Helper()
	type part struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	type rec struct {
		Kind       string `json:"kind"`
		SpanID     string `json:"span_id"`
		ToolCallID string `json:"tool_call_id"`
		Output     []struct {
			Parts []part `json:"parts"`
		} `json:"output"`
	}
	var first rec
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &first))
	require.Equal(t, "inference", first.Kind)
	asked := map[string]bool{}
	for _, m := range first.Output {
		for _, p := range m.Parts {
			if p.Type == "tool_call" {
				asked[p.ID] = true
			}
		}
	}
	var tools []string
	for _, l := range lines[2:] {
		var r rec
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		if r.Kind == "call" && asked[r.ToolCallID] {
			tools = append(tools, r.SpanID)
		}
	}
	return first.SpanID, tools
}
