package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

func spanID(t testing.TB, s string) pcommon.SpanID {
	t.Helper()
	id, err := jaegerSpanID(s)
	require.NoError(t, err)
	return id
}

func traceID(t testing.TB, s string) pcommon.TraceID {
	t.Helper()
	id, err := jaegerTraceID(s)
	require.NoError(t, err)
	return id
}

func bySpanID(t testing.TB, recs []*artifact.Record, id string) *artifact.Record {
	t.Helper()
	want := spanID(t, id)
	for _, r := range recs {
		if r.Span.SpanID() == want {
			return r
		}
	}
	require.Failf(t, "no span", "no span %s", id)
	return nil
}

func TestReadJaegerFixture(t *testing.T) {
	recs, st := importFixture(t, ReadJaeger, "jaeger.json")
	assert.Empty(t, st.Problems)
	assert.Empty(t, st.Unknown)
	require.Len(t, recs, 7)
	assertSane(t, recs)

	genai := traceID(t, "4bf92f3577b34da6a3ce929d0e0e4736")
	batch := traceID(t, "00000000000000007d3f5a1c9e2b4f60")
	assert.Equal(t, "00000000000000007d3f5a1c9e2b4f60", batch.String(), "64-bit ids are left-padded")

	tests := []struct {
		span, trace, parent, name string
		kind                      ptrace.SpanKind
		status                    ptrace.StatusCode
		message                   string
		service                   string
		scope                     [2]string
	}{
		{"00f067aa0ba902b7", genai.String(), "", "invoke_agent travel-planner", ptrace.SpanKindInternal, ptrace.StatusCodeUnset, "", "travel-planner", [2]string{"github.com/example/agentkit", "0.9.3"}},
		{"5fb397be34d26b51", genai.String(), "00f067aa0ba902b7", "chat gpt-4.1", ptrace.SpanKindClient, ptrace.StatusCodeOk, "", "travel-planner", [2]string{"github.com/example/agentkit", "0.9.3"}},
		{"a1b2c3d4e5f60718", genai.String(), "00f067aa0ba902b7", "execute_tool get_weather", ptrace.SpanKindInternal, ptrace.StatusCodeError, "upstream timeout after 5s", "travel-planner", [2]string{"github.com/example/agentkit", "0.9.3"}},
		{"9e8d7c6b5a493827", genai.String(), "a1b2c3d4e5f60718", "GET /v1/forecast", ptrace.SpanKindServer, ptrace.StatusCodeError, "", "weather-api", [2]string{"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp", "0.63.0"}},
		{"0d1e2f3a4b5c6d7e", genai.String(), "00f067aa0ba902b7", "chat gpt-4.1", ptrace.SpanKindClient, ptrace.StatusCodeUnset, "", "travel-planner", [2]string{"github.com/example/agentkit", "0.9.3"}},
		{"3c4d5e6f70819203", batch.String(), "", "nightly-batch", ptrace.SpanKindUnspecified, ptrace.StatusCodeUnset, "", "batch-runner", [2]string{}},
		{"4d5e6f7081920314", batch.String(), "3c4d5e6f70819203", "publish-report", ptrace.SpanKindProducer, ptrace.StatusCodeUnset, "", "report-publisher", [2]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.span, func(t *testing.T) {
			r := bySpanID(t, recs, tt.span)
			sp := r.Span
			assert.Equal(t, tt.trace, sp.TraceID().String())
			if tt.parent == "" {
				assert.True(t, sp.ParentSpanID().IsEmpty())
			} else {
				assert.Equal(t, tt.parent, sp.ParentSpanID().String())
			}
			assert.Equal(t, tt.name, sp.Name())
			assert.Equal(t, tt.kind, sp.Kind())
			assert.Equal(t, tt.status, sp.Status().Code())
			assert.Equal(t, tt.message, sp.Status().Message())
			svc, _ := r.Resource.Attributes().Get("service.name")
			assert.Equal(t, tt.service, svc.Str())
			assert.Equal(t, tt.scope, [2]string{r.Scope.Name(), r.Scope.Version()})
			for _, k := range []string{"span.kind", "otel.status_code", "otel.status_description", "error", "otel.scope.name", "otel.scope.version", "w3c.tracestate"} {
				assert.False(t, hasAttr(sp, k), "translation tag %s is read back, not kept", k)
			}
		})
	}

	// Times: µs to ns.
	root := bySpanID(t, recs, "00f067aa0ba902b7").Span
	assert.Equal(t, ts("2026-05-04T10:00:00Z"), root.StartTimestamp())
	assert.Equal(t, ts("2026-05-04T10:00:06.5Z"), root.EndTimestamp())
	assert.Equal(t, "rojo=00f067aa0ba902b7", root.TraceState().AsRaw())
	assert.EqualValues(t, 1, root.Flags())
	assert.Equal(t, genai, recs[4].Span.TraceID())
	assert.Equal(t, root.SpanID(), recs[4].Span.SpanID(), "a trace's records come in the order their spans end")

	// Tags of every type keep their type.
	tool := bySpanID(t, recs, "a1b2c3d4e5f60718")
	attrs := tool.Span.Attributes()
	typed := func(m pcommon.Map, k string, want pcommon.ValueType) pcommon.Value {
		t.Helper()
		v, ok := m.Get(k)
		require.True(t, ok, k)
		assert.Equal(t, want, v.Type(), k)
		return v
	}
	assert.Equal(t, "get_weather", typed(attrs, semconv.ToolName, pcommon.ValueTypeStr).Str())
	assert.True(t, typed(attrs, "agentkit.retry", pcommon.ValueTypeBool).Bool())
	assert.EqualValues(t, 3, typed(attrs, "agentkit.attempts", pcommon.ValueTypeInt).Int())
	sum := sha256.Sum256([]byte(`{"city":"Paris"}`))
	assert.Equal(t, sum[:], typed(attrs, "agentkit.args.sha256", pcommon.ValueTypeBytes).Bytes().AsRaw())
	assert.Equal(t, "timeout", attr(tool.Span, semconv.ErrorType))
	require.Equal(t, 1, tool.Span.Events().Len())
	ev := tool.Span.Events().At(0)
	assert.Equal(t, "exception", ev.Name())
	assert.Equal(t, ts("2026-05-04T10:00:05.861Z"), ev.Timestamp())
	assert.Equal(t, "TimeoutError", typed(ev.Attributes(), "exception.type", pcommon.ValueTypeStr).Str())
	_, hasEvent := ev.Attributes().Get("event")
	assert.False(t, hasEvent)

	chat1 := bySpanID(t, recs, "5fb397be34d26b51")
	assert.InDelta(t, 0.2, typed(chat1.Span.Attributes(), semconv.RequestTemperature, pcommon.ValueTypeDouble).Double(), 0)
	assert.EqualValues(t, 1200, typed(chat1.Span.Attributes(), semconv.UsageInputTokens, pcommon.ValueTypeInt).Int())
	assert.Equal(t, `["tool_calls"]`, attr(chat1.Span, semconv.ResponseFinishReasons), "GenAI tags stay as they are")
	assert.Equal(t, "gen_ai.choice", chat1.Span.Events().At(0).Name())

	api := bySpanID(t, recs, "9e8d7c6b5a493827")
	assert.EqualValues(t, 504, typed(api.Span.Attributes(), "http.response.status_code", pcommon.ValueTypeInt).Int())
	assert.InDelta(t, 0.97, typed(api.Span.Attributes(), "server.load", pcommon.ValueTypeDouble).Double(), 0)

	// Processes: shared resources with typed tags.
	rootRec := bySpanID(t, recs, "00f067aa0ba902b7")
	assert.EqualValues(t, 4242, typed(rootRec.Resource.Attributes(), "process.pid", pcommon.ValueTypeInt).Int())
	assert.Equal(t, rootRec.Resource, chat1.Resource, "spans of one process share its resource")
	assert.NotEqual(t, rootRec.Resource, api.Resource)

	// A second CHILD_OF parent stays the parent; FOLLOWS_FROM becomes a link.
	chat2 := bySpanID(t, recs, "0d1e2f3a4b5c6d7e").Span
	require.Equal(t, 1, chat2.Links().Len())
	link := chat2.Links().At(0)
	assert.Equal(t, tool.Span.SpanID(), link.SpanID())
	assert.Equal(t, genai, link.TraceID())
	assert.Equal(t, "follows_from", typed(link.Attributes(), "opentracing.ref_type", pcommon.ValueTypeStr).Str())

	// The 64-bit trace: FOLLOWS_FROM alone is the parent; a log with no
	// event field is "log"; warnings are kept; an inline process.
	nightly := bySpanID(t, recs, "3c4d5e6f70819203")
	assert.Equal(t, "log", nightly.Span.Events().At(0).Name())
	assert.Equal(t, "batch started", typed(nightly.Span.Events().At(0).Attributes(), "message", pcommon.ValueTypeStr).Str())
	w, ok := nightly.Span.Attributes().Get("jaeger.warnings")
	require.True(t, ok)
	assert.Equal(t, []any{"clock skew adjustment disabled"}, w.Slice().AsRaw())
	assert.False(t, typed(nightly.Span.Attributes(), "batch.dry_run", pcommon.ValueTypeBool).Bool())
	publish := bySpanID(t, recs, "4d5e6f7081920314")
	assert.Equal(t, 0, publish.Span.Links().Len())
	assert.Equal(t, "reports", typed(publish.Resource.Attributes(), "queue", pcommon.ValueTypeStr).Str())

	// GenAI dialect reading applies to the tags as they are.
	var rd semconv.Reading
	kinds := map[string]semconv.Kind{}
	for _, r := range recs {
		r.Read(&rd)
		kinds[r.Span.SpanID().String()] = rd.Kind
	}
	assert.Equal(t, semconv.Agent, kinds["00f067aa0ba902b7"])
	assert.Equal(t, semconv.Inference, kinds["5fb397be34d26b51"])
	assert.Equal(t, semconv.Call, kinds["a1b2c3d4e5f60718"])
	assert.Equal(t, semconv.Span, kinds["9e8d7c6b5a493827"])

	assertRoundTrip(t, recs)
}

// The shapes the UI download and the query API take all read the same.
func TestReadJaegerShapes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shapesDir, "jaeger.json"))
	require.NoError(t, err)
	var doc struct {
		Data []json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Data, 2)
	want := func(raw []byte) []string {
		recs, st := importBytes(t, ReadJaeger, "want", raw)
		require.Empty(t, st.Problems)
		return spansOf(recs)
	}
	all := want(data)
	first := want([]byte(`{"data":[` + string(doc.Data[0]) + `]}`))
	require.Len(t, first, 5)

	var compact [2]bytes.Buffer
	for i := range compact {
		require.NoError(t, json.Compact(&compact[i], doc.Data[i]))
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"bare trace", string(doc.Data[0]), first},
		{"array of traces", "[" + string(doc.Data[0]) + "," + string(doc.Data[1]) + "]", all},
		{"data object", `{"data":` + string(doc.Data[0]) + `}`, first},
		{"JSON lines", compact[0].String() + "\n" + compact[1].String() + "\n", all},
		{"wrapped lines", `{"data":[` + compact[0].String() + "]}\n" + `{"data":[` + compact[1].String() + "]}", all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st := importBytes(t, ReadJaeger, "x", []byte(tt.in))
			assert.Empty(t, st.Problems)
			assert.Equal(t, tt.want, spansOf(recs))
		})
	}
}

func TestReadJaegerProblems(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		spans    int
		problems []int
	}{
		{
			name: "bad span id is reported with its line, the rest kept",
			in: `{"data":[{"traceID":"0af7651916cd43dd8448eb211c80319c","spans":[
 {"spanID":"b7ad6b7169203331","operationName":"ok","startTime":1,"duration":1,"processID":"p1"},
 {"spanID":"zz","operationName":"bad","startTime":1,"duration":1},
 {"operationName":"no id"}
],"processes":{"p1":{"serviceName":"s"}}}]}`,
			spans:    1,
			problems: []int{3, 4},
		},
		{
			name:     "a missing process is reported, the span kept",
			in:       `{"traceID":"1","spans":[{"spanID":"2","operationName":"x","processID":"p9"}]}`,
			spans:    1,
			problems: []int{1},
		},
		{
			name:     "a tag that does not match its type is kept as text",
			in:       `{"traceID":"1","spans":[{"spanID":"2","tags":[{"key":"n","type":"int64","value":"many"},{"key":"b","type":"binary","value":"!!"}]}]}`,
			spans:    1,
			problems: []int{1, 1},
		},
		{
			name:     "query errors",
			in:       `{"data":[],"errors":[{"code":404,"msg":"trace not found","traceID":"abc"}]}`,
			problems: []int{1},
		},
		{
			name:     "not JSON",
			in:       "{\n\"data\": [ oops",
			problems: []int{1},
		},
		{
			name:     "not Jaeger",
			in:       "\n\n\"hello\"",
			problems: []int{3},
		},
		{
			name:     "an object without a trace",
			in:       `{"foo":1}`,
			problems: []int{1},
		},
		{
			name:     "ids too long",
			in:       `{"traceID":"0af7651916cd43dd8448eb211c80319c00","spans":[{"spanID":"2"},{"traceID":"1","spanID":"0123456789abcdef0"}]}`,
			problems: []int{1, 1},
		},
		{name: "empty", in: ""},
		{name: "null data", in: `{"data":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st := importBytes(t, ReadJaeger, "j.json", []byte(tt.in))
			assert.Len(t, recs, tt.spans)
			assertSane(t, recs)
			assert.Equal(t, tt.problems, problemLines(t, st, "j.json"), "%v", st.Problems)
		})
	}
}

func TestReadJaegerIDs(t *testing.T) {
	in := `{"traceID":"abc","spans":[
{"spanID":"f","operationName":"root","startTime":1000,"duration":5},
{"traceID":"ABC","spanID":"0F0","operationName":"child","references":[{"refType":"CHILD_OF","spanID":"f"},{"refType":"CHILD_OF","traceID":"123","spanID":"e"}],"startTime":1001,"duration":2}]}`
	recs, st := importBytes(t, ReadJaeger, "x", []byte(in))
	require.Empty(t, st.Problems)
	require.Len(t, recs, 2)
	child := recs[0].Span
	assert.Equal(t, "00000000000000000000000000000abc", child.TraceID().String())
	assert.Equal(t, "00000000000000f0", child.SpanID().String())
	assert.Equal(t, "000000000000000f", child.ParentSpanID().String())
	require.Equal(t, 1, child.Links().Len(), "a second CHILD_OF is a link")
	assert.Equal(t, "00000000000000000000000000000123", child.Links().At(0).TraceID().String())
	assert.Equal(t, pcommon.Timestamp(1001000), child.StartTimestamp())
	assert.Equal(t, pcommon.Timestamp(1003000), child.EndTimestamp())
}

func FuzzJaeger(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(shapesDir, "jaeger.json"))
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`[{"traceID":"1","spans":[{"spanID":"2","startTime":18446744073709551615,"duration":18446744073709551615,"references":[{"refType":"FOLLOWS_FROM","spanID":"3"}],"tags":[{"key":"x","type":"float64","value":"NaN"}]}]}]`))
	f.Add([]byte(`{"data":{"data":{"data":{"data":{"data":[]}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkFuzz(t, ReadJaeger, data) })
}
