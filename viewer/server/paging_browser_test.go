package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// In a real browser, a folder listed from its run catalog (more runs than
// the index limit) pages through its pager links, sorted by the heading
// clicked: 150 runs are 100 rows, then the other 50 by "next page →", by
// name in order across both pages, and back.
func TestBrowserListPagesFromCatalog(t *testing.T) {
	dir := t.TempDir()
	runs := smallRuns(t, dir, 150)
	byName := names(runs)
	slices.Sort(byName)
	ts := start(t, dir, fast, server.WithIndexLimit(100))
	awaitCatalog(t, ts, 150) // built, so the page does not reload as it grows
	ctx := browsertest.New(t, browsertest.WithNetwork())

	rows := func() []string {
		t.Helper()
		paths, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('tr[data-path]')).map(r => r.dataset.path)`))
		require.NoError(t, err)
		return paths
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.url+"/")))
	require.Len(t, rows(), 100)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`Array.from(document.querySelectorAll('th a')).find(a => a.textContent.startsWith('Run')).click(); true`))
	require.NoError(t, err)
	require.NoError(t, pollAcrossNavigation(ctx, `location.search.includes('sort=run') && document.readyState === 'complete' && document.querySelectorAll('tr[data-path]').length === 100`))
	assert.Equal(t, byName[:100], rows())

	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('a[rel=next]').click(); true`))
	require.NoError(t, err)
	require.NoError(t, pollAcrossNavigation(ctx, `location.search.includes('page=2') && document.readyState === 'complete' && document.querySelectorAll('tr[data-path]').length === 50`))
	assert.Equal(t, byName[100:], rows())
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('nav.pager').innerText`))
	require.NoError(t, err)
	assert.True(t, strings.Contains(text, "page 2 of 2"), text)

	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('a[rel=prev]').click(); true`))
	require.NoError(t, err)
	require.NoError(t, pollAcrossNavigation(ctx, `!location.search.includes('page=2') || location.search.includes('page=1')`))
	require.NoError(t, pollAcrossNavigation(ctx, `document.readyState === 'complete' && document.querySelectorAll('tr[data-path]').length === 100`))
	assert.Equal(t, byName[:100], rows())
}
