package otlpguard

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/converter"

	// pdata registers its "proto" codec (pooled buffers, its own
	// UnmarshalProto) in its init; the guard wraps that one.
	_ "go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// Codec is a gRPC codec named "proto" that guards OTLP export requests:
// gRPC decodes a request before any handler runs, so the check must sit in
// the codec. It delegates everything to the codec registered as "proto"
// (pdata's) and, for trace and log export requests, runs
// converter.GuardOTLP on the bytes first.
//
// gRPC turns any codec error into Internal, while OTLP says a bad request
// is InvalidArgument (and not to be retried): so a refused request is left
// undecoded (empty) and remembered, and Codec.Interceptor answers it with
// InvalidArgument before the service sees it. Use both: ServerOptions.
type Codec struct {
	delegate encoding.CodecV2
	refused  sync.Map // request pointer -> error, until the interceptor takes it
}

// NewCodec returns the guarding codec around the registered "proto" codec.
func NewCodec() *Codec {
	return &Codec{delegate: encoding.GetCodecV2("proto")}
}

// ServerOptions returns the options that install a guarding codec and its
// interceptor on a gRPC server.
func ServerOptions() []grpc.ServerOption {
	c := NewCodec()
	return []grpc.ServerOption{grpc.ForceServerCodecV2(c), grpc.ChainUnaryInterceptor(c.Interceptor)}
}

// Marshal delegates.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) { return c.delegate.Marshal(v) }

// Unmarshal checks an OTLP trace or log export request, then delegates.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	if f, ok := requestFormat(v); ok {
		buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
		err := converter.GuardOTLP(buf.ReadOnlyData(), f, converter.GuardOptions{})
		buf.Free()
		if err != nil {
			c.refused.Store(v, err)
			return nil
		}
	}
	return c.delegate.Unmarshal(data, v)
}

// Interceptor answers a request the codec refused with InvalidArgument.
func (c *Codec) Interceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err, ok := c.refused.LoadAndDelete(req); ok {
		return nil, status.Error(codes.InvalidArgument, fmt.Sprintf("refused OTLP request: %v", err))
	}
	return h(ctx, req)
}

// Name is "proto": the codec replaces the default one for every message.
func (c *Codec) Name() string { return "proto" }

// pdataInternal is the package of the request types pdata's gRPC services
// decode into; they are not exported, so they are told by name.
const pdataInternal = "go.opentelemetry.io/collector/pdata/internal"

// requestFormat tells which OTLP request v is from its type.
func requestFormat(v any) (converter.Format, bool) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != pdataInternal {
		return 0, false
	}
	switch t.Elem().Name() {
	case "ExportTraceServiceRequest":
		return converter.FormatOTLPProto, true
	case "ExportLogsServiceRequest":
		return converter.FormatOTLPLogsProto, true
	}
	return 0, false
}
