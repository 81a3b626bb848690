package server_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// simRun records the simulated agent into dir, with the tracer
// provider's options opts; with stopAfter > 0 its guard stops it after
// that many model and tool calls.
func simRun(t *testing.T, dir string, seed uint64, stopAfter int, opts ...sdktrace.TracerProviderOption) string {
	t.Helper()
	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(append(agentsim.TracerProviderOptions(seed), opts...), sdktrace.WithSpanProcessor(p))...)
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
// column links (by cost too: a run over its cost budget, one of unknown
// cost), a run's span has a link that opens the run with that span
// selected and in view, and two runs picked in the list open side by
// side, their costs with them. The screenshots are the ones
// docs/viewing.md shows.
func TestBrowserListCompareAndDeepLinks(t *testing.T) {
	dir := goldenDir(t, "agent-run.jsonl", "openinference.jsonl", "langfuse.jsonl", "conversation.jsonl", "genkit.jsonl")
	// One run of a model no price data knows (Genkit's googleai/gemini-2.5-flash
	// is priced as gemini-2.5-flash): its cost is unknown, never $0.
	unpriced := filepath.Join(dir, "genkit.jsonl")
	raw, err := os.ReadFile(unpriced)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(unpriced, bytes.ReplaceAll(raw, []byte("googleai/gemini-2.5-flash"), []byte("my-local-llama")), 0o644))
	a := simRun(t, dir, 1, 0)
	b := simRun(t, dir, 2, 4, sdktrace.WithSpanProcessor(rootBudgetUSD(0.004)))
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	appendFile(t, filepath.Join(dir, "live.jsonl"), strings.Join(lines[:5], ""))
	ts := start(t, dir, fast)
	ctx := browsertest.New(t, browsertest.WithNetwork(), browsertest.WithWindow(1280, 720))

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/?sort=tokens")))
	paths, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('tr[data-path]')).map(r => r.dataset.path)`))
	require.NoError(t, err)
	require.Len(t, paths, 8)
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('tr[data-path="live.jsonl"] td[data-col="state"]').innerText`))
	require.NoError(t, err)
	assert.Equal(t, "● running", state)

	// The Cost heading sorts by cost, most first; unknown last.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`Array.from(document.querySelectorAll('th a')).find(a => a.textContent.startsWith('Cost')).click(); true`))
	require.NoError(t, err)
	require.NoError(t, pollAcrossNavigation(ctx, `location.search.includes('sort=cost') && document.querySelectorAll('tr[data-path]').length === 8`))
	costs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('tr[data-path] td[data-col=cost]')).map(c => c.innerText)`))
	require.NoError(t, err)
	require.Len(t, costs, 8)
	assert.Equal(t, "unknown", costs[7], "a model without a price: unknown, never $0")
	for i := 1; i < 7; i++ {
		assert.GreaterOrEqual(t, dollarsOf(t, costs[i-1]), dollarsOf(t, costs[i]), "%v", costs)
	}
	over, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('tr[data-path=`+jsString(b)+`] td[data-col=budget]').innerText`))
	require.NoError(t, err)
	assert.Regexp(t, `^\$0\.\d{4} of \$0\.0040 \(\d+\.\d%\), over budget$`, over, "over its cost budget")
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
	sideCosts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#cost td')).map(c => c.innerText)`))
	require.NoError(t, err)
	require.Len(t, sideCosts, 2)
	for _, c := range sideCosts {
		assert.Positive(t, dollarsOf(t, c), "the simulated agent's models are priced")
	}
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

// rootBudgetUSD puts a cost budget on every root span as it starts
// (agenttrace.budget.usd), which the artifact's header records.
type rootBudgetUSD float64

func (b rootBudgetUSD) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	if !s.Parent().IsValid() {
		s.SetAttributes(attribute.Float64(semconv.BudgetUSD, float64(b)))
	}
}
func (rootBudgetUSD) OnEnd(sdktrace.ReadOnlySpan)      {}
func (rootBudgetUSD) Shutdown(context.Context) error   { return nil }
func (rootBudgetUSD) ForceFlush(context.Context) error { return nil }

// dollarsOf reads a cost cell ("$0.0123", "$1.20 or more"); unknown is
// -1, below every known cost.
func dollarsOf(t *testing.T, cell string) float64 {
	t.Helper()
	if cell == "unknown" {
		return -1
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimPrefix(strings.TrimSuffix(cell, " or more"), "$"), ",", ""), 64)
	require.NoError(t, err, cell)
	return v
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
