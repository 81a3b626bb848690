// Package otlpe2e holds the end-to-end tests of `agenttrace serve --otlp`
// with clients no one here wrote: the OpenTelemetry JavaScript SDK's
// OTLP exporters (HTTP/protobuf, HTTP/JSON, gRPC; from npm, pinned in
// js/package-lock.json) and the Go SDK's (otlptracehttp, otlptracegrpc).
// A GenAI-shaped run goes to the real binary; the artifact must hold every
// span once with the right totals, and the run's page (headless Chromium)
// must show it running before the agent span ends and done after.
//
// Set-up: `npm ci --prefix internal/otlpe2e/js` (CI runs it; without it
// the JavaScript cases are skipped locally and fail under CI=true).
package otlpe2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/internal/clibuild"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/store"
)

// binary builds agenttrace once for the package's tests.
var binary string

func TestMain(m *testing.M) { clibuild.Main(m, &binary) }

// serving is a running `agenttrace serve DIR --otlp` on free ports.
type serving struct {
	dir, web, httpURL, grpcAddr string
	cmd                         *exec.Cmd
	done                        chan error
}

var (
	servingRe = regexp.MustCompile(`^serving .+ at (http://127\.0\.0\.1:\d+)/\n$`)
	httpRe    = regexp.MustCompile(`^receiving OTLP/HTTP at (http://127\.0\.0\.1:\d+) `)
	grpcRe    = regexp.MustCompile(`^receiving OTLP/gRPC at (127\.0\.0\.1:\d+)\n$`)
)

func serve(t *testing.T) *serving {
	t.Helper()
	s := &serving{dir: t.TempDir(), done: make(chan error, 1)}
	s.cmd = exec.Command(binary, "serve", s.dir, "--otlp-http", "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0")
	out, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	s.cmd.Stderr = os.Stderr
	require.NoError(t, s.cmd.Start())
	br := bufio.NewReader(out)
	for _, re := range []*regexp.Regexp{servingRe, httpRe, grpcRe} {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		m := re.FindStringSubmatch(line)
		require.NotNil(t, m, line)
		switch re {
		case servingRe:
			s.web = m[1]
		case httpRe:
			s.httpURL = m[1]
		case grpcRe:
			s.grpcAddr = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, br); s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); <-s.done })
	return s
}

// stop interrupts serve, which finalizes every artifact, and waits.
func (s *serving) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGINT))
	select {
	case err := <-s.done:
		require.NoError(t, err)
		s.done <- nil
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func (s *serving) artifact(t *testing.T, traceID string) ([]artifact.Record, *report.TokenReport) {
	t.Helper()
	recs, meta := artifacttest.Read(t, filepath.Join(s.dir, traceID+".jsonl"))
	return recs, report.Tokens(recs, meta)
}

func spanIDs(recs []artifact.Record) []string {
	ids := make([]string, len(recs))
	for i := range recs {
		ids[i] = recs[i].Span.SpanID().String()
	}
	slices.Sort(ids)
	return ids
}

// jsDir is the npm project of the JavaScript client.
const jsDir = "js"

func needNodeModules(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@opentelemetry", "sdk-trace-node")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the JavaScript SDK is not installed: run `npm ci --prefix internal/otlpe2e/js` first (%v)", err)
		}
		t.Skipf("the JavaScript SDK is not installed (npm ci --prefix internal/otlpe2e/js): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node: %v", err)
	}
}

// The OpenTelemetry JavaScript SDK's three OTLP exporters: the run
// appears while its agent span is open, shown running, then done; the
// artifact holds its five spans once, with their tokens and the failed
// tool call.
func TestJavaScriptSDK(t *testing.T) {
	needNodeModules(t)
	for _, protocol := range []string{"proto", "json", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			s := serve(t)
			endpoint := s.httpURL
			if protocol == "grpc" {
				endpoint = "http://" + s.grpcAddr
			}
			node := exec.Command("node", "send.js", protocol, endpoint)
			node.Dir = jsDir
			node.Stderr = os.Stderr
			stdin, err := node.StdinPipe()
			require.NoError(t, err)
			stdout, err := node.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, node.Start())
			t.Cleanup(func() { _ = node.Process.Kill(); _ = node.Wait() })
			br := bufio.NewReader(stdout)
			line, err := br.ReadString('\n')
			require.NoError(t, err)
			traceID, ok := strings.CutPrefix(strings.TrimSpace(line), "children sent ")
			require.True(t, ok, line)

			b := browsertest.New(t, browsertest.WithNetwork())
			require.NoError(t, chromedp.Do(b, chromedp.Navigate(s.web+"/run/"+traceID+".jsonl")))
			_, err = chromedp.Run(b, chromedp.Poll[bool](`document.body.dataset.ready === "1" && document.body.dataset.runState === "running" && document.querySelectorAll('#rows .row.running').length === 1 && document.querySelectorAll('#rows .row').length === 5`))
			if err != nil {
				state, _ := chromedp.Run(b, chromedp.Evaluate[string](`JSON.stringify({href: location.href, text: document.body ? document.body.innerText.slice(0, 300) : null, ready: document.body.dataset.ready, state: document.body.dataset.runState, rows: Array.from(document.querySelectorAll('#rows .row')).map(r => r.className + ' ' + r.innerText)})`))
				t.Fatalf("not shown running while the agent span is open: %v; the page: %s", err, state)
			}
			if protocol == "proto" {
				browsertest.Screenshot(t, b, "otlp-js-running.png")
			}

			_, err = io.WriteString(stdin, "end\n")
			require.NoError(t, err)
			line, err = br.ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "done\n", line)
			_, err = chromedp.Run(b, chromedp.Poll[bool](`document.body.dataset.runState === "done" && document.querySelectorAll('#rows .row.running').length === 0 && document.querySelectorAll('#rows .row').length === 5`))
			require.NoError(t, err, "done once the agent span arrives")

			s.stop(t)
			recs, rep := s.artifact(t, traceID)
			require.Len(t, recs, 5, "every span once")
			assert.Len(t, slices.Compact(spanIDs(recs)), 5)
			assert.Equal(t, int64(2700), rep.Tokens.Input)
			assert.Equal(t, int64(380), rep.Tokens.Output)
			assert.Equal(t, int64(1), rep.Errors)
			assert.Equal(t, report.RecordCounts{Agent: 1, Inference: 2, Call: 2}, rep.Records)
			assert.Equal(t, "js-agent-"+protocol, recs[0].Resource.Attributes().AsRaw()["service.name"])
		})
	}
}

// The Go SDK's OTLP exporters send the simulated agent's run to the
// binary: the artifact is the one the in-process bridge records.
func TestGoSDK(t *testing.T) {
	const seed = 9
	ref := t.TempDir()
	p, err := bridge.New(bridge.WithDirectory(ref, store.ByTrace))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSpanProcessor(p))...)
	agentsim.Run(context.Background(), tp, agentsim.Config{})
	require.NoError(t, tp.Shutdown(context.Background()))
	name := agentsim.TraceID(seed).String()
	wantRecs, wantMeta := artifacttest.Read(t, filepath.Join(ref, name+".jsonl"))
	want := report.Tokens(wantRecs, wantMeta)

	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			s := serve(t)
			var exp sdktrace.SpanExporter
			if protocol == "grpc" {
				exp, err = otlptracegrpc.New(t.Context(), otlptracegrpc.WithEndpoint(s.grpcAddr), otlptracegrpc.WithInsecure())
			} else {
				exp, err = otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(s.httpURL+"/v1/traces"))
			}
			require.NoError(t, err)
			tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithBatcher(exp))...)
			agentsim.Run(context.Background(), tp, agentsim.Config{})
			require.NoError(t, tp.Shutdown(context.Background()))
			s.stop(t)
			recs, rep := s.artifact(t, name)
			assert.Equal(t, spanIDs(wantRecs), spanIDs(recs), "every span once")
			assert.Equal(t, want.Tokens, rep.Tokens)
			assert.Equal(t, want.Records, rep.Records)
			assert.Equal(t, want.Errors, rep.Errors)
		})
	}
}
