package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/receiver"
	"github.com/agenttrace/agenttrace/report"
)

var liveTraceRe = regexp.MustCompile(`running the planner live \(trace ([0-9a-f]{32})\), exporting to (http://127\.0\.0\.1:\d+)`)

// demo --live with no serve running starts one into --out, paces the run
// (here 1000 times faster than its simulated latencies) and exports each
// span over OTLP/HTTP: the artifact is the whole run.
func TestDemoLiveStartsServe(t *testing.T) {
	if listening("127.0.0.1:4318") {
		t.Skip("something listens on 127.0.0.1:4318: demo --live would send there")
	}
	dir := t.TempDir()
	r := agenttrace(t, "", "demo", "--live", "--live-exit", "--speed", "1000", "--out", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	m := liveTraceRe.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	assert.Regexp(t, `(?m)^serving .+ at http://127\.0\.0\.1:\d+/$`, r.stdout)
	assert.Contains(t, r.stdout, "planner answered: 5 model calls, 4 tool calls (1 failed)")
	recs, meta := artifacttest.Read(t, filepath.Join(dir, m[1]+".jsonl"))
	rep := report.Tokens(recs, meta)
	assert.Equal(t, report.RecordCounts{Call: 4, Inference: 5, Agent: 2}, rep.Records)
	assert.Equal(t, int64(6103), rep.Tokens.Total)
}

// demo --live --otlp-endpoint sends to a serve --otlp that runs already,
// into its folder.
func TestDemoLiveToRunningServe(t *testing.T) {
	dir := t.TempDir()
	out, outW := io.Pipe()
	var errBuf bytes.Buffer
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: outW, stderr: &lockedWriter{w: &errBuf}})
	root.SetArgs([]string{"serve", dir, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "off"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	defer cancel()
	br := bufio.NewReader(out)
	_, err := br.ReadString('\n')
	require.NoError(t, err)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	h := otlpHTTPRe.FindStringSubmatch(line)
	require.NotNil(t, h, line)
	go func() { _, _ = io.Copy(io.Discard, br) }()

	r := agenttrace(t, "", "demo", "--live", "--speed", "1000", "--otlp-endpoint", h[1])
	require.Equal(t, exitOK, r.code, r.stderr)
	m := liveTraceRe.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	assert.Equal(t, h[1], m[2])
	assert.NotContains(t, r.stdout, "serving", "it used the serve that runs")

	cancel()
	require.NoError(t, <-done)
	recs, meta := artifacttest.Read(t, filepath.Join(dir, m[1]+".jsonl"))
	assert.Equal(t, int64(6103), report.Tokens(recs, meta).Tokens.Total)
}

func TestDemoLiveUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--out", t.TempDir(), "--open"}, "--open needs --live"},
		{[]string{"demo", "--live", "--speed", "0"}, "--speed 0"},
		{[]string{"demo", "--out", t.TempDir(), "--speed", "0"}, "--speed 0"},
		{[]string{"demo", "--out", t.TempDir(), "--slow-tool", "-1s"}, "--slow-tool -1s"},
		{[]string{"demo", "--live", "--otlp-endpoint", "127.0.0.1:4318"}, "want an http:// or https:// URL"},
		{[]string{"demo"}, `required flag(s) "out" not set`},
	} {
		r := agenttrace(t, "", tt.args...)
		assert.Equal(t, exitUsage, r.code, tt.args)
		assert.Contains(t, r.stderr, tt.want, tt.args)
	}
}

// TestIsAgenttrace: demo --live sends its run to what listens on the
// default OTLP/HTTP port only when that is agenttrace's receiver; another
// OTLP receiver there (a collector, Jaeger: here a server that accepts
// every export, as they do) would take the run and show no page.
func TestIsAgenttrace(t *testing.T) {
	rcv, err := startOTLP(t.TempDir(), otlpFlags{on: true, http: "127.0.0.1:0", grpc: "off", maxRequest: receiver.DefaultMaxRequest},
		slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer func() { require.NoError(t, rcv.stop(context.Background())) }()
	assert.True(t, isAgenttrace(t.Context(), "http://"+rcv.httpAddr))

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer other.Close()
	assert.False(t, isAgenttrace(t.Context(), other.URL))
}
