package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// batch builds one trace of chat spans: id -> parent, ended in order,
// each reporting input tokens = 10 * id.
func batch(t *testing.T, spans [][2]byte, kinds map[byte]string) ptrace.Traces {
	t.Helper()
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{7})
		sp.SetSpanID(pcommon.SpanID{s[0]})
		if s[1] != 0 {
			sp.SetParentSpanID(pcommon.SpanID{s[1]})
		}
		sp.SetStartTimestamp(pcommon.Timestamp(100 - i))
		sp.SetEndTimestamp(pcommon.Timestamp(1000 + i))
		op := kinds[s[0]]
		if op == "" {
			op = "chat"
		}
		sp.Attributes().PutStr(semconv.OperationName, op)
		sp.Attributes().PutInt(semconv.UsageInputTokens, 10*int64(s[0]))
		sp.Attributes().PutInt(semconv.UsageOutputTokens, 1)
	}
	return td
}

// TestWrappers: a model call with a model call below it is a wrapper,
// in the batch view and in the streaming tally, whichever ends first.
func TestWrappers(t *testing.T) {
	cases := []struct {
		name    string
		spans   [][2]byte // span, parent; in the order they end
		kinds   map[byte]string
		wrapper map[byte]bool
		input   int64 // the tally's input tokens
	}{
		{"embeddings batch around two chunks", [][2]byte{{2, 1}, {3, 1}, {1, 0}},
			map[byte]string{1: "embeddings", 2: "embeddings", 3: "embeddings"}, map[byte]bool{1: true}, 50},
		{"framework chat around the SDK's chat, child ending last", [][2]byte{{1, 0}, {2, 1}},
			nil, map[byte]bool{1: true}, 20},
		{"a tool span between", [][2]byte{{3, 2}, {2, 1}, {1, 0}},
			map[byte]string{2: "execute_tool"}, map[byte]bool{1: true}, 30},
		{"agent above two calls", [][2]byte{{2, 1}, {3, 1}, {1, 0}},
			map[byte]string{1: "invoke_agent"}, map[byte]bool{}, 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := artifact.Records(batch(t, tc.spans, tc.kinds))
			w := converter.Wrappers(recs)
			var tally artifact.Tally
			for i := range recs {
				id := recs[i].Span.SpanID()[0]
				assert.Equal(t, tc.wrapper[id], w[i], "span %d", id)
				tally.Add(&recs[i])
			}
			s := tally.Summary(nil)
			assert.Equal(t, tc.input, s.Tokens.Input)
			var leaves int64
			for i := range recs {
				var rd semconv.Reading
				recs[i].Read(&rd)
				if rd.Kind == semconv.Inference && !w[i] {
					leaves++
				}
			}
			assert.Equal(t, leaves, s.Inferences, "the tally counts the leaves the batch finds")
			assert.Len(t, converter.ModelCalls(recs), int(leaves))
		})
	}
}

// A leaf without content takes its one wrapper's conversation.
func TestModelCallsBorrowFromTheirWrapper(t *testing.T) {
	td := batch(t, [][2]byte{{2, 1}, {1, 0}}, nil)
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.At(1).Attributes().PutStr(semconv.InputMessages, `[{"role":"user","parts":[{"type":"text","content":"hi"}]}]`)
	calls := converter.ModelCalls(artifact.Records(td))
	require.Len(t, calls, 1)
	require.Len(t, calls[0].Conversation.Input, 1)
	assert.Equal(t, "hi", calls[0].Conversation.Input[0].Text())
}

// TestFailed: a span fails once, whatever says so.
func TestFailed(t *testing.T) {
	cases := []struct {
		name string
		set  func(sp ptrace.Span)
		want bool
	}{
		{"status error", func(sp ptrace.Span) { sp.Status().SetCode(ptrace.StatusCodeError) }, true},
		{"exception event only", func(sp ptrace.Span) { sp.Events().AppendEmpty().SetName("exception") }, true},
		{"finish reason error only", func(sp ptrace.Span) {
			sp.Attributes().PutEmptySlice(semconv.ResponseFinishReasons).AppendEmpty().SetStr("error")
		}, true},
		{"Langfuse level only", func(sp ptrace.Span) {
			sp.Attributes().PutStr(semconv.LFObservationType, "generation")
			sp.Attributes().PutStr(semconv.LFLevel, "ERROR")
		}, true},
		{"status error and an exception: still one", func(sp ptrace.Span) {
			sp.Status().SetCode(ptrace.StatusCodeError)
			sp.Events().AppendEmpty().SetName("exception")
		}, true},
		{"ok", func(sp ptrace.Span) { sp.Status().SetCode(ptrace.StatusCodeOk) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			td := batch(t, [][2]byte{{1, 0}}, nil)
			tc.set(td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0))
			recs := artifact.Records(td)
			var rd semconv.Reading
			recs[0].Read(&rd)
			assert.Equal(t, tc.want, artifact.Failed(recs[0].Span, &rd))
			var tally artifact.Tally
			tally.Add(&recs[0])
			want := int64(0)
			if tc.want {
				want = 1
			}
			assert.Equal(t, want, tally.Summary(nil).Errors)
		})
	}
}
