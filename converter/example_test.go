package converter_test

import (
	"bytes"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// A chat span becomes one line of an artifact, and comes back the same.
func Example() {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID([16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36})
	sp.SetSpanID([8]byte{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7})
	sp.SetName("chat gpt-4o")
	sp.SetKind(ptrace.SpanKindClient)
	start := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	sp.SetStartTimestamp(pcommonTime(start))
	sp.SetEndTimestamp(pcommonTime(start.Add(1500 * time.Millisecond)))
	a := sp.Attributes()
	a.PutStr(semconv.OperationName, "chat")
	a.PutStr(semconv.ProviderName, "openai")
	a.PutStr(semconv.RequestModel, "gpt-4o")
	a.PutInt(semconv.UsageInputTokens, 120)
	a.PutInt(semconv.UsageOutputTokens, 30)
	a.PutStr(semconv.OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":"Hi!"}],"finish_reason":"stop"}]`)

	recs := artifact.Records(td)
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, artifact.MetaFor(recs))
	for i := range recs {
		_ = w.Write(&recs[i])
	}
	_ = w.Close()
	fmt.Print(buf.String())

	back, err := artifact.NewReader(&buf).ReadTraces()
	fmt.Println(err, back.SpanCount())
	// Output:
	// {"v":1,"kind":"meta","started_at":"2026-11-21T08:00:00.000000000Z","producer":"agenttrace/0.1.0","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}
	// {"kind":"inference","name":"chat gpt-4o","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","span_kind":"client","op":"chat","started_at":"2026-11-21T08:00:00.000000000Z","finished_at":"2026-11-21T08:00:01.500000000Z","elapsed_ms":1500,"ok":true,"provider":"openai","model":"gpt-4o","usage":{"input_tokens":120,"output_tokens":30},"output":[{"role":"assistant","parts":[{"type":"text","content":"Hi!"}],"finish_reason":"stop"}],"estimated_tokens":150,"aliases":{"model":"gen_ai.request.model"}}
	// {"kind":"summary","finished_at":"2026-11-21T08:00:01.500000000Z","complete":true,"records":1,"calls":0,"inferences":1,"agents":0,"spans":0,"errors":0,"tokens":{"input":120,"output":30,"cache_read":0,"cache_creation":0,"reasoning":0,"total":150},"dropped":0}
	// <nil> 1
}

func pcommonTime(t time.Time) pcommon.Timestamp { return pcommon.NewTimestampFromTime(t) }
