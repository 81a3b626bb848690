package receiver_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/receiver"
)

// send posts body to h's /v1/traces with the headers given (Host sets
// the request's Host) and returns the response, its body read.
func send(t *testing.T, h *harness, method string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+h.httpAddr+receiver.PathTraces, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestHostAndOrigin: only loopback names and the hosts the receiver was
// started on are answered (DNS rebinding); a page of another site is
// refused unless WithCORS names its origin, whose preflight is answered.
func TestHostAndOrigin(t *testing.T) {
	const cors = "http://app.example:3000"
	h := start(t, receiver.WithCORS(cors+"/"), receiver.WithAllowedHosts("box.lan"))
	tests := []struct {
		name   string
		method string
		hdr    map[string]string
		code   int
		acao   string // Access-Control-Allow-Origin expected
	}{
		{"loopback", http.MethodPost, nil, http.StatusOK, ""},
		{"localhost", http.MethodPost, map[string]string{"Host": "LOCALHOST:4318"}, http.StatusOK, ""},
		{"started on", http.MethodPost, map[string]string{"Host": "box.lan:4318"}, http.StatusOK, ""},
		{"rebinding", http.MethodPost, map[string]string{"Host": "evil.example:4318", "Content-Type": "application/json"}, http.StatusForbidden, ""},
		{"other IP", http.MethodPost, map[string]string{"Host": "10.1.2.3:4318"}, http.StatusForbidden, ""},
		{"own origin", http.MethodPost, map[string]string{"Origin": "http://" + h.httpAddr}, http.StatusOK, ""},
		{"cross origin", http.MethodPost, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden, ""},
		{"null origin", http.MethodPost, map[string]string{"Origin": "null"}, http.StatusForbidden, ""},
		{"allowed origin", http.MethodPost, map[string]string{"Origin": cors}, http.StatusOK, cors},
		{"allowed preflight", http.MethodOptions, map[string]string{"Origin": cors, "Access-Control-Request-Method": "POST"}, http.StatusNoContent, cors},
		{"cross preflight", http.MethodOptions, map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}, http.StatusForbidden, ""},
	}
	written := 0
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := h.rcv.Stats().Forbidden
			_, pb, _ := goodRequest(t, string(rune('a'+i)))
			resp, b := send(t, h, tt.method, pb, tt.hdr)
			assert.Equal(t, tt.code, resp.StatusCode, "%s", b)
			assert.Equal(t, tt.acao, resp.Header.Get("Access-Control-Allow-Origin"))
			if tt.code == http.StatusForbidden {
				assert.Equal(t, before+1, h.rcv.Stats().Forbidden)
				assert.NotEmpty(t, b, "a google.rpc.Status says why")
			}
			if tt.code == http.StatusOK {
				written++
			}
		})
	}
	require.NoError(t, h.st.Flush())
	ents, err := os.ReadDir(h.dir)
	require.NoError(t, err)
	assert.Len(t, ents, written, "only the requests answered 200 were written")
}

// TestInFlightLimit: while a request holds the in-flight budget, another
// is refused with 429 and Retry-After over HTTP and RESOURCE_EXHAUSTED
// with a RetryInfo over gRPC; once it ends, both are taken, and the
// budget is whole again.
func TestInFlightLimit(t *testing.T) {
	h := start(t, receiver.WithMaxRequest(4096), receiver.WithMaxInFlight(4096))
	_, pb, _ := goodRequest(t, "held")

	// A request announcing the whole budget and sending it slowly holds it.
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, "http://"+h.httpAddr+receiver.PathTraces, pr)
	require.NoError(t, err)
	req.ContentLength = 4096
	req.Header.Set("Content-Type", "application/x-protobuf")
	held := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			held <- 0
			return
		}
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	_, err = pw.Write(pb[:10])
	require.NoError(t, err)
	require.Eventually(t, func() bool { return h.rcv.Stats().InFlight == 4096 }, 10*time.Second, 5*time.Millisecond)

	_, small, _ := goodRequest(t, "small")
	resp, b := send(t, h, http.MethodPost, small, nil)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", b)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))

	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	td, _, _ := goodRequest(t, "grpc")
	_, err = ptraceotlp.NewGRPCClient(cc).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td))
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)
	var retry *errdetails.RetryInfo
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	require.NotNil(t, retry, "OTLP exporters retry RESOURCE_EXHAUSTED only with a RetryInfo")
	assert.Positive(t, retry.GetRetryDelay().AsDuration())
	assert.Equal(t, int64(2), h.rcv.Stats().Busy)

	// The held request ends (its bytes are not protobuf): the budget is
	// whole again and both are taken.
	_, err = pw.Write(bytes.Repeat([]byte{0xff}, 4086))
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	assert.Equal(t, http.StatusBadRequest, <-held)
	assert.Zero(t, h.rcv.Stats().InFlight)
	resp, b = send(t, h, http.MethodPost, small, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	_, err = ptraceotlp.NewGRPCClient(cc).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return h.rcv.Stats().InFlight == 0 }, 10*time.Second, 5*time.Millisecond,
		"a gRPC call gives its bytes back when it ends")
}

// TestNoIDsRejected: spans without a trace id or span id are a partial
// rejection over HTTP and gRPC; the others are written, and nothing goes
// to a hidden DIR/.jsonl.
func TestNoIDsRejected(t *testing.T) {
	h := start(t)
	mixed := func(name string) (ptrace.Traces, pcommon.TraceID) {
		td, _, _ := goodRequest(t, name)
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		tid := spans.At(0).TraceID()
		spans.AppendEmpty().SetSpanID(pcommon.SpanID{7, 7, 7, 7, 7, 7, 7, 7}) // no trace id
		spans.AppendEmpty().SetTraceID(tid)                                   // no span id
		return td, tid
	}
	td, tid := mixed("http")
	pb, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	require.NoError(t, err)
	resp, b := send(t, h, http.MethodPost, pb, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	er := ptraceotlp.NewExportResponse()
	require.NoError(t, er.UnmarshalProto(b))
	assert.Equal(t, int64(2), er.PartialSuccess().RejectedSpans())
	assert.Contains(t, er.PartialSuccess().ErrorMessage(), "without a trace id or span id")

	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	td2, tid2 := mixed("grpc")
	gresp, err := ptraceotlp.NewGRPCClient(cc).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td2))
	require.NoError(t, err)
	assert.Equal(t, int64(2), gresp.PartialSuccess().RejectedSpans())

	require.NoError(t, h.st.Flush())
	for _, id := range []pcommon.TraceID{tid, tid2} {
		assert.FileExists(t, filepath.Join(h.dir, id.String()+".jsonl"))
	}
	assert.NoFileExists(t, filepath.Join(h.dir, ".jsonl"))
	st := h.rcv.Stats()
	assert.Equal(t, int64(2), st.Spans)
	assert.Equal(t, int64(4), st.RejectedSpans)
}

// TestContentEncodingCase: Content-Encoding is matched without case.
func TestContentEncodingCase(t *testing.T) {
	h := start(t)
	for i, enc := range []string{"GZIP", "Gzip", " gzip "} {
		_, pb, _ := goodRequest(t, string(rune('a'+i)))
		resp, b := send(t, h, http.MethodPost, gz(t, pb), map[string]string{"Content-Encoding": enc})
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%q: %s", enc, b)
	}
	resp, b := send(t, h, http.MethodPost, []byte("x"), map[string]string{"Content-Encoding": "IDENTITY"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "identity in capitals is identity: %s", b)
}

// TestGRPCHoldsItsSize: a gRPC call holds the request limit only until
// its message is read, then the message's size while it is written (seen
// from the write hook), and nothing once it ends.
func TestGRPCHoldsItsSize(t *testing.T) {
	var (
		h    *harness
		seen atomic.Int64
	)
	h = start(t, receiver.WithMaxRequest(1<<20), receiver.WithOnWrite(func() { seen.Store(h.rcv.Stats().InFlight) }))
	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	td, pb, _ := goodRequest(t, "small")
	_, err = ptraceotlp.NewGRPCClient(cc).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td))
	require.NoError(t, err)
	assert.Equal(t, int64(len(pb)), seen.Load(), "held while written: the message, not the 1 MiB limit")
	require.Eventually(t, func() bool { return h.rcv.Stats().InFlight == 0 }, 10*time.Second, 5*time.Millisecond)
}
