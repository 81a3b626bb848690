package receiver_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/store"
	"github.com/agenttrace/agenttrace/viewer/receiver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// harness is a Receiver on free loopback ports writing into a folder.
type harness struct {
	dir      string
	st       *store.Store
	rcv      *receiver.Receiver
	httpAddr string
	grpcAddr string
}

func start(t *testing.T, opts ...receiver.Option) *harness {
	t.Helper()
	dir := t.TempDir()
	st, err := store.New(store.Options{Dir: dir})
	require.NoError(t, err)
	rcv := receiver.New(st, opts...)
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hdone, gdone := make(chan error, 1), make(chan error, 1)
	go func() { hdone <- rcv.ServeHTTP(hl) }()
	go func() { gdone <- rcv.ServeGRPC(gl) }()
	h := &harness{dir: dir, st: st, rcv: rcv, httpAddr: hl.Addr().String(), grpcAddr: gl.Addr().String()}
	t.Cleanup(func() {
		require.NoError(t, rcv.Shutdown(context.Background()))
		assert.ErrorIs(t, <-hdone, http.ErrServerClosed)
		assert.NoError(t, <-gdone)
		require.NoError(t, st.Close())
	})
	return h
}

// reference runs the simulated agent through the in-process bridge: the
// artifact every transport must reproduce.
func reference(t *testing.T, seed uint64) ([]converter.Record, *report.TokenReport) {
	t.Helper()
	dir := t.TempDir()
	p, err := bridge.New(bridge.WithDirectory(dir, converter.ByTrace))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSpanProcessor(p))...)
	agentsim.Run(context.Background(), tp, agentsim.Config{})
	require.NoError(t, tp.Shutdown(context.Background()))
	recs, meta := artifacttest.Read(t, filepath.Join(dir, agentsim.TraceID(seed).String()+".jsonl"))
	return recs, report.Tokens(recs, meta)
}

// sendRun runs the simulated agent exporting with exp.
func sendRun(t *testing.T, seed uint64, exp sdktrace.SpanExporter) {
	t.Helper()
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithBatcher(exp))...)
	agentsim.Run(context.Background(), tp, agentsim.Config{})
	require.NoError(t, tp.Shutdown(context.Background()))
}

func spanIDs(recs []converter.Record) []string {
	ids := make([]string, len(recs))
	for i := range recs {
		ids[i] = recs[i].Span.SpanID().String()
	}
	slices.Sort(ids)
	return ids
}

// TestGoSDKExporters sends a GenAI-shaped run with the Go SDK's own OTLP
// exporters over HTTP/protobuf (gzip and not) and gRPC: the artifact holds
// every span once, with the totals the in-process bridge records.
func TestGoSDKExporters(t *testing.T) {
	wantRecs, wantRep := reference(t, 42)
	tests := []struct {
		name string
		exp  func(h *harness) sdktrace.SpanExporter
	}{
		{"http/protobuf", func(h *harness) sdktrace.SpanExporter {
			e, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpoint(h.httpAddr), otlptracehttp.WithInsecure())
			require.NoError(t, err)
			return e
		}},
		{"http/protobuf+gzip", func(h *harness) sdktrace.SpanExporter {
			e, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpoint(h.httpAddr), otlptracehttp.WithInsecure(),
				otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
			require.NoError(t, err)
			return e
		}},
		{"grpc+gzip", func(h *harness) sdktrace.SpanExporter {
			e, err := otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(h.grpcAddr), otlptracegrpc.WithInsecure(),
				otlptracegrpc.WithCompressor("gzip"))
			require.NoError(t, err)
			return e
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := start(t)
			sendRun(t, 42, tt.exp(h))
			// Sent again: a redelivered batch writes nothing twice.
			sendRun(t, 42, tt.exp(h))
			require.NoError(t, h.st.Flush())
			recs, meta := artifacttest.Read(t, filepath.Join(h.dir, agentsim.TraceID(42).String()+".jsonl"))
			assert.Equal(t, spanIDs(wantRecs), spanIDs(recs), "every span once")
			got := report.Tokens(recs, meta)
			assert.Equal(t, wantRep.Tokens, got.Tokens)
			assert.Equal(t, wantRep.Records, got.Records)
			assert.Equal(t, wantRep.Errors, got.Errors)
			st := h.rcv.Stats()
			assert.Equal(t, int64(2*len(wantRecs)), st.Spans)
			assert.Zero(t, st.RejectedSpans+st.BadPayload+st.BadContentType+st.TooLarge+st.GRPCErrors)
		})
	}
}

// goodRequest is one span of a trace, as protobuf and JSON.
func goodRequest(t *testing.T, name string) (ptrace.Traces, []byte, []byte) {
	t.Helper()
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName(name)
	sp.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, name[0], byte(len(name))})
	sp.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, name[0], byte(len(name))})
	sp.SetStartTimestamp(1_700_000_000_000_000_000)
	sp.SetEndTimestamp(1_700_000_001_000_000_000)
	req := ptraceotlp.NewExportRequestFromTraces(td)
	pb, err := req.MarshalProto()
	require.NoError(t, err)
	js, err := req.MarshalJSON()
	require.NoError(t, err)
	return td, pb, js
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// TestHTTPRefusals: bad input gets the status OTLP/HTTP asks for and is
// counted; good requests on the same connection before and after it are
// all written.
func TestHTTPRefusals(t *testing.T) {
	h := start(t, receiver.WithMaxRequest(4096))
	_, pb, js := goodRequest(t, "good")
	tests := []struct {
		name, ct, enc string
		body          []byte
		code          int
		counter       func(receiver.Stats) int64
	}{
		{"garbage protobuf", "application/x-protobuf", "", []byte("\xff\xff\xff\xff not protobuf"), http.StatusBadRequest, func(s receiver.Stats) int64 { return s.BadPayload }},
		{"truncated protobuf", "application/x-protobuf", "", pb[:len(pb)-7], http.StatusBadRequest, func(s receiver.Stats) int64 { return s.BadPayload }},
		{"garbage json", "application/json", "", []byte(`{"resourceSpans": [`), http.StatusBadRequest, func(s receiver.Stats) int64 { return s.BadPayload }},
		{"bad gzip", "application/x-protobuf", "gzip", pb, http.StatusBadRequest, func(s receiver.Stats) int64 { return s.BadPayload }},
		{"wrong content type", "text/plain", "", pb, http.StatusUnsupportedMediaType, func(s receiver.Stats) int64 { return s.BadContentType }},
		{"no content type", "", "", pb, http.StatusUnsupportedMediaType, func(s receiver.Stats) int64 { return s.BadContentType }},
		{"unknown encoding", "application/json", "br", js, http.StatusUnsupportedMediaType, func(s receiver.Stats) int64 { return s.BadContentType }},
		{"oversized", "application/x-protobuf", "", bytes.Repeat([]byte{0}, 5000), http.StatusRequestEntityTooLarge, func(s receiver.Stats) int64 { return s.TooLarge }},
		{"gzip bomb", "application/x-protobuf", "gzip", gz(t, bytes.Repeat([]byte{0}, 1<<20)), http.StatusRequestEntityTooLarge, func(s receiver.Stats) int64 { return s.TooLarge }},
	}
	client := &http.Client{}
	post := func(ct, enc string, body []byte) *http.Response {
		req, err := http.NewRequest(http.MethodPost, "http://"+h.httpAddr+receiver.PathTraces, bytes.NewReader(body))
		require.NoError(t, err)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		if enc != "" {
			req.Header.Set("Content-Encoding", enc)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.counter(h.rcv.Stats())
			_, pbA, _ := goodRequest(t, strings.Repeat("a", i+1))
			require.Equal(t, http.StatusOK, post("application/x-protobuf", "", pbA).StatusCode)
			resp := post(tt.ct, tt.enc, tt.body)
			assert.Equal(t, tt.code, resp.StatusCode)
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.NotEmpty(t, b, "a google.rpc.Status says why")
			assert.Equal(t, before+1, tt.counter(h.rcv.Stats()))
			_, _, jsB := goodRequest(t, strings.Repeat("b", i+1))
			require.Equal(t, http.StatusOK, post("application/json", "", jsB).StatusCode)
		})
	}
	resp, err := client.Get("http://" + h.httpAddr + receiver.PathTraces)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, int64(1), h.rcv.Stats().BadMethod)

	require.NoError(t, h.st.Flush())
	ents, err := os.ReadDir(h.dir)
	require.NoError(t, err)
	assert.Len(t, ents, 2*len(tests), "every good request written, one trace each")
	assert.Equal(t, int64(2*len(tests)), h.rcv.Stats().Spans)
}

// TestGRPCRefusals: an oversized or undecodable message gets its gRPC
// code and is counted; the same connection's good calls are written.
func TestGRPCRefusals(t *testing.T) {
	h := start(t, receiver.WithMaxRequest(4096))
	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	client := ptraceotlp.NewGRPCClient(cc)
	ctx := context.Background()

	td, _, _ := goodRequest(t, "good")
	_, err = client.Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
	require.NoError(t, err)

	big := ptrace.NewTraces()
	sp := big.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName(strings.Repeat("x", 8000))
	_, err = client.Export(ctx, ptraceotlp.NewExportRequestFromTraces(big))
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)

	// Garbage as the message: a raw call with bytes that are not protobuf.
	garbage := rawMsg("\xff\xff\xff\xff")
	err = cc.Invoke(ctx, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", &garbage, new(rawMsg), grpc.ForceCodecV2(rawCodec{}))
	assert.NotEqual(t, codes.OK, status.Code(err), "%v", err)
	assert.Contains(t, []codes.Code{codes.Internal, codes.InvalidArgument}, status.Code(err))

	td2, _, _ := goodRequest(t, "good-after")
	resp, err := client.Export(ctx, ptraceotlp.NewExportRequestFromTraces(td2))
	require.NoError(t, err)
	assert.Zero(t, resp.PartialSuccess().RejectedSpans())

	st := h.rcv.Stats()
	assert.Equal(t, int64(2), st.GRPCErrors)
	assert.Equal(t, int64(2), st.Spans)
	assert.Equal(t, int64(2), st.GRPCRequests)
}

// TestLogsNotSupported: logs get a partial success rejecting every record,
// over HTTP and gRPC, with a message saying why.
func TestLogsNotSupported(t *testing.T) {
	h := start(t)
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("hello")
	req := plogotlp.NewExportRequestFromLogs(ld)
	js, err := req.MarshalJSON()
	require.NoError(t, err)
	resp, err := http.Post("http://"+h.httpAddr+receiver.PathLogs, "application/json", bytes.NewReader(js))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	lr := plogotlp.NewExportResponse()
	require.NoError(t, lr.UnmarshalJSON(b))
	assert.Equal(t, int64(1), lr.PartialSuccess().RejectedLogRecords())
	assert.Contains(t, lr.PartialSuccess().ErrorMessage(), "not yet supported")

	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	gr, err := plogotlp.NewGRPCClient(cc).Export(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, int64(1), gr.PartialSuccess().RejectedLogRecords())
	assert.Equal(t, int64(2), h.rcv.Stats().RejectedLogs)
}

// rawMsg and rawCodec send bytes as they are, for a message no
// protobuf encoder would write.
type rawMsg []byte

type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*rawMsg))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*rawMsg) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }
