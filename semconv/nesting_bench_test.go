package semconv

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
)

// BenchmarkNestingParentFirst is the usage rule over the converter's
// benchmark batch shape (converter/bench_test.go benchBatch): per trace an
// agent reporting the sum of its calls, listed first, then 3 chats (each a
// late child correcting it), 2 tools and an HTTP span under a tool.
func BenchmarkNestingParentFirst(b *testing.B) {
	type end struct {
		span, parent pcommon.SpanID
		kind         Kind
		u            Usage
	}
	var ends []end
	var traces []pcommon.TraceID
	for t := range 100 {
		sid := func(i int) pcommon.SpanID { return pcommon.SpanID{byte(i), byte(t), byte(t >> 8), 7} }
		traces = append(traces, pcommon.TraceID{byte(t), byte(t >> 8), 1})
		ends = append(ends, end{sid(0), pcommon.SpanID{}, Agent, Usage{Input: 4200, Output: 600}})
		for c := range 3 {
			ends = append(ends, end{sid(1 + c), sid(0), Inference, Usage{Input: 1400, Output: 200, CacheRead: 512}})
		}
		ends = append(ends, end{sid(4), sid(0), Call, Usage{}}, end{sid(5), sid(0), Call, Usage{}}, end{sid(6), sid(4), Span, Usage{}})
	}
	b.ReportAllocs()
	cpu := benchcpu.Now()
	for b.Loop() {
		var n Nesting
		var total Usage
		for i, e := range ends {
			got := n.End(traces[i/7], e.span, e.parent, e.kind, e.u)
			total.Add(got.Counts)
			if got.Undo != nil {
				total.Sub(*got.Undo)
			}
		}
		if total.Input != 100*4200 {
			b.Fatalf("input %d", total.Input)
		}
	}
	benchcpu.Report(b, cpu)
}
