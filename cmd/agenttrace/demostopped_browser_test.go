package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/browsertest"
)

// startDemo runs "agenttrace demo" as a process of its own, with args,
// and returns it; the test kills it when it ends.
func startDemo(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestServeHelperProcess$", "--", "demo"}, args...)...)
	cmd.Env = append(os.Environ(), serveHelperEnv+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	out := &serveOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// lastRecordAt is the latest started_at or finished_at of the records in
// the artifact at path, read with encoding/json: the time a stopped run's
// page names as its last record's.
func lastRecordAt(t *testing.T, path string) time.Time {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var last time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Kind       string    `json:"kind"`
			StartedAt  time.Time `json:"started_at"`
			FinishedAt time.Time `json:"finished_at"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Kind == "meta" || rec.Kind == "summary" || rec.Kind == "log" {
			continue // a torn last line, the header
		}
		for _, at := range []time.Time{rec.StartedAt, rec.FinishedAt} {
			if at.After(last) {
				last = at
			}
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, last.IsZero(), "the artifact holds a record")
	return last
}

// TestServeShowsKilledDemoStopped (issue 24 point 5): the SDK demo,
// writing its run in real time through the span processor, is killed with
// SIGKILL mid-run: the artifact keeps the spans that ended and no
// trailer, and its root never ends. Once its file has gained nothing for
// serve's --idle, the run page, followed live, and the runs list show
// "stopped without an end" with the time of its last record, not
// "running".
func TestServeShowsKilledDemoStopped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL on Windows")
	}
	dir := t.TempDir()
	const idle = 8 * time.Second
	_, url, _ := startServe(t, "", dir, "--addr", "127.0.0.1:0", "--idle", idle.String())
	ctx := browsertest.New(t, browsertest.WithNetwork())
	// The first tool call lasts a minute: the kill comes while it runs.
	demo := startDemo(t, "--out", dir, "--speed", "1", "--slow-tool", "60s")
	path := filepath.Join(dir, agentsim.TraceID(defaultDemoSeed).String()+".jsonl")
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), `"kind":"inference"`)
	}, time.Minute, 20*time.Millisecond, "the demo writes its first model call")

	// Live: the root has not ended, the file was just written.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"run/"+filepath.Base(path))))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.ready === "1" && document.body.dataset.runState === "running"`))
	require.NoError(t, err, "the live run shows as running")

	require.NoError(t, demo.Process.Signal(os.Kill))
	_ = demo.Wait()
	killed := time.Now()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(raw), `"kind":"summary"`, "killed: no trailer")
	want := "stopped without an end; last record at " + lastRecordAt(t, path).UTC().Format("2006-01-02 15:04:05Z")

	// Nothing more comes: once the file has been idle for --idle, the
	// page (its live stream says so) shows the run stopped.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.runState === "stopped"`, chromedp.WithPollingTimeout(idle+30*time.Second)))
	require.NoError(t, err, "the page shows the run stopped once its file is idle")
	t.Logf("shown stopped %v after the kill (--idle %v)", time.Since(killed), idle)
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('cards').innerText`))
	require.NoError(t, err)
	require.Contains(t, cards, want)
	require.NotContains(t, cards, "running")
	browsertest.Screenshot(t, ctx, "demo-killed-stopped.png")

	// The runs list says the same, from the same rule.
	list := fetchOK(t, url)
	require.Contains(t, list, want)
	require.NotContains(t, list, "● running")
}
