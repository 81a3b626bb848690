package receiver_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/internal/otlpdeep"
	"github.com/agenttrace/agenttrace/receiver"
)

// TestDeepRequests is issue 22 item 1 against serve --otlp's receiver: a
// request whose one value nests 1.3 million levels (12.5 MB, under the
// limit) made pdata overflow its stack and the process exit. Over HTTP
// (protobuf and JSON, traces and logs) it is answered 400, over gRPC
// InvalidArgument; the receiver keeps serving and writes nothing of it.
func TestDeepRequests(t *testing.T) {
	h := start(t, receiver.WithMaxRequest(16<<20))
	deep := otlpdeep.AnyValueProto(1_300_000, false)
	deepJSON := otlpdeep.AnyValueJSON(300_000, false)
	cases := []struct {
		name, path, ct string
		body           []byte
	}{
		{"traces proto", "/v1/traces", "application/x-protobuf", otlpdeep.TracesProto(deep)},
		{"logs proto", "/v1/logs", "application/x-protobuf", otlpdeep.LogsProto(deep)},
		{"traces json", "/v1/traces", "application/json", otlpdeep.TracesJSON(deepJSON)},
		{"logs json", "/v1/logs", "application/json", otlpdeep.LogsJSON(deepJSON)},
		{"traces json, trailing garbage", "/v1/traces", "application/json", append(otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(2, false)), " x"...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Less(t, len(c.body), 16<<20)
			resp, err := http.Post("http://"+h.httpAddr+c.path, c.ct, bytes.NewReader(c.body))
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", b)
		})
	}

	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	ctx := context.Background()
	for _, m := range []struct{ method, name string }{
		{"/opentelemetry.proto.collector.trace.v1.TraceService/Export", "traces"},
		{"/opentelemetry.proto.collector.logs.v1.LogsService/Export", "logs"},
	} {
		req := rawMsg(otlpdeep.TracesProto(deep))
		if m.name == "logs" {
			req = rawMsg(otlpdeep.LogsProto(deep))
		}
		err = cc.Invoke(ctx, m.method, &req, new(rawMsg), grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallSendMsgSize(32<<20))
		assert.Equal(t, codes.InvalidArgument, status.Code(err), "%s: %v", m.name, err)
		assert.Contains(t, err.Error(), "OTLP value nested too deep")
	}

	// Still serving, over both transports.
	td, pb, _ := goodRequest(t, "after-deep")
	resp, err := http.Post("http://"+h.httpAddr+"/v1/traces", "application/x-protobuf", bytes.NewReader(pb))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = ptraceotlp.NewGRPCClient(cc).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
	require.NoError(t, err)
	assert.Equal(t, int64(2*td.SpanCount()), h.rcv.Stats().Spans, "only the good requests were written")
}
