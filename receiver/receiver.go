// Package receiver takes OTLP traces over HTTP (protobuf and JSON) and
// gRPC and writes them through the artifact store (package store), so an
// agent in any language, exporting with its OpenTelemetry SDK's standard
// OTLP exporter, records into a folder of artifacts that `agenttrace
// serve` shows live. It is an adapter over the store, as the SDK span
// processor (bridge) and the collector exporter are: it opens no artifact
// itself.
//
// The protocol is pdata's own (ptraceotlp, plogotlp with
// google.golang.org/grpc): requests are decoded and responses encoded by
// the collector's bindings, not by code written here. What this package
// decides is the HTTP envelope the OTLP specification asks for: 200 with
// an ExportTraceServiceResponse in the request's encoding (its partial
// success saying how many spans the store could not write), 400 with a
// google.rpc.Status for a payload that does not decode, 415 for a content
// type other than application/x-protobuf or application/json, 413 past the
// size limit (after gzip is undone, so a small compressed bomb is refused
// too), 405 for a method other than POST, 429 with Retry-After when the
// request would hold more bytes than the in-flight limit
// ([WithMaxInFlight]), 403 for a Host that is not a loopback name (DNS
// rebinding) or an Origin of another site ([WithAllowedHosts],
// [WithCORS]). Over gRPC the codes are gRPC's: InvalidArgument,
// ResourceExhausted past the size limit and (with a RetryInfo) past the
// in-flight limit, Unavailable after Shutdown. A span without a trace id
// or span id is rejected in the partial success; the others are written.
//
// Logs are taken on /v1/logs and over gRPC with the same envelope and
// codes, and written with store.Store.WriteLogs: each log record goes into
// its trace's artifact after its spans (held until that artifact exists,
// a redelivered record skipped), as the collector exporter writes them.
// The official instrumentations (instrumentation-openai and its
// siblings) put the prompts and completions in log records, not in span
// attributes, so without them a run would show model calls with no
// content. Records the store cannot write are reported as a partial
// success (rejected_log_records).
//
// Every refused request and rejected span or log record is counted
// ([Receiver.Stats]).
package receiver

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	_ "google.golang.org/grpc/encoding/gzip" // gzip-compressed gRPC requests

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/store"
)

// Standard OTLP paths and ports.
const (
	PathTraces = "/v1/traces"
	PathLogs   = "/v1/logs"
	// DefaultHTTPAddr and DefaultGRPCAddr are the OTLP ports on loopback.
	DefaultHTTPAddr = "127.0.0.1:4318"
	DefaultGRPCAddr = "127.0.0.1:4317"
	// DefaultMaxRequest is the largest request, decompressed, in bytes:
	// well above the SDK exporters' batches (512 spans by default).
	DefaultMaxRequest = 16 << 20
)

// Content types OTLP/HTTP defines.
const (
	ctProto = "application/x-protobuf"
	ctJSON  = "application/json"
)

// Stats count what the Receiver did. Refused requests are not counted as
// received spans.
type Stats struct {
	// Requests answered with success (partial or whole), per protocol.
	HTTPRequests, GRPCRequests int64
	// Spans written (or already in their artifact); RejectedSpans the
	// store could not write (reported as partial success).
	Spans, RejectedSpans int64
	// Logs counts log records written (or already in their artifact, or
	// held for it); RejectedLogs those the store could not write.
	Logs, RejectedLogs int64
	// BadContentType, BadPayload and TooLarge count refused HTTP
	// requests; BadMethod those with a method other than POST.
	BadContentType, BadPayload, TooLarge, BadMethod int64
	// GRPCErrors counts gRPC calls that ended with an error status
	// (undecodable or oversized messages included; not those refused for
	// the in-flight limit, which Busy counts).
	GRPCErrors int64
	// Forbidden counts HTTP requests refused for their Host or Origin
	// (403); Busy requests and calls refused for the in-flight limit
	// (HTTP 429, gRPC RESOURCE_EXHAUSTED).
	Forbidden, Busy int64
	// InFlight is how many request bytes the receiver holds now against
	// its in-flight limit (a gRPC call counts as the request limit).
	InFlight int64
}

type counters struct {
	httpReq, grpcReq, spans, rejSpans, logs, rejLogs atomic.Int64
	badType, badPayload, tooLarge, badMethod         atomic.Int64
	grpcErr, forbidden, busy                         atomic.Int64
}

// Receiver receives OTLP and writes it to a Store. Create one with [New];
// it is safe for concurrent use.
type Receiver struct {
	st      *store.Store
	max     int64
	log     *slog.Logger
	onWrite func()
	c       counters

	hosts    []string // Host names answered besides loopback ones
	cors     []string // origins whose pages may export from a browser
	inflight budget   // request bytes held at once

	mu     sync.Mutex
	closed bool
	https  []*http.Server
	grpcs  []*grpc.Server
}

// An Option configures a Receiver.
type Option func(*Receiver)

// WithMaxRequest sets the largest request, decompressed, in bytes
// (default [DefaultMaxRequest]); n <= 0 keeps the default.
func WithMaxRequest(n int64) Option {
	return func(r *Receiver) {
		if n > 0 {
			r.max = n
		}
	}
}

// WithLogger sets where refused requests are reported (default: nowhere).
func WithLogger(l *slog.Logger) Option { return func(r *Receiver) { r.log = l } }

// WithOnWrite sets a function called after each batch is written, so a
// caller can wake whatever watches the folder.
func WithOnWrite(f func()) Option { return func(r *Receiver) { r.onWrite = f } }

// New returns a Receiver writing to st. The caller closes st after
// [Receiver.Shutdown].
func New(st *store.Store, opts ...Option) *Receiver {
	r := &Receiver{st: st, max: DefaultMaxRequest, inflight: budget{limit: DefaultMaxInFlight}}
	for _, o := range opts {
		o(r)
	}
	// One request of the largest size must always be able to pass.
	r.inflight.limit = max(r.inflight.limit, r.max)
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

// Stats returns the counts so far.
func (r *Receiver) Stats() Stats {
	c := &r.c
	return Stats{
		HTTPRequests: c.httpReq.Load(), GRPCRequests: c.grpcReq.Load(),
		Spans: c.spans.Load(), RejectedSpans: c.rejSpans.Load(), Logs: c.logs.Load(), RejectedLogs: c.rejLogs.Load(),
		BadContentType: c.badType.Load(), BadPayload: c.badPayload.Load(),
		TooLarge: c.tooLarge.Load(), BadMethod: c.badMethod.Load(), GRPCErrors: c.grpcErr.Load(),
		Forbidden: c.forbidden.Load(), Busy: c.busy.Load(), InFlight: r.inflight.used.Load(),
	}
}

// errClosed is what a request gets after Shutdown.
var errClosed = errors.New("receiver: shutting down")

// consume writes td through the store; it returns how many spans were
// rejected and why (a partial success), or an error when none could be
// taken at all. A span without a trace id or span id is rejected: no
// artifact can be named after it, nor can it be told from a redelivery.
func (r *Receiver) consume(td ptrace.Traces) (rejected int64, msg string, err error) {
	noID := dropNoIDs(td)
	rejected, msg, err = r.write(td)
	if err != nil || noID == 0 {
		return rejected, msg, err
	}
	r.c.rejSpans.Add(noID)
	r.log.Warn("spans not written: no trace id or span id", "rejected", noID)
	why := fmt.Sprintf("%d spans without a trace id or span id were not written", noID)
	if msg != "" {
		why += "; " + msg
	}
	return rejected + noID, why, nil
}

// dropNoIDs removes from td the spans whose trace id or span id is
// absent (all zero), returning how many.
func dropNoIDs(td ptrace.Traces) (n int64) {
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			sss.At(j).Spans().RemoveIf(func(sp ptrace.Span) bool {
				bad := sp.TraceID().IsEmpty() || sp.SpanID().IsEmpty()
				if bad {
					n++
				}
				return bad
			})
		}
	}
	return n
}

// write writes td's spans through the store, as consume answers.
func (r *Receiver) write(td ptrace.Traces) (rejected int64, msg string, err error) {
	n := int64(td.SpanCount())
	if n == 0 {
		return 0, "", nil
	}
	werr := r.st.Write(artifact.Records(td))
	if r.onWrite != nil {
		defer r.onWrite()
	}
	failed := -1
	if we := (*store.WriteError)(nil); errors.As(werr, &we) {
		failed = len(we.Failed)
	}
	return r.settle("spans", n, failed, werr, &r.c.spans, &r.c.rejSpans)
}

// consumeLogs writes ld through the store as consume writes spans.
func (r *Receiver) consumeLogs(ld plog.Logs) (rejected int64, msg string, err error) {
	n := int64(ld.LogRecordCount())
	if n == 0 {
		return 0, "", nil
	}
	werr := r.st.WriteLogs(artifact.LogRecords(ld))
	if r.onWrite != nil {
		defer r.onWrite()
	}
	failed := -1
	if we := (*store.LogWriteError)(nil); errors.As(werr, &we) {
		failed = len(we.Failed)
	}
	return r.settle("log records", n, failed, werr, &r.c.logs, &r.c.rejLogs)
}

// settle counts a write of n spans or log records through the store, the
// same for both signals: written into ok, refused into rej. failed is how
// many a partial failure names, -1 when werr is no partial failure (then
// all n were refused). It answers as consume does.
func (r *Receiver) settle(what string, n int64, failed int, werr error, ok, rej *atomic.Int64) (rejected int64, msg string, err error) {
	switch {
	case werr == nil:
		ok.Add(n)
		return 0, "", nil
	case errors.Is(werr, store.ErrClosed):
		return 0, "", errClosed
	}
	bad := n
	if failed >= 0 {
		bad = int64(failed)
	}
	ok.Add(n - bad)
	rej.Add(bad)
	r.log.Warn(what+" not written", "rejected", bad, "err", werr)
	return bad, werr.Error(), nil
}

// ServerHeader is the Server header of every OTLP/HTTP answer: it tells
// an agenttrace receiver from another OTLP receiver on the same port
// (demo --live sends its run only to the former).
const ServerHeader = "agenttrace"

// HTTPHandler answers OTLP/HTTP on /v1/traces and /v1/logs, to
// requests addressed to the receiver only (WithAllowedHosts, WithCORS).
func (r *Receiver) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PathTraces, r.serveTraces)
	mux.HandleFunc(PathLogs, r.serveLogs)
	access := r.access(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Server", ServerHeader)
		access.ServeHTTP(w, req)
	})
}

// readBody checks method and content type and reads the body (gunzipped),
// answering the error itself; ok is false when it did. The body's bytes
// are taken from the in-flight budget: the caller gives back took once
// it is done with body (readBody gives them back itself when !ok).
func (r *Receiver) readBody(w http.ResponseWriter, req *http.Request) (body []byte, ct string, took int64, ok bool) {
	body, ct, m, ok := r.readMetered(w, req)
	if !ok {
		r.inflight.give(m.took)
		return nil, "", 0, false
	}
	return body, ct, m.took, true
}

// readMetered is readBody before the budget is settled: what the body
// took is m.took, whether or not it was read whole.
func (r *Receiver) readMetered(w http.ResponseWriter, req *http.Request) (body []byte, ct string, m *metered, ok bool) {
	m = &metered{b: &r.inflight}
	if req.Method != http.MethodPost {
		r.c.badMethod.Add(1)
		w.Header().Set("Allow", http.MethodPost)
		writeStatus(w, ctJSON, http.StatusMethodNotAllowed, codes.Unimplemented, "OTLP/HTTP takes POST")
		return nil, "", m, false
	}
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || (mt != ctProto && mt != ctJSON) {
		r.c.badType.Add(1)
		r.log.Warn("refused OTLP request: content type", "content_type", req.Header.Get("Content-Type"))
		writeStatus(w, ctJSON, http.StatusUnsupportedMediaType, codes.InvalidArgument,
			fmt.Sprintf("unsupported content type %q: want %s or %s", req.Header.Get("Content-Type"), ctProto, ctJSON))
		return nil, "", m, false
	}
	if req.ContentLength > r.max {
		r.c.tooLarge.Add(1)
		writeStatus(w, mt, http.StatusRequestEntityTooLarge, codes.ResourceExhausted, fmt.Sprintf("request of %d bytes is over the limit of %d", req.ContentLength, r.max))
		return nil, "", m, false
	}
	enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding")))
	if (enc == "" || enc == "identity") && req.ContentLength > 0 {
		// The whole body will be held: refuse it before reading any.
		if !r.inflight.take(req.ContentLength) {
			r.writeBusy(w, req, mt)
			return nil, "", m, false
		}
		m.took, m.credit = req.ContentLength, req.ContentLength
	}
	var src io.Reader = http.MaxBytesReader(w, req.Body, r.max+1)
	switch enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			r.c.badPayload.Add(1)
			writeStatus(w, mt, http.StatusBadRequest, codes.InvalidArgument, "gzip: "+err.Error())
			return nil, "", m, false
		}
		defer zr.Close()
		src = zr
	default:
		r.c.badType.Add(1)
		writeStatus(w, mt, http.StatusUnsupportedMediaType, codes.InvalidArgument,
			fmt.Sprintf("unsupported content encoding %q: want gzip or none", req.Header.Get("Content-Encoding")))
		return nil, "", m, false
	}
	m.r = io.LimitReader(src, r.max+1)
	body, err = io.ReadAll(m)
	if errors.Is(err, ErrBusy) {
		r.writeBusy(w, req, mt)
		return nil, "", m, false
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || int64(len(body)) > r.max {
		r.c.tooLarge.Add(1)
		writeStatus(w, mt, http.StatusRequestEntityTooLarge, codes.ResourceExhausted, fmt.Sprintf("request is over the limit of %d bytes", r.max))
		return nil, "", m, false
	}
	if err != nil {
		r.c.badPayload.Add(1)
		writeStatus(w, mt, http.StatusBadRequest, codes.InvalidArgument, "reading request: "+err.Error())
		return nil, "", m, false
	}
	return body, mt, m, true
}

// decodeTraces decodes an ExportTraceServiceRequest in ct's encoding:
// every OTLP trace request, HTTP or gRPC, reaches pdata here.
func decodeTraces(body []byte, ct string) (ptraceotlp.ExportRequest, error) {
	er := ptraceotlp.NewExportRequest()
	return er, decodeInto(er, body, ct, converter.FormatOTLPProto, converter.FormatOTLPJSON)
}

// exportRequest is what decodeInto fills: pdata's trace and log
// ExportRequest, whose methods write through to the shared message.
type exportRequest interface {
	UnmarshalJSON(data []byte) error
	UnmarshalProto(data []byte) error
}

// decodeInto guards body in ct's encoding (proto or json, the formats
// GuardOTLP knows the request as) and then unmarshals it into er: the
// one path every OTLP request, traces or logs, takes to pdata.
func decodeInto(er exportRequest, body []byte, ct string, proto, json converter.Format) error {
	if err := guard(body, ct, proto, json); err != nil {
		return err
	}
	if ct == ctJSON {
		return er.UnmarshalJSON(body)
	}
	return er.UnmarshalProto(body)
}

// guard checks a request before pdata decodes it (converter.GuardOTLP:
// nesting that would overflow pdata's stack and kill the process, JSON
// syntax and trailing data), leniently: unknown fields are OTLP's to
// ignore and ids are judged per span after decoding.
func guard(body []byte, ct string, proto, json converter.Format) error {
	f := proto
	if ct == ctJSON {
		f = json
	}
	return converter.GuardOTLP(body, f, converter.GuardOptions{})
}

// decodeLogs decodes an ExportLogsServiceRequest as decodeTraces does.
func decodeLogs(body []byte, ct string) (plogotlp.ExportRequest, error) {
	er := plogotlp.NewExportRequest()
	return er, decodeInto(er, body, ct, converter.FormatOTLPLogsProto, converter.FormatOTLPLogsJSON)
}

func (r *Receiver) serveTraces(w http.ResponseWriter, req *http.Request) {
	serveExport(r, w, req, "ExportTraceServiceRequest", decodeTraces, func(er ptraceotlp.ExportRequest) (exportResponse, error) {
		rej, msg, err := r.consume(er.Traces())
		return tracesResponse(rej, msg), err
	})
}

func (r *Receiver) serveLogs(w http.ResponseWriter, req *http.Request) {
	serveExport(r, w, req, "ExportLogsServiceRequest", decodeLogs, func(er plogotlp.ExportRequest) (exportResponse, error) {
		rej, msg, err := r.consumeLogs(er.Logs())
		return logsResponse(rej, msg), err
	})
}

// exportResponse is an OTLP export response of either signal.
type exportResponse interface {
	MarshalJSON() ([]byte, error)
	MarshalProto() ([]byte, error)
}

// serveExport answers one OTLP/HTTP export request (what names its
// message): 400 with a google.rpc.Status for a body decode refuses, 503
// when consume cannot store it, else consume's response in the request's
// encoding.
func serveExport[R any](r *Receiver, w http.ResponseWriter, req *http.Request, what string,
	decode func(body []byte, ct string) (R, error), consume func(R) (exportResponse, error)) {
	body, ct, took, ok := r.readBody(w, req)
	if !ok {
		return
	}
	defer r.inflight.give(took)
	er, err := decode(body, ct)
	if err != nil {
		r.c.badPayload.Add(1)
		r.log.Warn("refused OTLP request: payload", "content_type", ct, "err", err)
		writeStatus(w, ct, http.StatusBadRequest, codes.InvalidArgument, "cannot decode "+ct+" "+what+": "+err.Error())
		return
	}
	resp, err := consume(er)
	if err != nil {
		writeStatus(w, ct, http.StatusServiceUnavailable, codes.Unavailable, err.Error())
		return
	}
	r.c.httpReq.Add(1)
	var b []byte
	if ct == ctJSON {
		b, err = resp.MarshalJSON()
	} else {
		b, err = resp.MarshalProto()
	}
	writeBody(w, ct, http.StatusOK, b, err)
}

// tracesResponse is the answer to a traces request, a partial success
// when rej spans were not written.
func tracesResponse(rej int64, msg string) ptraceotlp.ExportResponse {
	resp := ptraceotlp.NewExportResponse()
	if rej > 0 {
		resp.PartialSuccess().SetRejectedSpans(rej)
		resp.PartialSuccess().SetErrorMessage(strings.ToValidUTF8(msg, "\uFFFD"))
	}
	return resp
}

// logsResponse is the answer to a logs request, a partial success when
// rej records were not written.
func logsResponse(rej int64, msg string) plogotlp.ExportResponse {
	resp := plogotlp.NewExportResponse()
	if rej > 0 {
		resp.PartialSuccess().SetRejectedLogRecords(rej)
		resp.PartialSuccess().SetErrorMessage(strings.ToValidUTF8(msg, "\uFFFD"))
	}
	return resp
}

// writeStatus answers an error as OTLP/HTTP asks: a google.rpc.Status in
// the request's encoding.
func writeStatus(w http.ResponseWriter, ct string, code int, gc codes.Code, msg string) {
	// A decoder's message may quote the bad bytes; protobuf strings
	// must be UTF-8.
	st := &spb.Status{Code: int32(gc), Message: strings.ToValidUTF8(msg, "\uFFFD")}
	var b []byte
	var err error
	if ct == ctProto {
		b, err = proto.Marshal(st)
	} else {
		ct = ctJSON
		b, err = protojson.Marshal(st)
	}
	writeBody(w, ct, code, b, err)
}

func writeBody(w http.ResponseWriter, ct string, code int, b []byte, err error) {
	if err != nil {
		http.Error(w, "encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// ServeHTTP serves OTLP/HTTP on ln until Shutdown, then returns
// http.ErrServerClosed.
func (r *Receiver) ServeHTTP(ln net.Listener) error {
	hs := &http.Server{
		Handler:           r.HTTPHandler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(r.log.Handler(), slog.LevelWarn),
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	r.https = append(r.https, hs)
	r.mu.Unlock()
	return hs.Serve(ln)
}

// Shutdown stops serving: requests in flight finish (until ctx is done,
// when gRPC calls are cut off), later ones are refused.
func (r *Receiver) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	https, grpcs := r.https, r.grpcs
	r.mu.Unlock()
	var errs []error
	for _, hs := range https {
		if err := hs.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("receiver: http shutdown: %w", err))
		}
	}
	for _, gs := range grpcs {
		done := make(chan struct{})
		go func() { gs.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			gs.Stop()
			<-done
			errs = append(errs, fmt.Errorf("receiver: grpc shutdown: %w", ctx.Err()))
		}
	}
	return errors.Join(errs...)
}
