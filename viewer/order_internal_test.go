package viewer

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
)

// A wrapper folded into its model call (two instrumentations at once) is
// no node of the waterfall: the call stands in its place, the wrapper's
// record just before it, and the wrapper's other children (here a retry
// span that started before the call) are listed under the call, after
// it, as the page draws them: never before the call they will hang from.
func TestWaterfallOrderFoldsWrappers(t *testing.T) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	id := func(n uint64) pcommon.SpanID {
		var s pcommon.SpanID
		binary.BigEndian.PutUint64(s[:], n)
		return s
	}
	span := func(n, parent uint64, name string, start int, chat bool) {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{1})
		sp.SetSpanID(id(n))
		if parent != 0 {
			sp.SetParentSpanID(id(parent))
		}
		sp.SetName(name)
		sp.SetStartTimestamp(pcommon.Timestamp(1e18 + start))
		sp.SetEndTimestamp(pcommon.Timestamp(1e18 + 100))
		if chat {
			sp.Attributes().PutStr("gen_ai.operation.name", "chat")
			sp.Attributes().PutStr("gen_ai.request.model", "m")
			sp.Attributes().PutInt("gen_ai.usage.input_tokens", 10)
			sp.Attributes().PutInt("gen_ai.usage.output_tokens", 5)
		}
	}
	span(1, 0, "invoke_agent a", 0, false)
	span(2, 1, "chat m (framework)", 10, true) // the wrapper
	span(3, 2, "retry backoff", 11, false)     // the wrapper's other child, first to start
	span(4, 2, "chat m (sdk)", 20, true)       // the call
	recs := artifact.Records(td)
	folds := foldWrappers(converter.NewBatch(recs), recs)
	require.NotNil(t, folds, "the framework span wraps one model call")
	w := waterfallOrder(recs, nil, folds)
	var names []string
	for _, i := range w.order {
		names = append(names, recs[i].Span.Name())
	}
	assert.Equal(t, []string{"invoke_agent a", "chat m (framework)", "chat m (sdk)", "retry backoff"}, names)
}
