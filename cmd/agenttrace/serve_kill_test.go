package main

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/store"
)

// killBatch is request n of TestServeOTLPKillNine's stream: the children
// of trace n, the root of trace n-1 and a late child of trace n-2, whose
// root came in the request before. So at any moment some traces have
// children without their root, and some a late span after their root.
func killBatch(n int) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "kill-nine")
	ss := rs.ScopeSpans().AppendEmpty()
	tid := func(n int) pcommon.TraceID {
		return pcommon.TraceID{0x4b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, byte(n >> 16), byte(n >> 8), byte(n)}
	}
	add := func(trace, id int, root bool) {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid(trace))
		sp.SetSpanID(pcommon.SpanID{byte(id), 1, 2, 3, 4, 5, 6, 7})
		start := time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC).Add(time.Duration(trace) * time.Second)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(id) * time.Millisecond)))
		if root {
			sp.SetName("invoke_agent planner")
			sp.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
			return
		}
		sp.SetParentSpanID(pcommon.SpanID{1, 1, 2, 3, 4, 5, 6, 7})
		sp.SetName("chat m")
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("gen_ai.request.model", "m")
		a.PutInt("gen_ai.usage.input_tokens", 10)
		a.PutInt("gen_ai.usage.output_tokens", 5)
	}
	for id := 2; id < 6; id++ {
		add(n, id, false)
	}
	if n >= 1 {
		add(n-1, 1, true)
	}
	if n >= 2 {
		add(n-2, 9, false)
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err) // a batch built above always marshals
	}
	return b
}

// TestServeOTLPKillNine (issue 22 item 3): serve --otlp, a process of its
// own, is killed with SIGKILL while a sender streams traces whose roots
// and late children cross requests; serve started again on the folder
// repairs what the kill left (a torn line, a late span after the last
// trailer, children without a trailer) on its own, and then every
// artifact passes `agenttrace validate`, each ending with its trailer.
func TestServeOTLPKillNine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL on Windows")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeHelperProcess$", "--", "serve", dir,
		"--addr", "127.0.0.1:0", "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "off")
	cmd.Env = append(os.Environ(), serveHelperEnv+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
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
	br := bufio.NewReader(stdout)
	var otlp string
	for otlp == "" {
		line, err := br.ReadString('\n')
		require.NoError(t, err, stderr.String())
		if h := otlpHTTPRe.FindStringSubmatch(line); h != nil {
			otlp = h[1]
		}
	}

	// The sender streams until serve dies.
	var acked atomic.Int64
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		client := &http.Client{Timeout: 10 * time.Second}
		for n := 0; ; n++ {
			resp, err := client.Post(otlp+"/v1/traces", "application/json", bytes.NewReader(killBatch(n)))
			if err != nil {
				return
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				acked.Add(1)
			}
		}
	}()
	require.Eventually(t, func() bool { return acked.Load() >= 300 }, 60*time.Second, time.Millisecond, "serve takes the stream")
	require.NoError(t, cmd.Process.Signal(os.Kill))
	_ = cmd.Wait()
	<-sent

	// Started again, serve repairs the folder once its files are idle.
	unfinished := func() []string {
		var out []string
		paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		require.NoError(t, err)
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue // set aside by the repair since the listing (a header the kill tore)
			}
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
			if !strings.HasSuffix(string(raw), "\n") || !strings.Contains(lines[len(lines)-1], `"kind":"summary"`) {
				out = append(out, filepath.Base(p))
			}
		}
		return out
	}
	t.Logf("%d requests acknowledged; left without a final trailer by the kill: %d files", acked.Load(), len(unfinished()))
	_, _, stop := startServeRedaction(t, dir, "--addr", "127.0.0.1:0", "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "off")
	require.Eventually(t, func() bool { return len(unfinished()) == 0 }, 10*store.SharedFolderIdle, 10*time.Millisecond,
		"repaired on start, serve still running")
	stop()

	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 300, "a file per trace")
	r := agenttrace(t, "", append([]string{"validate"}, paths...)...)
	assert.Equal(t, exitOK, r.code, "%s%s", r.stdout, r.stderr)
	assert.Equal(t, len(paths), strings.Count(r.stdout, ": ok ("), r.stdout)
}
