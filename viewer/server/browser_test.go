package server_test

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// In a real browser: the list page's style sheet is allowed by its
// policy, and an EventSource opened on a viewer page (with the URL the
// page is given) gets the lines appended to the run, in order, with their
// offsets as ids. The probe is a script of the test's own, so this holds
// whatever the viewer's page does with the events.
func TestBrowserFollowsRun(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	dir := t.TempDir()
	path := filepath.Join(dir, "live.jsonl")
	appendFile(t, path, lines[0]+lines[1])
	ts := start(t, dir, fast)
	ctx := browsertest.New(t, browsertest.WithNetwork())

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/")))
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('td.run a').getAttribute('href')`))
	require.NoError(t, err)
	require.Equal(t, "/run/live.jsonl", href)
	sticky, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('th')).position`))
	require.NoError(t, err)
	require.Equal(t, "sticky", sticky, "the policy lets the page's own style sheet apply")

	live, offset := ts.liveURL(t, "live.jsonl")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+href)))
	url, err := json.Marshal(live)
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.probe = [];
const es = new EventSource(`+string(url)+`);
es.addEventListener("record", e => window.probe.push({id: e.lastEventId, data: e.data}));
true`))
	require.NoError(t, err)

	appendFile(t, path, lines[2]+lines[3][:20])
	appendFile(t, path, lines[3][20:])
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.probe.length >= 2`))
	require.NoError(t, err)
	type got struct {
		ID   string `json:"id"`
		Data string `json:"data"`
	}
	events, err := chromedp.Run(ctx, chromedp.Evaluate[[]got](`window.probe`))
	require.NoError(t, err)
	end2 := offset + int64(len(lines[2]))
	end3 := end2 + int64(len(lines[3]))
	require.Equal(t, []got{
		{ID: strconv.FormatInt(end2, 10), Data: strings.TrimSuffix(lines[2], "\n")},
		{ID: strconv.FormatInt(end3, 10), Data: strings.TrimSuffix(lines[3], "\n")},
	}, events)
}
