package receiver

import (
	"context"
	"net"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// The OTLP gRPC services are registered here rather than through
// ptraceotlp.RegisterGRPCServer: pdata's generated handler decodes the
// message through gRPC's codec, which turns any decoding error into
// INTERNAL, where OTLP says INVALID_ARGUMENT, and decodes before any code
// of ours could look at the bytes. These handlers take the message's
// bytes and decode them with decodeTraces and decodeLogs, the functions
// OTLP/HTTP uses, so both transports refuse the same inputs the same way.
const (
	traceService = "opentelemetry.proto.collector.trace.v1.TraceService"
	logsService  = "opentelemetry.proto.collector.logs.v1.LogsService"
)

// rawMessage is a gRPC message as protobuf bytes. It has the methods
// pdata's gRPC codec (registered as "proto") calls on pdata's own
// messages, so the codec hands it the received bytes and sends its bytes
// as they are.
type rawMessage struct {
	decode func([]byte) // called with the received bytes, valid during the call only
	b      []byte       // the bytes to send
}

// UnmarshalProto hands b to decode: the codec frees b when it returns.
func (m *rawMessage) UnmarshalProto(b []byte) error {
	m.decode(b)
	return nil
}

// SizeProto is the size of the bytes to send.
func (m *rawMessage) SizeProto() int { return len(m.b) }

// MarshalProto copies the bytes to send into b.
func (m *rawMessage) MarshalProto(b []byte) int { return copy(b, m.b) }

// anyHandler lets the service descriptions below take any receiver type.
type anyHandler any

var grpcServices = []grpc.ServiceDesc{
	{
		ServiceName: traceService,
		HandlerType: (*anyHandler)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Export", Handler: exportTraces}},
		Metadata:    "opentelemetry/proto/collector/trace/v1/trace_service.proto",
	},
	{
		ServiceName: logsService,
		HandlerType: (*anyHandler)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Export", Handler: exportLogs}},
		Metadata:    "opentelemetry/proto/collector/logs/v1/logs_service.proto",
	},
}

// exportTraces answers TraceService/Export.
func exportTraces(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	r := srv.(*Receiver)
	var (
		req  ptraceotlp.ExportRequest
		derr error
	)
	if err := dec(&rawMessage{decode: func(b []byte) { r.holdOnly(ctx, len(b)); req, derr = decodeTraces(b, ctProto) }}); err != nil {
		return nil, err
	}
	if derr != nil {
		r.log.Warn("refused OTLP/gRPC call: payload", "err", derr)
		return nil, status.Error(codes.InvalidArgument, strings.ToValidUTF8("cannot decode ExportTraceServiceRequest: "+derr.Error(), "\uFFFD"))
	}
	rej, msg, err := r.consume(req.Traces())
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	r.c.grpcReq.Add(1)
	b, err := tracesResponse(rej, msg).MarshalProto()
	if err != nil {
		return nil, status.Error(codes.Internal, "encoding the response: "+err.Error())
	}
	return &rawMessage{b: b}, nil
}

// exportLogs answers LogsService/Export.
func exportLogs(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	r := srv.(*Receiver)
	var (
		req  plogotlp.ExportRequest
		derr error
	)
	if err := dec(&rawMessage{decode: func(b []byte) { r.holdOnly(ctx, len(b)); req, derr = decodeLogs(b, ctProto) }}); err != nil {
		return nil, err
	}
	if derr != nil {
		r.log.Warn("refused OTLP/gRPC call: payload", "err", derr)
		return nil, status.Error(codes.InvalidArgument, strings.ToValidUTF8("cannot decode ExportLogsServiceRequest: "+derr.Error(), "\uFFFD"))
	}
	rej, msg, err := r.consumeLogs(req.Logs())
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	r.c.grpcReq.Add(1)
	b, err := logsResponse(rej, msg).MarshalProto()
	if err != nil {
		return nil, status.Error(codes.Internal, "encoding the response: "+err.Error())
	}
	return &rawMessage{b: b}, nil
}

// errorCounter counts gRPC calls that end in an error, those refused
// before a handler runs (an oversized message) included.
type errorCounter struct{ n *atomic.Int64 }

func (e errorCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (e errorCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	if end, ok := s.(*stats.End); ok && end.Error != nil {
		e.n.Add(1)
	}
}
func (e errorCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (e errorCounter) HandleConn(context.Context, stats.ConnStats) {}

// ServeGRPC serves OTLP/gRPC on ln until Shutdown, then returns nil.
func (r *Receiver) ServeGRPC(ln net.Listener) error {
	gs := grpc.NewServer(
		grpc.MaxRecvMsgSize(int(r.max)),
		grpc.InTapHandle(r.tapGRPC),
		grpc.StatsHandler(errorCounter{&r.c.grpcErr}),
	)
	for i := range grpcServices {
		gs.RegisterService(&grpcServices[i], r)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		ln.Close()
		return nil
	}
	r.grpcs = append(r.grpcs, gs)
	r.mu.Unlock()
	return gs.Serve(ln)
}
