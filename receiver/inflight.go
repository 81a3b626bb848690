package receiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/known/durationpb"
)

// DefaultMaxInFlight is how many request bytes, decompressed, the
// receiver holds at once by default: four requests of the largest size.
const DefaultMaxInFlight = 4 * DefaultMaxRequest

// retryAfter is what a client refused for memory is told to wait, as the
// collector's memory limiter tells it to retry later.
const retryAfter = time.Second

// ErrBusy is what a request is refused with when taking it would hold
// more request bytes than the in-flight limit ([WithMaxInFlight]): HTTP
// 429 with Retry-After, gRPC RESOURCE_EXHAUSTED with a RetryInfo, so
// OTLP exporters retry it later.
var ErrBusy = errors.New("receiver: too many request bytes in flight")

// WithMaxInFlight sets how many request bytes, decompressed, the receiver
// holds at once over HTTP and gRPC together (default
// [DefaultMaxInFlight]); requests past it are refused with [ErrBusy]
// instead of buffered. n <= 0 keeps the default; a limit below the
// largest request is raised to it, so one request of that size passes.
func WithMaxInFlight(n int64) Option {
	return func(r *Receiver) {
		if n > 0 {
			r.inflight.limit = n
		}
	}
}

// budget counts request bytes held in memory against a limit. It never
// waits: a request that does not fit is refused at once, so a flood of
// large requests costs their refusals, not their bytes.
type budget struct {
	limit int64
	used  atomic.Int64
}

// take reserves n bytes, reporting whether they fit.
func (b *budget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// give returns n bytes taken.
func (b *budget) give(n int64) { b.used.Add(-n) }

// metered reads r, taking from b each byte it returns beyond a prepaid
// credit; took is how much it holds for the caller to give back.
type metered struct {
	r            io.Reader
	b            *budget
	credit, took int64
}

func (m *metered) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if over := int64(n) - m.credit; over > 0 {
		m.credit = 0
		if !m.b.take(over) {
			return 0, ErrBusy
		}
		m.took += over
	} else {
		m.credit -= int64(n)
	}
	return n, err
}

// writeBusy answers an HTTP request refused with ErrBusy. The rest of
// its body (up to the request limit, through a small buffer: no memory
// held) is read and dropped first: a server that closes a connection
// with unread bytes resets it, and the client would see a broken pipe
// instead of the 429 that tells it when to retry.
func (r *Receiver) writeBusy(w http.ResponseWriter, req *http.Request, ct string) {
	_, _ = io.Copy(io.Discard, io.LimitReader(req.Body, r.max+1))
	r.c.busy.Add(1)
	r.log.Warn("refused OTLP request: in-flight limit", "limit", r.inflight.limit)
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	writeStatus(w, ct, http.StatusTooManyRequests, codes.ResourceExhausted,
		fmt.Sprintf("%v (limit %d bytes); retry later", ErrBusy, r.inflight.limit))
}

// busyStatus is the gRPC answer to a call refused with ErrBusy: the
// RetryInfo is what makes OTLP exporters retry RESOURCE_EXHAUSTED.
func (r *Receiver) busyStatus() error {
	st := status.New(codes.ResourceExhausted, fmt.Sprintf("%v (limit %d bytes); retry later", ErrBusy, r.inflight.limit))
	if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(retryAfter)}); err == nil {
		st = d
	}
	return st.Err()
}

// tapGRPC reserves a gRPC call's bytes before gRPC reads its message:
// grpc-go reads a whole message into memory before any handler runs and
// says nothing of its size beforehand, so each call holds the largest
// message it may carry (the request limit) until its message is read
// (then [Receiver.holdOnly] keeps what it is) and gives it back when the
// call ends. A call that does not fit is refused before its message is
// read.
func (r *Receiver) tapGRPC(ctx context.Context, _ *tap.Info) (context.Context, error) {
	if !r.inflight.take(r.max) {
		r.c.busy.Add(1)
		r.log.Warn("refused OTLP/gRPC call: in-flight limit", "limit", r.inflight.limit)
		return ctx, r.busyStatus()
	}
	h := &grpcHold{}
	h.n.Store(r.max)
	// The stream's context ends when the call does, however it ends.
	context.AfterFunc(ctx, func() { r.inflight.give(h.n.Swap(0)) })
	return context.WithValue(ctx, grpcHoldKey{}, h), nil
}

// grpcHold is what a gRPC call holds of the in-flight budget.
type grpcHold struct{ n atomic.Int64 }

type grpcHoldKey struct{}

// holdOnly gives back what the call of ctx holds beyond size, the size of
// its message now that it is read, so small calls do not keep a large
// call's share while they are written.
func (r *Receiver) holdOnly(ctx context.Context, size int) {
	h, ok := ctx.Value(grpcHoldKey{}).(*grpcHold)
	if !ok {
		return
	}
	for {
		n := h.n.Load()
		if n <= int64(size) {
			return
		}
		if h.n.CompareAndSwap(n, int64(size)) {
			r.inflight.give(n - int64(size))
			return
		}
	}
}
