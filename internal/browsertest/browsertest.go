// Package browsertest starts a real headless Chromium for tests, driven
// over the DevTools protocol with chromedp.
//
// Chromium is Debian's chromium package (/usr/bin/chromium); .ci/run
// installs it. A test is skipped when no browser is found, unless
// AGENTTRACE_REQUIRE_BROWSER=1 (set by .ci/run), where it fails instead:
// CI must never pass by skipping the browser.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// RequireEnv names the variable that turns a missing browser into a failure.
const RequireEnv = "AGENTTRACE_REQUIRE_BROWSER"

// Path returns the Chromium executable, or "" when there is none.
func Path() string {
	if p := os.Getenv("AGENTTRACE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Option adjusts how New starts the browser.
type Option func(*options)

type options struct {
	width, height int
	online        bool
	noJS          bool
	timeout       time.Duration
}

// WithWindow sets the window size (default 1400x1000).
func WithWindow(w, h int) Option { return func(o *options) { o.width, o.height = w, h } }

// WithNetwork lets the page reach the network (loopback servers, for
// serve's tests). By default every request but file:// and data: is
// blocked, and host names do not resolve, so a page that works proves it
// is self-contained.
func WithNetwork() Option { return func(o *options) { o.online = true } }

// WithoutJavaScript disables scripts, to check what a reader without JS sees.
func WithoutJavaScript() Option { return func(o *options) { o.noJS = true } }

// WithTimeout bounds the whole browser session (default 60 s).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// New starts a fresh headless Chromium (its own empty profile) and returns
// a context for chromedp.Run on its first tab. The browser is stopped when
// the test ends.
func New(t testing.TB, opts ...Option) context.Context {
	t.Helper()
	o := options{width: 1400, height: 1000, timeout: 60 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	exe := Path()
	if exe == "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("no Chromium found and %s=1 (install Debian's chromium package)", RequireEnv)
		}
		t.Skip("no Chromium found (apt-get install chromium); set " + RequireEnv + "=1 to fail instead")
	}
	// The flags that keep Chromium quiet on a machine with a closed network.
	flags := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(o.width, o.height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	if !o.online {
		flags = append(flags, chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"))
	}
	if o.noJS {
		flags = append(flags, chromedp.Flag("blink-settings", "scriptEnabled=false"))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, o.timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", exe, err)
	}
	if !o.online {
		// Belt and braces on top of the resolver rule: refuse every
		// request that is not the page's own file or inline data.
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{
				URLPatterns: []*network.BlockPattern{
					{URLPattern: "http://*:*/*", Block: true},
					{URLPattern: "https://*:*/*", Block: true},
					{URLPattern: "ws://*:*/*", Block: true},
					{URLPattern: "wss://*:*/*", Block: true},
				},
			})
			return err
		}))
		if err != nil {
			t.Fatalf("block network: %v", err)
		}
	}
	return ctx
}

// FileURL is the file:// URL of path.
func FileURL(t testing.TB, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(abs)
}

// Screenshot saves a full-page PNG of the current tab to
// $AGENTTRACE_SCREENSHOTS/name (default: the test's temp dir is not kept, so
// set the variable to keep them) and returns its path. Quality 100 makes chromedp capture PNG.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("AGENTTRACE_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}
