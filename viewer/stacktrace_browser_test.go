package viewer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// TestBrowserStackTraceAsLines: the exception events of real failing runs
// show their stack trace as the lines the library recorded, not as a JSON
// string with its newlines escaped.
func TestBrowserStackTraceAsLines(t *testing.T) {
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900))
	for _, lib := range []string{"vercel-ai-v6", "openinference-anthropic", "strands-agents"} {
		t.Run(lib, func(t *testing.T) {
			run := realRun(t, lib, "fail", false)
			var sid, stack string
			for _, r := range run.Records {
				evs := r.Span.Events()
				for i := range evs.Len() {
					if v, ok := evs.At(i).Attributes().Get("exception.stacktrace"); ok && strings.Contains(v.Str(), "\n") {
						sid, stack = r.Span.SpanID().String(), v.Str()
					}
				}
			}
			require.NotEmpty(t, sid, "the payload records a multi-line stack trace")
			open(t, ctx, writePage(t, []viewer.Run{run}))
			showSpan(t, ctx, sid, `!!document.querySelector('#detail ul.events dl.attrs')`)
			shown := eval[string](t, ctx, `(() => {
			  const dt = Array.from(document.querySelectorAll('#detail ul.events dt')).find((e) => e.textContent === 'exception.stacktrace');
			  return dt ? dt.nextElementSibling.querySelector('pre').textContent : '';
			})()`)
			require.NotEmpty(t, shown, "the event's stack trace is listed")
			assert.True(t, strings.HasPrefix(stack, shown), "shown as recorded (cut at the mode's limit at most)")
			assert.Equal(t, strings.Count(shown, "\n"), strings.Count(stack[:len(shown)], "\n"))
			assert.NotContains(t, shown, `\n`, "no escaped newlines")
		})
	}
}
