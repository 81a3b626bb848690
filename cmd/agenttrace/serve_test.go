package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agenttrace/agenttrace/catalog"
)

// servingRe is the line serve prints once it listens.
var servingRe = regexp.MustCompile(`^serving (.+) at (http://127\.0\.0\.1:\d+/)\n$`)

func TestServeRefusesNonLoopbackAddr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.1:0", ":0", "example.com:0", "[::]:0", "127.0.0.1", "127.0.0.1:http"} {
		r := agenttrace(t, "", "serve", dir, "--addr", addr)
		require.Equal(t, exitUsage, r.code, addr)
		require.Contains(t, r.stderr, "--addr", addr)
		require.Contains(t, r.stderr, "Run 'agenttrace serve --help' for usage.", addr)
		require.Empty(t, r.stdout, "%s: nothing served", addr)
	}
	r := agenttrace(t, "", "serve", dir, "--addr", "0.0.0.0:0")
	require.Contains(t, r.stderr, "every interface")
}

func TestServeUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := agenttrace(t, "", "serve")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "missing directory to serve")
	r = agenttrace(t, "", "serve", dir, dir)
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "one directory")
	r = agenttrace(t, "", "serve", filepath.Join(dir, "missing"))
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "no such file or directory")
}

// In process: serve prints where it listens, serves the runs the demo
// wrote, and returns cleanly when its context ends.
func TestServeDemoRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo := agenttrace(t, "", "demo", "--out", dir)
	require.Equal(t, exitOK, demo.code, demo.stderr)
	artifact := filepath.Base(strings.TrimSpace(lines(demo.stdout)[1]))
	require.True(t, strings.HasSuffix(artifact, ".jsonl"), demo.stdout)

	out, outW := io.Pipe()
	var errBuf bytes.Buffer
	errOut := lockedWriter{w: &errBuf}
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: outW, stderr: &errOut})
	root.SetArgs([]string{"serve", dir})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer cancel() // on failure; the end of the test waits for done

	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	m := servingRe.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	require.Equal(t, dir, m[1])

	body := fetchOK(t, m[2])
	require.Contains(t, body, `href="/run/`+artifact+`"`)
	require.Contains(t, body, "agenttrace-demo") // the service
	page := fetchOK(t, m[2]+"run/"+artifact)
	require.NotEmpty(t, page)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context ended")
	}
	require.Empty(t, errBuf.String())
}

// fetchOK fetches url and requires a 200.
func fetchOK(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	return string(body)
}

// serveHelperEnv makes the test binary run the command line after "--"
// instead of its tests: TestServeHelperProcess is the agenttrace
// process of the signal tests.
const serveHelperEnv = "AGENTTRACE_SERVE_HELPER"

// TestServeHelperProcess is not a test: run with serveHelperEnv=1, it is
// agenttrace, run as its own process, so that it can be sent signals.
func TestServeHelperProcess(t *testing.T) {
	if os.Getenv(serveHelperEnv) != "1" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// startServe runs "agenttrace serve" as a process, with PATH set to path
// when not empty, and returns it with the URL it serves at.
func startServe(t *testing.T, path string, args ...string) (*exec.Cmd, string, *serveOutput) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestServeHelperProcess$", "--", "serve"}, args...)...)
	// A race-enabled binary sleeps a second at exit unless told not to.
	cmd.Env = append(os.Environ(), serveHelperEnv+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	if path != "" {
		cmd.Env = append(cmd.Env, "PATH="+path)
	}
	stderr := &serveOutput{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, stderr.String())
	m := servingRe.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	return cmd, m[2], stderr
}

// serveOutput is a bytes.Buffer that a child's output is copied into while
// the test reads it.
type serveOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *serveOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *serveOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// SIGINT and SIGTERM stop the server, which exits 0.
func TestServeStopsOnSignal(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("a process cannot be sent SIGINT or SIGTERM on Windows")
	}
	dir := t.TempDir()
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		cmd, url, stderr := startServe(t, "", dir)
		require.Contains(t, fetchOK(t, url), "No artifacts")
		require.NoError(t, cmd.Process.Signal(sig))
		require.NoError(t, cmd.Wait(), "%v: %s", sig, stderr)
		require.Equal(t, 0, cmd.ProcessState.ExitCode())
	}
}

// --open hands the URL to the desktop's opener; an opener that fails is a
// warning, not an error.
func TestServeOpen(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the fake openers are shell scripts")
	}
	dir := t.TempDir()
	bin := t.TempDir()
	opened := filepath.Join(t.TempDir(), "opened")
	for _, name := range []string{"xdg-open", "open"} {
		script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + opened + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	cmd, url, _ := startServe(t, bin+":/usr/bin:/bin", dir, "--open")
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(opened)
		return err == nil && string(b) == url+"\n"
	}, 10*time.Second, 10*time.Millisecond, "the opener got the URL")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())

	// No opener at all: a warning, and the server runs.
	cmd, url, stderr := startServe(t, t.TempDir(), dir, "--open")
	require.Contains(t, fetchOK(t, url), "No artifacts")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())
	require.Contains(t, stderr.String(), "warning: --open")
}

func TestServeOTLPRefusesRemoteWithoutFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--otlp-http", "0.0.0.0:0"}, "--otlp-allow-remote"},
		{[]string{"--otlp-grpc", "192.168.1.1:0"}, "--otlp-allow-remote"},
		{[]string{"--otlp-grpc", "127.0.0.1"}, "--otlp-grpc"},
		{[]string{"--otlp", "--otlp-http", "off", "--otlp-grpc", "off"}, "receives nothing"},
		{[]string{"--otlp-allow-remote"}, "need --otlp"},
		{[]string{"--cors", "http://app.example"}, "need --otlp"},
		{[]string{"--otlp-max-inflight", "1000"}, "need --otlp"},
	}
	for _, tt := range tests {
		r := agenttrace(t, "", append([]string{"serve", dir, "--addr", "127.0.0.1:0"}, tt.args...)...)
		require.Equal(t, exitUsage, r.code, tt.args)
		require.Contains(t, r.stderr, tt.want, tt.args)
		require.Empty(t, r.stdout, "%v: nothing served", tt.args)
	}
}

var otlpHTTPRe = regexp.MustCompile(`receiving OTLP/HTTP at (http://127\.0\.0\.1:\d+) `)

// In process: --otlp-http with port 0 prints the port it picked; a span
// posted there as OTLP/JSON is written into DIR and listed; at the end
// the artifact is finalized.
func TestServeOTLP(t *testing.T) {
	// Not parallel: no goroutine of serve's, its receiver's or its
	// store's may outlive it.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	out, outW := io.Pipe()
	var errBuf bytes.Buffer
	errOut := lockedWriter{w: &errBuf}
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: outW, stderr: &errOut})
	root.SetArgs([]string{"serve", dir, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer cancel()

	br := bufio.NewReader(out)
	var printed []string
	for range 3 {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		printed = append(printed, line)
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(br); rest <- string(b) }()
	m := servingRe.FindStringSubmatch(printed[0])
	require.NotNil(t, m, printed)
	h := otlpHTTPRe.FindStringSubmatch(printed[1])
	require.NotNil(t, h, printed)
	require.Regexp(t, `^receiving OTLP/gRPC at 127\.0\.0\.1:[1-9]\d*\n$`, printed[2])

	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"otlp-test"}}]},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"invoke_agent planner","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000"}]}]}]}`
	resp, err := http.Post(h[1]+"/v1/traces", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Post(h[1]+"/v1/traces", "text/plain", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
	require.FileExists(t, filepath.Join(dir, "5b8efff798038103d269b633813fc60c.jsonl"))
	require.Contains(t, fetchOK(t, m[2]), "otlp-test")

	cancel()
	require.NoError(t, <-done)
	http.DefaultClient.CloseIdleConnections()
	require.NoError(t, outW.Close())
	require.Equal(t, "OTLP: 1 spans written from 1 requests; refused 1 requests (0 bad payload, 1 wrong content type, 0 too large, 0 wrong method, 0 gRPC errors, 0 forbidden host or origin, 0 over the in-flight limit)\n", <-rest)
	b, err := os.ReadFile(filepath.Join(dir, "5b8efff798038103d269b633813fc60c.jsonl"))
	require.NoError(t, err)
	require.Contains(t, string(b), `"complete":true`, "finalized at the end")
	require.Contains(t, errBuf.String(), `msg="refused OTLP request: content type" content_type=text/plain`)
	// The run catalog was kept as the run was finalized (--otlp-catalog).
	p, err := catalog.Query(t.Context(), catalog.Dir(dir), catalog.Filter{}, catalog.Sort{}, 0, 0)
	require.NoError(t, err)
	require.Len(t, p.Rows, 1)
	assert.Equal(t, "5b8efff798038103d269b633813fc60c.jsonl", p.Rows[0].Run)
	assert.Equal(t, "otlp-test", p.Rows[0].Service)
	assert.Equal(t, "invoke_agent planner", p.Rows[0].RootName)
}

// The Host names OTLP/HTTP answers besides loopback ones: the host
// --otlp-http names on purpose (an empty or unspecified one lets the
// receiver take any IP literal, package hostcheck), none for loopback.
func TestOTLPHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		http string
		want []string
	}{
		{"127.0.0.1:4318", nil},
		{"localhost:0", nil},
		{"off", nil},
		{"10.0.0.5:4318", []string{"10.0.0.5"}},
		{"box.lan:4318", []string{"box.lan"}},
		{"0.0.0.0:4318", []string{"0.0.0.0"}},
		{":4318", []string{""}},
	}
	for _, tt := range tests {
		o := otlpFlags{http: tt.http}
		require.Equal(t, tt.want, o.hosts(), tt.http)
	}
}
