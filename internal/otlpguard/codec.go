package otlpguard

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

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

	// refused holds the requests refused and not yet answered. It is a
	// bounded ring, not a map: a request refused by the codec and then
	// stopped by an earlier interceptor (authentication) never reaches
	// Interceptor, and must not stay here for good. An entry overwritten
	// before its request is answered (more than refusedSlots refused at
	// once) lets that request through as the empty request it was left.
	mu      sync.Mutex
	refused [refusedSlots]refusal
	next    int
	live    atomic.Int32 // entries not yet taken: 0 is the fast path
}

// refusedSlots bounds the refusals remembered at once.
const refusedSlots = 256

type refusal struct {
	req any // the request pointer the codec left empty
	err error
}

// remember records that req was refused with err.
func (c *Codec) remember(req any, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refused[c.next].req == nil {
		c.live.Add(1)
	}
	c.refused[c.next] = refusal{req: req, err: err}
	c.next = (c.next + 1) % refusedSlots
}

// take returns and forgets the refusal of req, nil if it has none.
func (c *Codec) take(req any) error {
	if c.live.Load() == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.refused {
		if r := &c.refused[i]; r.req == req {
			err := r.err
			*r = refusal{}
			c.live.Add(-1)
			return err
		}
	}
	return nil
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
	if check := requestCheck(v); check != nil {
		buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
		err := check(buf.ReadOnlyData())
		buf.Free()
		if err != nil {
			c.remember(v, err)
			return nil
		}
	}
	return c.delegate.Unmarshal(data, v)
}

// Interceptor answers a request the codec refused with InvalidArgument.
func (c *Codec) Interceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := c.take(req); err != nil {
		return nil, status.Error(codes.InvalidArgument, fmt.Sprintf("refused OTLP request: %v", err))
	}
	return h(ctx, req)
}

// Name is "proto": the codec replaces the default one for every message.
func (c *Codec) Name() string { return "proto" }

// pdataInternal is the package of the request types pdata's gRPC services
// decode into; they are not exported, so they are told by name.
const pdataInternal = "go.opentelemetry.io/collector/pdata/internal"

// requestCheck returns the guard for the OTLP request v is, told from
// its type; nil for any other message.
func requestCheck(v any) func([]byte) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != pdataInternal {
		return nil
	}
	switch t.Elem().Name() {
	case "ExportTraceServiceRequest":
		return func(b []byte) error {
			return converter.GuardOTLP(b, converter.FormatOTLPProto, converter.GuardOptions{})
		}
	case "ExportLogsServiceRequest":
		return func(b []byte) error {
			return converter.GuardOTLP(b, converter.FormatOTLPLogsProto, converter.GuardOptions{})
		}
	case "ExportMetricsServiceRequest":
		return converter.GuardOTLPMetricsProto
	}
	return nil
}
