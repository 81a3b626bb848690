package viewer_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// TestBrowserLargestSortedByWhatItShows: the "Largest responses" table of
// a real run shows each response's bytes, the figure it is ranked by, so
// its rows read in descending order of a column the reader sees, next to
// the tokens.
func TestBrowserLargestSortedByWhatItShows(t *testing.T) {
	run := realRun(t, "vercel-ai-v7", "tool-loop", false)
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900))
	open(t, ctx, writePage(t, []viewer.Run{run}))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#largest tbody tr')`))
	require.NoError(t, err, "no Largest responses table")
	type table struct {
		Head []string
		Rows [][]string
	}
	got := eval[table](t, ctx, `(() => {
	  const t = document.getElementById('largest');
	  if (!t) return { Head: [], Rows: [] };
	  return { Head: Array.from(t.querySelectorAll('th')).map((e) => e.textContent),
	    Rows: Array.from(t.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.cells).map((c) => c.textContent)) };
	})()`)
	require.Equal(t, []string{"record", "by", "bytes", "tokens"}, got.Head)
	require.GreaterOrEqual(t, len(got.Rows), 2, "a tool loop has several responses")
	var bytes []int64
	for _, r := range got.Rows {
		n, err := strconv.ParseInt(strings.ReplaceAll(r[2], ",", ""), 10, 64)
		require.NoError(t, err, "bytes cell %q", r[2])
		assert.Positive(t, n)
		bytes = append(bytes, n)
	}
	assert.True(t, slices.IsSortedFunc(bytes, func(a, b int64) int { return int(b - a) }), "ranked by the bytes shown: %v", bytes)
}
