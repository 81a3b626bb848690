package server_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// simRun records the simulated agent into dir; with stopAfter > 0 its
// guard stops it after that many model and tool calls.
func simRun(t *testing.T, dir string, seed uint64, stopAfter int) string {
	t.Helper()
	p, err := bridge.New(bridge.WithDirectory(dir, converter.ByTrace))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSpanProcessor(p))...)
	calls := 0
	guard := func(context.Context) error {
		calls++
		if stopAfter > 0 && calls > stopAfter {
			return errors.New("stopped by the test")
		}
		return nil
	}
	agentsim.Run(context.Background(), tp, agentsim.Config{Guard: guard})
	require.NoError(t, tp.Shutdown(context.Background()))
	return agentsim.TraceID(seed).String() + ".jsonl"
}

// In a real browser: the list filters and sorts through its form and
// column links, a run's span has a link that opens the run with that span
// selected and in view, and two runs picked in the list open side by
// side. The screenshots are the ones docs/viewing.md shows.
func TestBrowserListCompareAndDeepLinks(t *testing.T) {
	dir := goldenDir(t, "agent-run.jsonl", "openinference.jsonl", "langfuse.jsonl", "conversation.jsonl")
	a := simRun(t, dir, 1, 0)
	b := simRun(t, dir, 2, 4)
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	appendFile(t, filepath.Join(dir, "live.jsonl"), strings.Join(lines[:5], ""))
	ts := start(t, dir, fast)
	ctx := browsertest.New(t, browsertest.WithNetwork(), browsertest.WithWindow(1280, 720))

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/?sort=tokens")))
	paths, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('tr[data-path]')).map(r => r.dataset.path)`))
	require.NoError(t, err)
	require.Len(t, paths, 7)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('tr[data-path="live.jsonl"] td[data-col="state"]').innerText`))
	require.NoError(t, err)
	assert.Equal(t, "● running", state)
	browsertest.Screenshot(t, ctx, "runs-list.png")

	// The search box, submitted: across message text.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('input[name=q]').value = 'lisbon'; document.querySelector('form.filters').submit(); true`))
	require.NoError(t, err)
	require.NoError(t, pollAcrossNavigation(ctx, `location.search.includes('q=lisbon') && document.querySelectorAll('tr[data-path]').length === 3`),
		"conversation, agent-run and the live copy of agent-run mention Lisbon")

	// Two runs picked, compared.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/")))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`for (const p of [`+jsString(a)+`, `+jsString(b)+`]) document.querySelector('input[name=c][value="' + p + '"]').checked = true; document.getElementById('cmp').submit(); true`))
	require.NoError(t, err)
	require.NoError(t, pollAcrossNavigation(ctx, `location.pathname === '/compare' && !!document.getElementById('divergences')`))
	verdict, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('verdict').innerText`))
	require.NoError(t, err)
	assert.Contains(t, verdict, "The tool calls diverge")
	browsertest.Screenshot(t, ctx, "compare.png")

	// A divergence links to its span: the run opens with it selected.
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#divergences a').getAttribute('href')`))
	require.NoError(t, err)
	_, id, ok := strings.Cut(href, "#span=")
	require.True(t, ok, href)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+href)))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1" && !!document.querySelector('#rows .row.sel[data-span-id="`+id+`"]')`))
	require.NoError(t, err, "the linked span is selected")
	// Selecting another row puts it in the address.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#rows .row:not(.sel)').click(); true`))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`location.hash === '#span=' + document.querySelector('#rows .row.sel').dataset.spanId && location.hash !== '#span=`+id+`'`))
	require.NoError(t, err)
}

// pollAcrossNavigation polls expr while a navigation the page started
// (a form submitted) replaces the document the poll runs in.
func pollAcrossNavigation(ctx context.Context, expr string) error {
	var err error
	for range 20 {
		if _, err = chromedp.Run(ctx, chromedp.Poll[bool](expr)); err == nil || !(strings.Contains(err.Error(), "context") || strings.Contains(err.Error(), "navigated")) {
			return err
		}
	}
	return err
}
