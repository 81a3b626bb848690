package otlpguard_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/internal/otlpdeep"
	"github.com/agenttrace/agenttrace/internal/otlpguard"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The request of issue 22: one attribute nested 1.3 million levels.
var deep = otlpdeep.AnyValueProto(1_300_000, false)

type traces struct {
	ptraceotlp.UnimplementedGRPCServer
	n atomic.Int64
}

func (s *traces) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.n.Add(int64(req.Traces().SpanCount()))
	return ptraceotlp.NewExportResponse(), nil
}

type logs struct {
	plogotlp.UnimplementedGRPCServer
	n atomic.Int64
}

func (s *logs) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	s.n.Add(int64(req.Logs().LogRecordCount()))
	return plogotlp.NewExportResponse(), nil
}

type metrics struct {
	pmetricotlp.UnimplementedGRPCServer
}

func (*metrics) Export(context.Context, pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	return pmetricotlp.NewExportResponse(), nil
}

// raw is a client codec that sends bytes as they are: the deep request
// cannot be built with pdata, whose marshaler recurses too.
type raw struct{}

func (raw) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}
func (raw) Unmarshal(mem.BufferSlice, any) error { return nil }
func (raw) Name() string                         { return "proto" }

// TestCodec: a real gRPC server with the guard codec refuses the deep
// trace and log requests with InvalidArgument, stays up and serves the
// next good request.
func TestCodec(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gs := grpc.NewServer(append(otlpguard.ServerOptions(), grpc.MaxRecvMsgSize(32<<20))...)
	tr, lg := &traces{}, &logs{}
	ptraceotlp.RegisterGRPCServer(gs, tr)
	pmetricotlp.RegisterGRPCServer(gs, &metrics{})
	plogotlp.RegisterGRPCServer(gs, lg)
	done := make(chan error, 1)
	go func() { done <- gs.Serve(ln) }()
	t.Cleanup(func() { gs.Stop(); <-done })

	cc, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(raw{}), grpc.MaxCallSendMsgSize(32<<20)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = cc.Close() })
	call := func(method string, req []byte) error {
		return cc.Invoke(context.Background(), method, req, new([]byte))
	}
	const tm, lm = "/opentelemetry.proto.collector.trace.v1.TraceService/Export", "/opentelemetry.proto.collector.logs.v1.LogsService/Export"
	cases := []struct {
		name, method string
		req          []byte
		code         codes.Code
	}{
		{"deep traces", tm, otlpdeep.TracesProto(deep), codes.InvalidArgument},
		{"deep logs", lm, otlpdeep.LogsProto(deep), codes.InvalidArgument},
		{"deep kvlists", tm, otlpdeep.TracesProto(otlpdeep.AnyValueProto(500_000, true)), codes.InvalidArgument},
		{"deep metrics", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", otlpdeep.MetricsProto(deep), codes.InvalidArgument},
		{"good traces", tm, otlpdeep.TracesProto(otlpdeep.AnyValueProto(3, false)), codes.OK},
		{"good logs", lm, otlpdeep.LogsProto(otlpdeep.AnyValueProto(3, true)), codes.OK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := call(c.method, c.req)
			assert.Equal(t, c.code, status.Code(err), "%v", err)
			if c.code != codes.OK {
				assert.Contains(t, err.Error(), "OTLP value nested too deep")
			}
		})
	}
	assert.Equal(t, int64(1), tr.n.Load(), "only the good trace request reached the service")
	assert.Equal(t, int64(1), lg.n.Load())
}

// TestMiddleware: the HTTP middleware answers 400 with a Status for deep
// protobuf and JSON bodies, on known and unknown paths, and hands a good
// body to the handler unchanged.
func TestMiddleware(t *testing.T) {
	var got atomic.Int64
	var last []byte
	h := otlpguard.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		last = b
		got.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	good := otlpdeep.TracesProto(otlpdeep.AnyValueProto(3, false))
	cases := []struct {
		name, path, ct string
		body           []byte
		code           int
	}{
		{"deep traces proto", "/v1/traces", "application/x-protobuf", otlpdeep.TracesProto(deep), 400},
		{"deep logs proto", "/v1/logs", "application/x-protobuf", otlpdeep.LogsProto(deep), 400},
		{"deep logs on a custom path", "/custom", "application/x-protobuf", otlpdeep.LogsProto(deep), 400},
		{"deep metrics proto", "/v1/metrics", "application/x-protobuf", otlpdeep.MetricsProto(deep), 400},
		{"deep metrics on a custom path", "/custom", "application/x-protobuf", otlpdeep.MetricsProto(deep), 400},
		{"deep metrics json", "/v1/metrics", "application/json", []byte(`{"resourceMetrics":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`), 400},
		{"deep traces json", "/v1/traces", "application/json", otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(100_000, false)), 400},
		{"deep logs json, charset", "/v1/logs", "application/json; charset=utf-8", otlpdeep.LogsJSON(otlpdeep.AnyValueJSON(100_000, true)), 400},
		{"trailing garbage", "/v1/traces", "application/json", []byte(`{"resourceSpans":[]} x`), 400},
		{"good", "/v1/traces", "application/x-protobuf", good, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := got.Load()
			resp, err := http.Post(srv.URL+c.path, c.ct, bytes.NewReader(c.body))
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, c.code, resp.StatusCode, "%s", body)
			if c.code == 200 {
				assert.Equal(t, before+1, got.Load())
				assert.Equal(t, c.body, last)
			} else {
				assert.Equal(t, before, got.Load(), "a refused body never reaches the handler")
				assert.Contains(t, string(body), "refused OTLP request")
			}
		})
	}
}
