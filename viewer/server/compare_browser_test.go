package server_test

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// TestBrowserCompareOutcomesOnRealPayloads reads /compare's verdict in
// Chromium for pairs of captured runs (testdata/real, the Anthropic SDK's
// own instrumentation and OpenLLMetry's): it says "same outcomes" only
// when the tool calls and the errors are the same (the same scenario
// captured by two libraries), never when a model call failed in one run
// only (a streamed answer against an HTTP 429 of the same SDK: no tool
// calls in either) or when the tool calls differ (the Vercel AI SDK's tool
// loop, which traces its tool call, against its 429) (issue 24 point 4).
func TestBrowserCompareOutcomesOnRealPayloads(t *testing.T) {
	dir := t.TempDir()
	stream, _ := writePayload(t, dir, "anthropic-sdk", "stream")
	fail, _ := writePayload(t, dir, "anthropic-sdk", "fail")
	loop, _ := writePayload(t, dir, "anthropic-sdk", "tool-loop")
	vercelLoop, _ := writePayload(t, dir, "vercel-ai-v7", "tool-loop")
	vercelFail, _ := writePayload(t, dir, "vercel-ai-v7", "fail")
	otherLoop, _ := writePayload(t, dir, "openllmetry-anthropic", "tool-loop")
	ts := start(t, dir)
	ctx := browsertest.New(t, browsertest.WithNetwork())
	verdict := func(a, b string) string {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/compare?a="+url.QueryEscape(a)+"&b="+url.QueryEscape(b))))
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('verdict').innerText`))
		require.NoError(t, err)
		return v
	}
	for _, c := range []struct {
		name, a, b string
		want, not  string
	}{
		{"a model call failed in one", stream, fail, "Same tool calls, other errors: A has 0, B 1", "same outcomes"},
		{"the same, failed in the other order", fail, stream, "A has 1, B 0", "same outcomes"},
		{"other tool calls", vercelLoop, vercelFail, "The tool calls diverge", "same outcomes"},
		{"the same scenario by two libraries", loop, otherLoop, "Same tool calls, same outcomes", "other errors"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := verdict(c.a, c.b)
			assert.Contains(t, v, c.want)
			assert.NotContains(t, v, c.not)
		})
	}
}
