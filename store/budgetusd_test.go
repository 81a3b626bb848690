package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// The token and the cost budget each come from the first that sets it: a
// local root span's attribute, the resource's, the writer's.
func TestHeaderCostBudget(t *testing.T) {
	tests := []struct {
		name            string
		rootUSD, resUSD any // attribute values; nil: not set
		rootTokens      int64
		writer          *artifact.Budget
		want            *artifact.Budget
	}{
		{name: "none", want: nil},
		{name: "writer's", writer: &artifact.Budget{USD: 2.5, WarnThreshold: 0.5}, want: &artifact.Budget{USD: 2.5, WarnThreshold: 0.5}},
		{name: "resource over writer", resUSD: 1.25, writer: &artifact.Budget{Tokens: 900, USD: 2.5}, want: &artifact.Budget{Tokens: 900, USD: 1.25}},
		{name: "root over resource", rootUSD: 0.5, resUSD: 1.25, writer: &artifact.Budget{USD: 2.5}, want: &artifact.Budget{USD: 0.5}},
		{name: "an integer number of dollars", resUSD: int64(3), want: &artifact.Budget{USD: 3}},
		{name: "root tokens keep the writer's dollars", rootTokens: 20, writer: &artifact.Budget{Tokens: 1000, USD: 2.5, WarnThreshold: 0.5}, want: &artifact.Budget{Tokens: 20, USD: 2.5, WarnThreshold: 0.5}},
		{name: "negative is none", resUSD: -1.0, writer: &artifact.Budget{USD: 2.5}, want: &artifact.Budget{USD: 2.5}},
		{name: "a string is none", resUSD: "2", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})
			if tt.resUSD != nil {
				require.NoError(t, recs[0].Resource.Attributes().PutEmpty(semconv.BudgetUSD).FromRaw(tt.resUSD))
			}
			root := recs[0].Span // records sorts by end: the root ends first here
			require.True(t, root.ParentSpanID().IsEmpty())
			if tt.rootUSD != nil {
				require.NoError(t, root.Attributes().PutEmpty(semconv.BudgetUSD).FromRaw(tt.rootUSD))
			}
			if tt.rootTokens > 0 {
				root.Attributes().PutInt(semconv.BudgetTokens, tt.rootTokens)
			}
			m := Header(TraceKey(tid(1)), recs, HeaderOptions{Budget: tt.writer})
			assert.Equal(t, tt.want, m.Budget)
		})
	}
}

// A store that adopts an artifact (a restart, a late span) keeps its cost
// budget: the next trailer judges the dollars against it.
func TestAdoptKeepsCostBudget(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Header: HeaderOptions{Budget: &artifact.Budget{USD: 0.0002}}})
	chats := func(ids ...byte) []artifact.Record {
		var sp []span
		for _, id := range ids {
			sp = append(sp, span{trace: 1, id: id, parent: 1})
		}
		recs := records(sp...)
		for i := range recs { // gpt-4o: 10 × 2.5 + 5 × 10 = 75 $/M a call
			recs[i].Span.Attributes().PutStr(semconv.ProviderName, "openai")
			recs[i].Span.Attributes().PutStr(semconv.RequestModel, "gpt-4o")
		}
		return recs
	}
	require.NoError(t, s.Write(append(chats(2, 3), records(span{trace: 1, id: 1})...)))
	require.NoError(t, s.Close())

	s2 := newStore(t, Options{Dir: dir})
	require.NoError(t, s2.Write(chats(4)))
	require.NoError(t, s2.Close())
	a := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	require.NotNil(t, a.summary.Budget)
	// Three calls, $0.000225, over $0.0002.
	assert.Equal(t, &artifact.CostBudget{BudgetUSD: 0.0002, SpentUSD: 0.000225, OverBudgetUSD: true}, a.summary.Budget.CostBudget)
}
