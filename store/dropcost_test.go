package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestDropCostInTrailer: the cost of model calls dropped before the
// store saw them (Drop) is in the trailer of their trace's artifact,
// by the per-trace drop table, whether the trailer goes out with the
// trace's root or at Close for a trace with nothing but drops: spent_usd
// is what the caller priced (gpt-4o, 2.5 in / 10 out $/MTok: 300 in and
// 100 out is 1,750 µ$), enough alone to cross a $0.001 budget, and an
// unpriced call is counted in unpriced_calls.
func TestDropCostInTrailer(t *testing.T) {
	const want = (300*2.5 + 100*10) / 1e6
	u := semconv.Usage{Input: 300, Output: 100}
	tab, err := pricing.Default()
	require.NoError(t, err)
	var priced, unpriced pricing.Total
	priced.Add(tab.UsageCost("openai", "gpt-4o", time.Now(), u))
	unpriced.Add(tab.UsageCost("openai", "no-such-model-xyz", time.Now(), u))
	require.InDelta(t, want, priced.USD(), 1e-12, "the price data's gpt-4o")
	for _, tc := range []struct {
		name      string
		root      bool // the trace's root is written after the drop
		cost      pricing.Total
		spent     float64
		over      bool
		unpricedN int64
	}{
		{"with its root", true, priced, want, true, 0},
		{"drops only", false, priced, want, true, 0},
		{"with its root, unpriced", true, unpriced, 0, false, 1},
		{"drops only, unpriced", false, unpriced, 0, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir, Header: HeaderOptions{Budget: &artifact.Budget{USD: 0.001}}})
			s.Drop(tid(1), 1, u, tc.cost)
			if tc.root {
				require.NoError(t, s.Write(records(span{trace: 1, id: 1})))
			}
			require.NoError(t, s.Close())
			sum := readSummary(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
			assert.Equal(t, int64(1), sum.Dropped)
			assert.Equal(t, int64(400), sum.Tokens.Total)
			require.NotNil(t, sum.Budget)
			c := sum.Budget.CostBudget
			require.NotNil(t, c)
			assert.InDelta(t, tc.spent, c.SpentUSD, 1e-12, "spent_usd")
			assert.Equal(t, tc.over, c.OverBudgetUSD, "over_budget_usd")
			assert.Equal(t, tc.unpricedN, c.UnpricedCalls, "unpriced_calls")
		})
	}
}

// TestAdoptKeepsDroppedCost: a store that adopts an artifact (a late span
// after a restart) keeps the dollars of the calls dropped before it, which
// its trailer counts but no record holds: the next trailer still has them.
func TestAdoptKeepsDroppedCost(t *testing.T) {
	const want = (300*2.5 + 100*10) / 1e6 // gpt-4o, 300 in and 100 out
	u := semconv.Usage{Input: 300, Output: 100}
	tab, err := pricing.Default()
	require.NoError(t, err)
	for _, tc := range []struct {
		name      string
		model     string
		spent     float64
		unpricedN int64
	}{
		{"priced", "gpt-4o", want, 0},
		{"unpriced", "no-such-model-xyz", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c pricing.Total
			c.Add(tab.UsageCost("openai", tc.model, time.Now(), u))
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir, Header: HeaderOptions{Budget: &artifact.Budget{USD: 0.001}}})
			s.Drop(tid(1), 1, u, c)
			require.NoError(t, s.Write(records(span{trace: 1, id: 1})))
			require.NoError(t, s.Close())

			s2 := newStore(t, Options{Dir: dir})
			require.NoError(t, s2.Write(records(span{trace: 1, id: 2, parent: 1})))
			require.NoError(t, s2.Close())
			sum := readSummary(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
			require.NotNil(t, sum.Budget)
			cb := sum.Budget.CostBudget
			require.NotNil(t, cb)
			assert.Equal(t, int64(2), sum.Records)
			assert.InDelta(t, tc.spent, cb.SpentUSD, 1e-12, "spent_usd")
			assert.Equal(t, tc.spent >= 0.001, cb.OverBudgetUSD, "over_budget_usd")
			// The late record is a model call the data does not price.
			assert.Equal(t, tc.unpricedN+1, cb.UnpricedCalls, "unpriced_calls")
		})
	}
}

// readSummary reads the artifact at path through and returns its trailer.
func readSummary(t *testing.T, path string) *artifact.Summary {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	r := artifact.NewReader(bytes.NewReader(raw))
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	require.Empty(t, r.Problems())
	sum := r.Summary()
	require.NotNil(t, sum)
	return sum
}
