package converter_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// failTree builds one trace: an agent span (1) that failed, and below it
// the spans of calls, each id -> parent with its operation and what it
// returned.
type failSpan struct {
	id, parent byte
	op         string
	output     string // gen_ai.output.messages, "" for none
	usage      int64
	failed     bool
}

func failTree(spans []failSpan) []artifact.Record {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for _, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{5})
		sp.SetSpanID(pcommon.SpanID{s.id})
		if s.parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{s.parent})
		}
		sp.Attributes().PutStr(semconv.OperationName, s.op)
		if s.output != "" {
			sp.Attributes().PutStr(semconv.OutputMessages, s.output)
		}
		if s.usage > 0 {
			sp.Attributes().PutInt(semconv.UsageInputTokens, s.usage)
		}
		if s.failed {
			sp.Status().SetCode(ptrace.StatusCodeError)
		}
	}
	return artifact.Records(td)
}

// TestFailures: a model call that returned nothing fails with the span
// around it when it is that span's only model call; one that returned
// something, or shares the span with another call, does not.
func TestFailures(t *testing.T) {
	agent := failSpan{id: 1, op: "invoke_agent", failed: true}
	empty := `[{"role":"assistant","parts":[{"type":"text","content":""}]}]`
	answer := `[{"role":"assistant","parts":[{"type":"text","content":"Hi"}]}]`
	cases := []struct {
		name  string
		spans []failSpan
		want  map[byte]bool
	}{
		{"the only call, with nothing", []failSpan{agent, {id: 2, parent: 1, op: "chat"}},
			map[byte]bool{1: true, 2: true}},
		{"the only call, an empty answer, through a plain span", []failSpan{agent, {id: 3, parent: 1, op: "step"}, {id: 2, parent: 3, op: "chat", output: empty}},
			map[byte]bool{1: true, 2: true}},
		{"the only call answered", []failSpan{agent, {id: 2, parent: 1, op: "chat", output: answer}},
			map[byte]bool{1: true}},
		{"the only call reported usage", []failSpan{agent, {id: 2, parent: 1, op: "chat", usage: 5}},
			map[byte]bool{1: true}},
		{"two calls: neither is the failure", []failSpan{agent, {id: 2, parent: 1, op: "chat"}, {id: 3, parent: 1, op: "chat"}},
			map[byte]bool{1: true}},
		{"the span around is fine", []failSpan{{id: 1, op: "invoke_agent"}, {id: 2, parent: 1, op: "chat"}},
			map[byte]bool{}},
		{"the call says it failed itself", []failSpan{agent, {id: 2, parent: 1, op: "chat", failed: true}},
			map[byte]bool{1: true, 2: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := failTree(tc.spans)
			got := converter.Failures(recs)
			for i := range recs {
				id := recs[i].Span.SpanID()[0]
				assert.Equal(t, tc.want[id], got[i], "span %d", id)
			}
		})
	}
}

// TestFailuresReal: @mastra/arize 1.3.8 marks the rate-limited call's
// failure on its agent span only (testdata/real/mastra-arize/expected.json:
// failed_model_calls 1); the model call below, which returned nothing,
// fails with it, and nothing else does.
func TestFailuresReal(t *testing.T) {
	raw, err := os.ReadFile("../testdata/real/mastra-arize/payloads/fail.traces.pb")
	require.NoError(t, err)
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	recs := artifact.Records(td)
	failed := converter.Failures(recs)
	wrappers := converter.Wrappers(recs)
	var rd semconv.Reading
	var calls, failedCalls int
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind == semconv.Inference && !wrappers[i] {
			calls++
			if failed[i] {
				failedCalls++
				assert.False(t, artifact.Failed(recs[i].Span, &rd), "the span itself says OK")
			}
		}
	}
	require.Equal(t, 1, calls)
	assert.Equal(t, 1, failedCalls)
}
