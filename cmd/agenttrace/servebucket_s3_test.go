package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/internal/seaweedtest"
)

// TestServeBucketS3 is TestServeBucket against a real S3 server
// (SeaweedFS on loopback, through gocloud's s3blob and the AWS SDK):
// real runs uploaded with bucket.Put, the catalog built by `catalog
// build s3://…`, the list with the numbers of tokens --json, each run's
// page data equal to the folder server's. Then, in a real headless
// Chromium, the list of `serve s3://…` shows the runs, and a click on one
// opens its page, whose waterfall draws its records.
func TestServeBucketS3(t *testing.T) {
	s3 := seaweedtest.Start(t, "runs")
	for _, kv := range seaweedtest.ClientEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	srv, local := checkServeBucket(t, s3.URL("serve/prod"))

	ctx := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('tr[data-path]')).map(r => r.dataset.path)`))
	require.NoError(t, err)
	require.Len(t, listed, min(len(local), 100), "the first page of the runs uploaded (100 a page)")
	for _, key := range listed {
		assert.Contains(t, local, key)
	}
	// The first row's link to its run, clicked.
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const a = document.querySelector('tr[data-path] a[href^="/run/"]'); a.click(); return a.getAttribute('href'); })()`))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(href, "/run/"), href)
	drawn := `location.pathname.startsWith('/run/') && document.body.dataset.ready === "1" && Number(document.body.dataset.visibleRows) > 0`
	var polled error
	for range 20 { // the click navigates: a poll begun on the list is cut short
		if _, polled = chromedp.Run(ctx, chromedp.Poll[bool](drawn)); polled == nil {
			break
		}
	}
	require.NoError(t, polled, "the run's waterfall after the click on %s", href)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.visibleRows`))
	require.NoError(t, err)
	path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	require.NoError(t, err)
	assert.Equal(t, href, path)
	assert.NotEqual(t, "0", rows, fmt.Sprintf("waterfall rows of %s", href))
}
