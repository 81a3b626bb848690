package converter_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/semconv"
)

// benchBatch is the batch docs/benchmarks.md measures: 100 agent traces of
// 7 spans (invoke_agent, 3 chats, 2 tools, 1 HTTP span), chats carrying
// about 2 KB of messages as JSON strings, as GenAI SDKs record them.
func benchBatch() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel-planner")
	rs.Resource().Attributes().PutStr("service.version", "2.4.1")
	rs.Resource().Attributes().PutStr("telemetry.sdk.language", "go")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("github.com/example/agentkit")
	ss.Scope().SetVersion("0.9.3")
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10)
	base := uint64(1_777_000_000_000_000_000)
	for t := range 100 {
		var tid pcommon.TraceID
		copy(tid[:], fmt.Sprintf("trace%011d", t))
		sid := func(i int) pcommon.SpanID {
			var s pcommon.SpanID
			copy(s[:], fmt.Sprintf("%02d%06d", i, t))
			return s
		}
		at := base + uint64(t)*1e10
		span := func(i int, parent int, name string, kind ptrace.SpanKind) ptrace.Span {
			sp := ss.Spans().AppendEmpty()
			sp.SetTraceID(tid)
			sp.SetSpanID(sid(i))
			if parent >= 0 {
				sp.SetParentSpanID(sid(parent))
			}
			sp.SetName(name)
			sp.SetKind(kind)
			sp.SetStartTimestamp(pcommon.Timestamp(at + uint64(i)*1e8))
			sp.SetEndTimestamp(pcommon.Timestamp(at + uint64(i)*1e8 + 9e7))
			return sp
		}
		root := span(0, -1, "invoke_agent travel-planner", ptrace.SpanKindInternal)
		a := root.Attributes()
		a.PutStr(semconv.OperationName, "invoke_agent")
		a.PutStr(semconv.AgentName, "travel-planner")
		a.PutStr(semconv.ConversationID, fmt.Sprintf("conv-%d", t))
		a.PutInt(semconv.UsageInputTokens, 4200)
		a.PutInt(semconv.UsageOutputTokens, 600)
		for c := range 3 {
			sp := span(1+c, 0, "chat gpt-4o", ptrace.SpanKindClient)
			a := sp.Attributes()
			a.PutStr(semconv.OperationName, "chat")
			a.PutStr(semconv.ProviderName, "openai")
			a.PutStr(semconv.RequestModel, "gpt-4o")
			a.PutStr(semconv.ResponseModel, "gpt-4o-2024-08-06")
			a.PutStr(semconv.ResponseID, fmt.Sprintf("chatcmpl-%d-%d", t, c))
			a.PutEmptySlice(semconv.ResponseFinishReasons).AppendEmpty().SetStr("tool_calls")
			a.PutInt(semconv.UsageInputTokens, 1400)
			a.PutInt(semconv.UsageOutputTokens, 200)
			a.PutInt(semconv.UsageCacheReadInput, 512)
			a.PutDouble(semconv.RequestTemperature, 0.2)
			a.PutStr(semconv.InputMessages, `[{"role":"user","parts":[{"type":"text","content":"Plan a 5-day trip to Lisbon in March for two, budget 2000 EUR. `+para[:700]+`"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"search_flights","arguments":{"origin":"BER","destination":"LIS","depart_date":"2026-03-14"}}]}]`)
			a.PutStr(semconv.OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":"`+para+`"}],"finish_reason":"tool_call"}]`)
		}
		for c := range 2 {
			sp := span(4+c, 0, "execute_tool search_flights", ptrace.SpanKindInternal)
			a := sp.Attributes()
			a.PutStr(semconv.OperationName, "execute_tool")
			a.PutStr(semconv.ToolName, "search_flights")
			a.PutStr(semconv.ToolCallID, fmt.Sprintf("call_%d", c))
			a.PutStr(semconv.ToolCallArguments, `{"origin":"BER","destination":"LIS","depart_date":"2026-03-14","passengers":2}`)
			a.PutStr(semconv.ToolCallResult, `{"offers":[{"carrier":"TP","price":247.8,"stops":0},{"carrier":"FR","price":168.4,"stops":0}]}`)
		}
		h := span(6, 4, "GET", ptrace.SpanKindClient)
		h.Attributes().PutStr("http.request.method", "GET")
		h.Attributes().PutStr("url.full", "https://api.skyfares.example/v2/offers?origin=BER&destination=LIS")
		h.Attributes().PutInt("http.response.status_code", 200)
	}
	return td
}

func encodeArtifact(tb testing.TB, td ptrace.Traces, w io.Writer) {
	aw := artifact.NewWriter(w, nil)
	if err := aw.WriteTraces(td); err != nil {
		tb.Fatal(err)
	}
	if err := aw.Close(); err != nil {
		tb.Fatal(err)
	}
}

func decodeArtifact(tb testing.TB, b []byte) ptrace.Traces {
	td, err := artifact.NewReader(bytes.NewReader(b)).ReadTraces()
	if err != nil {
		tb.Fatal(err)
	}
	return td
}

// BenchmarkEncode compares OTLP -> JSONL (the artifact writer) with pdata's
// own OTLP/JSON marshaler on the same batch. Compare with
// benchstat -col /impl.
func BenchmarkEncode(b *testing.B) {
	td := benchBatch()
	b.Run("impl=agenttrace", func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		cpu := benchcpu.Now()
		for b.Loop() {
			buf.Reset()
			encodeArtifact(b, td, &buf)
		}
		benchcpu.Report(b, cpu)
		b.ReportMetric(float64(buf.Len()), "out-bytes")
	})
	b.Run("impl=pdata", func(b *testing.B) {
		var m ptrace.JSONMarshaler
		var n int
		b.ReportAllocs()
		for b.Loop() {
			out, err := m.MarshalTraces(td)
			if err != nil {
				b.Fatal(err)
			}
			n = len(out)
		}
		b.ReportMetric(float64(n), "out-bytes")
	})
}

// BenchmarkDecode compares JSONL -> OTLP (the artifact reader) with
// pdata's OTLP/JSON unmarshaler on the OTLP/JSON of the same batch.
func BenchmarkDecode(b *testing.B) {
	td := benchBatch()
	var artifact bytes.Buffer
	encodeArtifact(b, td, &artifact)
	otlpJSON, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(b, err)
	b.Run("impl=agenttrace", func(b *testing.B) {
		b.ReportAllocs()
		cpu := benchcpu.Now()
		for b.Loop() {
			if decodeArtifact(b, artifact.Bytes()).SpanCount() != 700 {
				b.Fatal("lost spans")
			}
		}
		benchcpu.Report(b, cpu)
		b.ReportMetric(float64(artifact.Len()), "in-bytes")
	})
	b.Run("impl=pdata", func(b *testing.B) {
		var u ptrace.JSONUnmarshaler
		b.ReportAllocs()
		for b.Loop() {
			got, err := u.UnmarshalTraces(otlpJSON)
			if err != nil || got.SpanCount() != 700 {
				b.Fatal("decode failed", err)
			}
		}
		b.ReportMetric(float64(len(otlpJSON)), "in-bytes")
	})
}

// TestBenchBatchRoundTrips keeps the benchmark honest: the batch it times
// converts both ways without loss.
func TestBenchBatchRoundTrips(t *testing.T) {
	td := benchBatch()
	require.Equal(t, 700, td.SpanCount())
	var buf bytes.Buffer
	encodeArtifact(t, td, &buf)
	back := decodeArtifact(t, buf.Bytes())
	require.Equal(t, spansOf(td), spansOf(back))
}
