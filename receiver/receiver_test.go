package receiver_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
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
	"go.opentelemetry.io/collector/pdata/pcommon"
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

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/receiver"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/store"
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
	return startStore(t, store.Options{}, opts...)
}

// startStore is start over a store with sopts (its Dir a new folder).
func startStore(t *testing.T, sopts store.Options, opts ...receiver.Option) *harness {
	t.Helper()
	dir := t.TempDir()
	sopts.Dir = dir
	st, err := store.New(sopts)
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
func reference(t *testing.T, seed uint64) ([]artifact.Record, *report.TokenReport) {
	t.Helper()
	dir := t.TempDir()
	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace))
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

func spanIDs(recs []artifact.Record) []string {
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

// TestGRPCRefusals: an oversized, garbage or truncated message gets its
// gRPC code and is counted; the same connection's good calls are written.
func TestGRPCRefusals(t *testing.T) {
	h := start(t, receiver.WithMaxRequest(4096))
	cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	client := ptraceotlp.NewGRPCClient(cc)
	ctx := context.Background()

	td, pb, _ := goodRequest(t, "good")
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
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)

	// A protobuf request cut short: its last field's bytes are missing.
	truncated := rawMsg(pb[:len(pb)-7])
	err = cc.Invoke(ctx, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", &truncated, new(rawMsg), grpc.ForceCodecV2(rawCodec{}))
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)

	td2, _, _ := goodRequest(t, "good-after")
	resp, err := client.Export(ctx, ptraceotlp.NewExportRequestFromTraces(td2))
	require.NoError(t, err)
	assert.Zero(t, resp.PartialSuccess().RejectedSpans())

	st := h.rcv.Stats()
	assert.Equal(t, int64(3), st.GRPCErrors)
	assert.Equal(t, int64(2), st.Spans)
	assert.Equal(t, int64(2), st.GRPCRequests)
}

const realPayloads = "../testdata/real/otel-instrumentation-openai/payloads/"

// logKeys is each log record of the artifacts in dir (or of ld) as its
// trace, span and body, by the trace whose artifact holds it (its own
// trace id for ld), sorted.
func logKeys(recs []artifact.LogRecord) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Log.TraceID().String()+" "+r.Log.SpanID().String()+" "+r.Log.Body().AsString())
	}
	slices.Sort(out)
	return out
}

// storedLogs reads every artifact of dir: its log records, each prefixed
// by the artifact's own trace (so a record in another trace's file shows).
func storedLogs(t *testing.T, dir string) (byFile map[string][]string, spans int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	byFile = map[string][]string{}
	for _, e := range ents {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		var logs []artifact.LogRecord
		r := artifact.NewReader(f, artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			spans++
		}
		f.Close()
		byFile[e.Name()] = logKeys(logs)
	}
	return byFile, spans
}

// TestLogsStored sends the official openai instrumentation's captured
// runs (its spans, and the log records that carry the prompts and
// answers) over HTTP/protobuf (gzip), HTTP/JSON and gRPC, logs before and
// after their spans, each twice: every log record lands once, in its
// trace's artifact, and is counted.
func TestLogsStored(t *testing.T) {
	type payload struct {
		td ptrace.Traces
		ld plog.Logs
	}
	var runs []payload
	for _, name := range []string{"tool-loop", "stream", "fail", "responses-tool-loop", "responses-stream", "responses-fail"} {
		b, err := os.ReadFile(realPayloads + name + ".traces.pb")
		require.NoError(t, err)
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
		require.NoError(t, err)
		b, err = os.ReadFile(realPayloads + name + ".logs.pb")
		require.NoError(t, err)
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(b)
		require.NoError(t, err)
		require.Positive(t, ld.LogRecordCount(), name)
		runs = append(runs, payload{td, ld})
	}
	postHTTP := func(t *testing.T, h *harness, path, ct string, body []byte, gzipped bool) []byte {
		t.Helper()
		if gzipped {
			body = gz(t, body)
		}
		req, err := http.NewRequest(http.MethodPost, "http://"+h.httpAddr+path, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", ct)
		if gzipped {
			req.Header.Set("Content-Encoding", "gzip")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
		return b
	}
	type sender struct {
		traces func(t *testing.T, h *harness, td ptrace.Traces)
		logs   func(t *testing.T, h *harness, ld plog.Logs) int64 // rejected
	}
	httpSender := func(ct string, gzipped bool) sender {
		return sender{
			traces: func(t *testing.T, h *harness, td ptrace.Traces) {
				req := ptraceotlp.NewExportRequestFromTraces(td)
				var b []byte
				var err error
				if ct == "application/json" {
					b, err = req.MarshalJSON()
				} else {
					b, err = req.MarshalProto()
				}
				require.NoError(t, err)
				postHTTP(t, h, receiver.PathTraces, ct, b, gzipped)
			},
			logs: func(t *testing.T, h *harness, ld plog.Logs) int64 {
				req := plogotlp.NewExportRequestFromLogs(ld)
				resp := plogotlp.NewExportResponse()
				if ct == "application/json" {
					b, err := req.MarshalJSON()
					require.NoError(t, err)
					require.NoError(t, resp.UnmarshalJSON(postHTTP(t, h, receiver.PathLogs, ct, b, gzipped)))
				} else {
					b, err := req.MarshalProto()
					require.NoError(t, err)
					require.NoError(t, resp.UnmarshalProto(postHTTP(t, h, receiver.PathLogs, ct, b, gzipped)))
				}
				return resp.PartialSuccess().RejectedLogRecords()
			},
		}
	}
	grpcSender := func(t *testing.T, h *harness) sender {
		cc, err := grpc.NewClient(h.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		t.Cleanup(func() { cc.Close() })
		return sender{
			traces: func(t *testing.T, _ *harness, td ptrace.Traces) {
				_, err := ptraceotlp.NewGRPCClient(cc).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td))
				require.NoError(t, err)
			},
			logs: func(t *testing.T, _ *harness, ld plog.Logs) int64 {
				resp, err := plogotlp.NewGRPCClient(cc).Export(context.Background(), plogotlp.NewExportRequestFromLogs(ld))
				require.NoError(t, err)
				return resp.PartialSuccess().RejectedLogRecords()
			},
		}
	}
	tests := []struct {
		name   string
		sender func(t *testing.T, h *harness) sender
	}{
		{"http/protobuf+gzip", func(*testing.T, *harness) sender { return httpSender("application/x-protobuf", true) }},
		{"http/json", func(*testing.T, *harness) sender { return httpSender("application/json", false) }},
		{"grpc", grpcSender},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := start(t)
			snd := tt.sender(t, h)
			var want []artifact.LogRecord
			wantSpans, wantLogs := 0, int64(0)
			for i, run := range runs {
				// Half the runs send their logs first (held until the
				// trace's artifact exists), half after; each twice.
				if i%2 == 0 {
					assert.Zero(t, snd.logs(t, h, run.ld))
				}
				snd.traces(t, h, run.td)
				assert.Zero(t, snd.logs(t, h, run.ld))
				snd.traces(t, h, run.td)
				if i%2 == 1 {
					assert.Zero(t, snd.logs(t, h, run.ld))
				}
				want = append(want, artifact.LogRecords(run.ld)...)
				wantSpans += run.td.SpanCount()
				wantLogs += 2 * int64(run.ld.LogRecordCount())
			}
			require.NoError(t, h.st.Flush())
			byFile, spans := storedLogs(t, h.dir)
			assert.Equal(t, wantSpans, spans, "every span once")
			var got []string
			for file, keys := range byFile {
				for _, k := range keys {
					trace, _, _ := strings.Cut(k, " ")
					assert.Equal(t, store.FileName(store.TraceKey(traceIDOf(t, trace)), ""), file, "a log record in its trace's artifact")
				}
				got = append(got, keys...)
			}
			slices.Sort(got)
			assert.Equal(t, logKeys(want), got, "every log record once")
			st := h.rcv.Stats()
			assert.Equal(t, wantLogs, st.Logs)
			assert.Zero(t, st.RejectedLogs+st.BadPayload+st.GRPCErrors)
		})
	}
}

func traceIDOf(t *testing.T, s string) pcommon.TraceID {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	var id pcommon.TraceID
	copy(id[:], b)
	return id
}

// TestLogsRefusedAndRedacted: a logs request gets the refusals a traces
// request gets, and a secret in a log record's body is redacted (by the
// store's Redactor, as serve --otlp sets it) before it is written.
func TestLogsRefusedAndRedacted(t *testing.T) {
	h := startStore(t, store.Options{Redactor: redact.New(nil, true)}, receiver.WithMaxRequest(4096))
	secret := "sk-" + "proj-" + strings.Repeat("Xy9_", 10)
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTraceID([16]byte{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	lr.Body().SetStr("my key is " + secret)
	js, err := plogotlp.NewExportRequestFromLogs(ld).MarshalJSON()
	require.NoError(t, err)
	post := func(ct string, body []byte) int {
		resp, err := http.Post("http://"+h.httpAddr+receiver.PathLogs, ct, bytes.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusBadRequest, post("application/json", []byte(`{"resourceLogs": [`)))
	assert.Equal(t, http.StatusUnsupportedMediaType, post("text/plain", js))
	assert.Equal(t, http.StatusRequestEntityTooLarge, post("application/x-protobuf", bytes.Repeat([]byte{0}, 5000)))
	assert.Equal(t, http.StatusOK, post("application/json", js))
	st := h.rcv.Stats()
	assert.Equal(t, receiver.Stats{HTTPRequests: 1, Logs: 1, BadPayload: 1, BadContentType: 1, TooLarge: 1}, st)
	require.NoError(t, h.st.Close()) // writes the held record
	b, err := os.ReadFile(filepath.Join(h.dir, store.FileName(store.TraceKey(lr.TraceID()), "")))
	require.NoError(t, err)
	assert.NotContains(t, string(b), secret)
	assert.Contains(t, string(b), "my key is ")
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
