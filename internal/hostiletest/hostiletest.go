// Package hostiletest holds what the two hostile-request suites (issue 22)
// share: internal/hostile's against `agenttrace serve --otlp` and
// cmd/otelcol-agenttrace's against the collector distribution. Both send
// the same traces, bodies and raw gRPC messages and read the same /proc
// figures, so those are written once here. Only tests import it.
package hostiletest

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
)

// ExportMethod is the OTLP trace export gRPC method, called with RawCodec
// to send bytes no client library would build.
const ExportMethod = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"

// ids makes every trace and span id of the process unique, so what a
// suite acknowledged can be found in the output by id.
var ids atomic.Uint64

// Traces is one trace of n spans, a root and its children, each with an
// attribute of pad bytes; fresh ids every call. The resource's
// service.name is service and the trace id's first byte is mark, so a
// suite's traces are told apart from others in a shared folder.
func Traces(service string, mark byte, n, pad int) (ptrace.Traces, pcommon.TraceID, pcommon.SpanID) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", service)
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	var tid pcommon.TraceID
	binary.BigEndian.PutUint64(tid[8:], ids.Add(1))
	tid[0] = mark
	start := time.Now()
	var root pcommon.SpanID
	for i := range n {
		sp := spans.AppendEmpty()
		sp.SetTraceID(tid)
		var sid pcommon.SpanID
		binary.BigEndian.PutUint64(sid[:], ids.Add(1))
		sp.SetSpanID(sid)
		if i == 0 {
			root = sid
			sp.SetName("agent run")
		} else {
			sp.SetParentSpanID(root)
			sp.SetName("step")
		}
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Millisecond)))
		if pad > 0 {
			sp.Attributes().PutStr("payload", strings.Repeat("p", pad))
		}
	}
	return td, tid, root
}

// Proto is td as an ExportTraceServiceRequest in protobuf.
func Proto(t testing.TB, td ptrace.Traces) []byte {
	t.Helper()
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	require.NoError(t, err)
	return b
}

// Post sends body (size bytes, -1 for unknown) to http://addr/v1/traces as
// protobuf with the given headers; a "Host" entry sets the request's Host,
// as a rebinding page would. It returns the transport's error rather than
// failing t, since a refused connection can be the expected answer.
func Post(t testing.TB, addr string, body io.Reader, size int64, hdr map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/traces", body)
	require.NoError(t, err)
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// PeakRSS is process pid's peak resident set (VmHWM in /proc), in bytes.
func PeakRSS(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// Zeros is a reader of N zero bytes, none held: a gzip bomb's or an
// oversized body's source without the memory.
type Zeros struct{ N int64 }

// Read fills p with zeros until N are read.
func (z *Zeros) Read(p []byte) (int, error) {
	if z.N <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.N)
	clear(p[:k])
	z.N -= k
	return int(k), nil
}

// RawCodec sends and receives gRPC messages as the bytes they are
// (*[]byte), named "proto" so the server decodes them as OTLP.
type RawCodec struct{}

// Marshal sends *v as is.
func (RawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

// Unmarshal stores the message's bytes in *v.
func (RawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

// Name is "proto", the content subtype OTLP servers accept.
func (RawCodec) Name() string { return "proto" }

// Dial is a plaintext gRPC client of addr that may send messages up to
// 64 MiB (past any server limit under test), closed when t ends.
func Dial(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	require.NoError(t, err)
	t.Cleanup(func() { cc.Close() })
	return cc
}
