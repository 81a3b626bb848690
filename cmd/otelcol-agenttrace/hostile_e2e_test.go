package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/internal/clibuild"
	"github.com/agenttrace/agenttrace/internal/hostiletest"
)

// hostileRSSBound is the peak RSS (VmHWM) the collector must stay under
// through the whole suite. The receiver has no in-flight limit: the flood
// step's 50 concurrent 8 MB bodies (400 MB on the wire) are all read and
// decoded at once, and the shipped memory_limiter (80 % of the host's
// memory, checked every second) does not refuse any on a host with GiBs
// to spare. Measured 2026-12-05 on a 24 GB, 2-core host: 1.94 and
// 1.98 GiB peak in two runs (about 4.8 times the wire bytes). The bound
// leaves headroom over that, so it catches a regression that holds a
// request more than once, not a tight budget.
const hostileRSSBound = 3 << 30

// hostileTarget is the real distribution under the shipped config, with
// what it acknowledged.
type hostileTarget struct {
	*collector
	dir string

	acked hostiletest.Acked
}

// hostileTraces is hostiletest.Traces marked as this suite's.
func hostileTraces(n, pad int) (ptrace.Traces, pcommon.TraceID, pcommon.SpanID) {
	return hostiletest.Traces("hostile-collector", 0xc0, n, pad)
}

// post sends body to the collector's /v1/traces (hostiletest.Post).
func (h *hostileTarget) post(t *testing.T, body io.Reader, size int64, hdr map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	return hostiletest.Post(t, h.http, body, size, hdr)
}

// peakRSS is the collector's peak resident set (VmHWM), in bytes.
func (h *hostileTarget) peakRSS(t *testing.T) int64 { return hostiletest.PeakRSS(t, h.cmd.Process.Pid) }

// alive fails t when the collector has exited, and checks its pid is
// still a live process in /proc.
func (h *hostileTarget) alive(t *testing.T) {
	t.Helper()
	select {
	case <-h.done:
		h.dumpLog(t)
		t.Fatalf("collector exited: %v", h.err)
	default:
	}
	_, err := os.Stat(fmt.Sprintf("/proc/%d/status", h.cmd.Process.Pid))
	require.NoError(t, err, "collector pid gone")
}

// normal is a well-behaved exporter: one small trace, retried after 429
// and 503 (as OTLP exporters do), until acknowledged within a minute.
func (h *hostileTarget) normal(t *testing.T) {
	t.Helper()
	td, tid, sid := hostileTraces(3, 0)
	body := hostiletest.Proto(t, td)
	deadline := time.Now().Add(time.Minute)
	for {
		resp, b, err := h.post(t, bytes.NewReader(body), int64(len(body)), nil)
		require.NoError(t, err)
		if resp.StatusCode == http.StatusOK {
			hostiletest.Accepted(t, b)
			h.acked.Add(tid, sid)
			return
		}
		require.Contains(t, []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}, resp.StatusCode, "%s", b)
		require.True(t, time.Now().Before(deadline), "a normal client was not served within a minute")
		time.Sleep(time.Second) // the receiver's Retry-After is advisory; one second is what SDKs start with
	}
}

// written waits until every acknowledged span is in its trace's
// artifact.
func (h *hostileTarget) written(t *testing.T) []string {
	t.Helper()
	return h.acked.Written(t, h.dir, 60*time.Second, 100*time.Millisecond)
}

// after is what every hostile request is followed by.
func (h *hostileTarget) after(t *testing.T) {
	t.Helper()
	h.alive(t)
	h.normal(t)
	h.written(t)
	rss := h.peakRSS(t)
	t.Logf("collector peak RSS so far: %d MiB", rss>>20)
	require.Less(t, rss, int64(hostileRSSBound))
}

// TestCollectorHostileRequests is issue 22's hostile-request check
// against the real distribution with the shipped config
// (deploy/collector/agenttrace.yaml, unchanged but for loopback ports and
// its own telemetry): a gzip bomb, oversized bodies, a garbage gRPC
// message, `Content-Encoding: GZIP`, a zero trace id and 50 concurrent
// 8 MB requests. After each the process is alive, its peak RSS under
// hostileRSSBound, a normal client is served and every acknowledged span
// is in its artifact; after a clean stop every artifact passes
// `agenttrace validate`.
func TestCollectorHostileRequests(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/status")
	}
	if testing.Short() {
		t.Skip("end-to-end: builds and floods the collector")
	}
	cli := clibuild.Path(t)
	bin := buildDistribution(t)
	dir := filepath.Join(t.TempDir(), "runs")
	grpcAddr, httpAddr := freePort(t), freePort(t)
	c := startShippedLog(t, bin, dir, dir+".queue", grpcAddr, httpAddr, filepath.Join(t.TempDir(), "collector.log"))
	e2eAwaitDial(t, c, httpAddr)
	h := &hostileTarget{collector: c, dir: dir}
	h.normal(t)
	steps := []struct {
		name string
		run  func(t *testing.T, h *hostileTarget)
	}{
		{"gzip bomb", collectorGzipBomb},
		{"oversized body", collectorOversized},
		{"GZIP encoding", collectorUpperGzip},
		{"zero trace id", collectorZeroTraceID},
		{"garbage gRPC", collectorGarbageGRPC},
		{"concurrent large HTTP requests", collectorFlood},
	}
	for _, st := range steps {
		if !t.Run(st.name, func(t *testing.T) {
			st.run(t, h)
			h.after(t)
		}) {
			h.alive(t) // a failure that killed the collector ends the suite
		}
	}
	acked := h.written(t)
	c.stop(t)
	// Every artifact in the directory, not only the acknowledged ones.
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Subset(t, files, acked)
	out, err := exec.Command(cli, append([]string{"validate"}, files...)...).CombinedOutput()
	require.NoError(t, err, "validate:\n%s", out)
	t.Logf("validate on %d artifacts (%d acknowledged traces): clean", len(files), len(acked))
}

// e2eAwaitDial waits until addr accepts connections (startShippedLog
// waits for gRPC only).
func e2eAwaitDial(t *testing.T, c *collector, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		select {
		case <-c.done:
			return true // alive() reports it
		default:
		}
		return dialable(addr)
	}, 30*time.Second, 20*time.Millisecond, "collector listening on %s", addr)
}

// refused accepts what a receiver that stops reading a too-large body
// answers: a 4xx status, or a connection closed before the client wrote
// the whole body.
func refused(t *testing.T, what string, resp *http.Response, body []byte, err error) {
	t.Helper()
	if err != nil {
		assert.True(t, errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE), "%s: %v", what, err)
		t.Logf("%s: connection closed (%v)", what, err)
		return
	}
	assert.Contains(t, []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge}, resp.StatusCode, "%s: %s", what, body)
	t.Logf("%s: %d %.200s", what, resp.StatusCode, body)
}

func collectorGzipBomb(t *testing.T, h *hostileTarget) {
	// 2 GiB of zeros in about 2 MiB: 2048 gzip members of 1 MiB each (a
	// gzip stream may hold many; built without compressing 2 GiB). The
	// receiver's max_request_body_size (16 MiB in the shipped config)
	// applies to the decoded body.
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(make([]byte, 1<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	bomb := bytes.Repeat(member.Bytes(), 2048)
	require.Less(t, len(bomb), 4<<20)
	start := time.Now()
	resp, body, err := h.post(t, bytes.NewReader(bomb), int64(len(bomb)), map[string]string{"Content-Encoding": "gzip"})
	require.NoError(t, err)
	refused(t, fmt.Sprintf("gzip bomb (%d bytes inflating to 2 GiB)", len(bomb)), resp, body, nil)
	t.Logf("gzip bomb answered in %v", time.Since(start))
}

func collectorOversized(t *testing.T, h *hostileTarget) {
	resp, body, err := h.post(t, &hostiletest.Zeros{N: 200 << 20}, 200<<20, nil)
	refused(t, "200 MB announced", resp, body, err)
	resp, body, err = h.post(t, &hostiletest.Zeros{N: 64 << 20}, -1, nil)
	refused(t, "64 MB chunked", resp, body, err)
	// gRPC: the shipped config's max_recv_msg_size_mib is 16.
	td, _, _ := hostileTraces(16_000, 1100)
	b := hostiletest.Proto(t, td)
	require.Greater(t, len(b), 16<<20)
	cc := hostiletest.Dial(t, h.grpc)
	err = cc.Invoke(context.Background(), hostiletest.ExportMethod, &b, new([]byte), grpc.ForceCodecV2(hostiletest.RawCodec{}))
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	t.Logf("gRPC %d bytes: %v", len(b), err)
}

func collectorUpperGzip(t *testing.T, h *hostileTarget) {
	td, tid, sid := hostileTraces(2, 0)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(hostiletest.Proto(t, td))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	resp, body, err := h.post(t, &buf, int64(buf.Len()), map[string]string{"Content-Encoding": "GZIP"})
	require.NoError(t, err)
	// Content codings are case-insensitive (RFC 9110 8.4.1), but
	// confighttp looks the header up as written: record what it does.
	switch resp.StatusCode {
	case http.StatusOK:
		h.acked.Add(tid, sid)
		t.Log("Content-Encoding: GZIP accepted")
	case http.StatusBadRequest:
		assert.Contains(t, string(body), "GZIP", "the refusal names the encoding")
		t.Logf("Content-Encoding: GZIP refused: 400 %s", bytes.TrimSpace(body))
	default:
		t.Errorf("Content-Encoding: GZIP: %d %s", resp.StatusCode, body)
	}
}

func collectorZeroTraceID(t *testing.T, h *hostileTarget) {
	td, tid, sid := hostileTraces(2, 0)
	// A resource of its own whose one span has no trace id: the store
	// drops it rather than write DIR/.jsonl (written checks).
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "zero-trace-id")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("no trace id")
	sp.SetSpanID(pcommon.SpanID{9, 9, 9, 9, 9, 9, 9, 9})
	b := hostiletest.Proto(t, td)
	resp, body, err := h.post(t, bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	er := ptraceotlp.NewExportResponse()
	require.NoError(t, er.UnmarshalProto(body))
	t.Logf("zero trace id: 200, rejected spans %d %q", er.PartialSuccess().RejectedSpans(), er.PartialSuccess().ErrorMessage())
	h.acked.Add(tid, sid)
	h.written(t) // the good trace of the same request is written, so the bad span was handled
	f, err := os.ReadFile(filepath.Join(h.dir, tid.String()+".jsonl"))
	require.NoError(t, err)
	assert.NotContains(t, string(f), "no trace id")
}

func collectorGarbageGRPC(t *testing.T, h *hostileTarget) {
	cc := hostiletest.Dial(t, h.grpc)
	garbage := []byte("\xff\xff\xff\xff not protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := cc.Invoke(ctx, hostiletest.ExportMethod, &garbage, new([]byte), grpc.ForceCodecV2(hostiletest.RawCodec{}))
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	// The same connection serves the next call.
	td, tid, sid := hostileTraces(2, 0)
	resp, err := ptraceotlp.NewGRPCClient(cc).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
	require.NoError(t, err)
	require.Zero(t, resp.PartialSuccess().RejectedSpans())
	h.acked.Add(tid, sid)
}

func collectorFlood(t *testing.T, h *hostileTarget) {
	// 50 concurrent requests of 8 MB, the same trace (those taken after
	// the first are redeliveries the store skips): taken, or refused by
	// memory_limiter (503/429), never a crash.
	td, tid, sid := hostileTraces(7000, 1100)
	b := hostiletest.Proto(t, td)
	require.Greater(t, len(b), 7<<20)
	require.Less(t, len(b), 9<<20)
	const n = 50
	var wg sync.WaitGroup
	var ok, busy, cut atomic.Int32
	start := time.Now()
	for range n {
		wg.Go(func() {
			resp, body, err := h.post(t, bytes.NewReader(b), int64(len(b)), nil)
			switch {
			case err != nil:
				t.Errorf("flood request: %v", err)
				cut.Add(1)
			case resp.StatusCode == http.StatusOK:
				ok.Add(1)
			case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
				busy.Add(1)
			default:
				t.Errorf("status %d: %.300s", resp.StatusCode, body)
			}
		})
	}
	h.normal(t) // meanwhile
	wg.Wait()
	t.Logf("%d concurrent %d-byte requests in %v: %d taken, %d refused 429/503, %d failed",
		n, len(b), time.Since(start).Round(time.Millisecond), ok.Load(), busy.Load(), cut.Load())
	if ok.Load() > 0 {
		h.acked.Add(tid, sid)
	}
}
