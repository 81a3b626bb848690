package store

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// priced makes the chats of recs gpt-4o calls (openai: input 2.5, output
// 10 $/MTok), so each 10-in, 5-out chat costs 25 + 50 = 75 $/M =
// $0.000075.
func priced(recs []artifact.Record) []artifact.Record {
	for i := range recs {
		a := recs[i].Span.Attributes()
		if !recs[i].Span.ParentSpanID().IsEmpty() {
			a.PutStr(semconv.ProviderName, "openai")
			a.PutStr(semconv.RequestModel, "gpt-4o")
		}
	}
	return recs
}

// A root span's cost budget arrives after the header was written (a root
// ends last): the trailer judges the run against it, and keeps the
// writer's token budget beside it.
func TestLateRootCostBudget(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Header: HeaderOptions{Budget: &artifact.Budget{Tokens: 1000}}})
	require.NoError(t, s.Write(priced(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1}))))
	root := records(span{trace: 1, id: 1})
	// Two calls of $0.000075: $0.00015, over a budget of $0.0001.
	root[0].Span.Attributes().PutDouble(semconv.BudgetUSD, 0.0001)
	require.NoError(t, s.Write(root))
	require.NoError(t, s.Close())

	raw, err := os.ReadFile(filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	require.NoError(t, err)
	r := artifact.NewReader(bytes.NewReader(raw))
	for {
		if _, err := r.Next(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	assert.Equal(t, &artifact.Budget{Tokens: 1000, WarnThreshold: 0.8}, r.Meta().Budget, "the header says what was known when written")
	sum := r.Summary()
	require.NotNil(t, sum)
	require.NotNil(t, sum.Budget)
	assert.Equal(t, int64(1000), sum.Budget.BudgetTokens, "the writer's tokens stay")
	assert.False(t, sum.Budget.OverBudget, "30 of 1,000 tokens")
	assert.Equal(t, &artifact.CostBudget{BudgetUSD: 0.0001, SpentUSD: 0.00015, OverBudgetUSD: true}, sum.Budget.CostBudget)
}
