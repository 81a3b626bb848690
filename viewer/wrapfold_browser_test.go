package viewer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// TestBrowserWrapperFoldedIntoModelCall: a model call described by two
// instrumentations at once (OpenInference's "Anthropic Messages" around
// the Anthropic SDK's own span; OpenLLMetry's "chat claude-…" around it)
// shows as one model call row per call the server answered, the wrapper
// folded in: named on the row, its span in the detail, a link to it
// selecting the call; the no-JavaScript outline shows the same records
// (issue 24 point 4). The calls counted are the capture's expected.json.
func TestBrowserWrapperFoldedIntoModelCall(t *testing.T) {
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900))
	static := browsertest.New(t, browsertest.WithoutJavaScript())
	for _, c := range []struct{ lib, scenario, wrapper string }{
		{"openinference-anthropic", "double-tool-loop", "Anthropic Messages"},
		{"openllmetry-anthropic", "tool-loop", "chat claude-sonnet-4-5"},
	} {
		t.Run(c.lib, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(realDir, c.lib, "expected.json"))
			require.NoError(t, err)
			var exp struct {
				Scenarios map[string]struct {
					ModelCalls int `json:"model_calls"`
				} `json:"scenarios"`
			}
			require.NoError(t, json.Unmarshal(b, &exp))
			calls := exp.Scenarios[c.scenario].ModelCalls
			require.Positive(t, calls)

			run := realRun(t, c.lib, c.scenario, false)
			page := writePage(t, []viewer.Run{run})
			open(t, ctx, page)
			type row struct {
				ID, Kind, Name, Wrapped string
			}
			rows := eval[[]row](t, ctx, `Array.from(document.querySelectorAll('#rows .row')).map((r) => ({
			  ID: r.dataset.spanId, Kind: r.dataset.kind, Name: r.querySelector('.name').textContent,
			  Wrapped: (r.querySelector('.wrapped') || { textContent: '' }).textContent }))`)
			var wrappers []string
			for i := range run.Records {
				if run.Records[i].Span.Name() == c.wrapper {
					wrappers = append(wrappers, run.Records[i].Span.SpanID().String())
				}
			}
			require.Len(t, wrappers, calls, "one wrapper per call in the capture")
			var llm []row
			for _, r := range rows {
				assert.NotContains(t, wrappers, r.ID, "a wrapper is no row of its own")
				if r.Kind == "inference" {
					llm = append(llm, r)
				}
			}
			require.Len(t, llm, calls, "one model call row per call the server answered: %v", rows)
			for _, r := range llm {
				assert.Equal(t, "⊂ "+c.wrapper, r.Wrapped, "the row names the wrapper folded in")
			}

			// A link to a wrapper selects its call, whose detail shows it.
			eval[bool](t, ctx, `location.hash = '#span=`+wrappers[0]+`', true`)
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#detail #wrapper')`))
			require.NoError(t, err, "the wrapper's link opens its call with the wrapper in the detail")
			sel := eval[string](t, ctx, `document.querySelector('#rows .row.sel').dataset.spanId`)
			assert.True(t, slices.ContainsFunc(llm, func(r row) bool { return r.ID == sel }), "selected %s, a model call row", sel)
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#detail #wrapper').textContent`), wrappers[0])

			// The outline shows the records the page shows.
			require.NoError(t, chromedp.Do(static, chromedp.Navigate(browsertest.FileURL(t, page))))
			ids := eval[[]string](t, static, `Array.from(document.querySelectorAll('details.rec')).map((d) => d.dataset.spanId)`)
			var onPage []string
			for _, r := range rows {
				onPage = append(onPage, r.ID)
			}
			assert.ElementsMatch(t, onPage, ids)
		})
	}
}
