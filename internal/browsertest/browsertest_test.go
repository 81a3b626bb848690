package browsertest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// The harness itself: a local page's script runs, and a request to the
// network from it fails, because the browser is offline.
func TestOfflinePage(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!doctype html><title>t</title><script>
document.title = "ran";
window.netResult = "pending";
fetch("http://127.0.0.1:9/x").then(() => { window.netResult = "reached"; }, () => { window.netResult = "blocked"; });
</script>`), 0o644))
	ctx := browsertest.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	require.Equal(t, "ran", title)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.netResult !== "pending"`))
	require.NoError(t, err)
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.netResult`))
	require.NoError(t, err)
	require.Equal(t, "blocked", got)
}
