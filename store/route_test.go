package store

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestGroupRecordsAgreesWithKeys: the grouping that skips a key per record
// when a record's resource or trace is its neighbour's gives, for every
// route, what computing every record's key gives: the same groups, in
// order of first appearance, each record once and in its order. The
// batches mix runs and interleavings of traces, resources with and without
// the attribute (those go by trace), and traces with and without a
// conversation.
func TestGroupRecordsAgreesWithKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		td := ptrace.NewTraces()
		for i := range 3 {
			rs := td.ResourceSpans().AppendEmpty()
			if i < 2 {
				rs.Resource().Attributes().PutStr("service.name", []string{"a", "b"}[r.IntN(2)])
			}
			rs.ScopeSpans().AppendEmpty()
		}
		var recs []artifact.Record
		for i := range 1 + r.IntN(60) {
			rs := td.ResourceSpans().At(r.IntN(3))
			sp := rs.ScopeSpans().At(0).Spans().AppendEmpty()
			trace := byte(r.IntN(5))
			if r.IntN(3) > 0 && i > 0 {
				trace = recs[i-1].Span.TraceID()[0] // a run of one trace
			}
			sp.SetTraceID(pcommon.TraceID{trace, 1})
			sp.SetSpanID(pcommon.SpanID{byte(i), 1})
			recs = append(recs, artifact.Record{Span: sp, Resource: rs.Resource(), Scope: rs.ScopeSpans().At(0).Scope()})
		}
		convs := map[pcommon.TraceID]string{{1, 1}: "c1", {2, 1}: "c1", {3, 1}: "c3"}
		for _, route := range []Route{ByTrace, ByConversation, ByAttribute} {
			got := groupRecords(recs, route, "service.name", convs)
			var want []group
			idx := map[Key]int{}
			for i := range recs {
				k := keyOf(&recs[i], route, "service.name", convs)
				j, ok := idx[k]
				if !ok {
					j = len(want)
					idx[k] = j
					want = append(want, group{key: k})
				}
				want[j].recs = append(want[j].recs, recs[i])
			}
			require.Len(t, got, len(want), "round %d route %d", round, route)
			for g := range want {
				assert.Equal(t, want[g].key, got[g].key, "round %d route %d group %d", round, route, g)
				require.Len(t, got[g].recs, len(want[g].recs), "round %d route %d group %d", round, route, g)
				for i := range want[g].recs {
					assert.Equal(t, want[g].recs[i].Span, got[g].recs[i].Span, "round %d route %d group %d record %d", round, route, g, i)
				}
			}
		}
	}
}
