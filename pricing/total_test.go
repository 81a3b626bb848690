package pricing

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/semconv"
)

// A Total takes back exactly what it added, whatever the order, and never
// counts an unknown cost as $0 known.
func TestTotal(t *testing.T) {
	costs := []Cost{
		{USD: 0.00325, Source: FromPrices},
		{USD: 0.5, Source: FromSpan},
		{Source: Unknown},
		{USD: 0.0000045, Source: FromPrices},
	}
	var tot Total
	for _, c := range costs {
		tot.Add(c)
	}
	assert.Equal(t, Total{Nanos: 3_250_000 + 500_000_000 + 4_500, Known: 3, FromSpan: 1, Unknown: 1}, tot)
	assert.Equal(t, int64(4), tot.Calls())
	assert.Equal(t, 0.5032545, tot.USD())
	for _, c := range []Cost{costs[1], costs[2], costs[0], costs[3]} {
		tot.Sub(c)
	}
	assert.Equal(t, Total{}, tot)
}

// A Pricer prices as the table does, model after model, remembering only
// the last lookup; its zero value uses the vendored data.
func TestPricerAgreesWithTable(t *testing.T) {
	tb := table(t)
	at := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	u := semconv.Usage{Input: 10_000, Output: 1_000, CacheRead: 4_000}
	calls := []struct{ provider, model string }{
		{"openai", "gpt-4o"}, {"openai", "gpt-4o"}, {"anthropic", "claude-sonnet-4-20250514"},
		{"acme", "acme-private-7b"}, {"openai", "gpt-4o"}, {"", ""}, {"gcp.gemini", "gemini-2.0-flash"},
	}
	var p Pricer // zero: Default
	for _, c := range calls {
		assert.Equal(t, tb.UsageCost(c.provider, c.model, at, u), p.UsageCost(c.provider, c.model, at, u), "%s/%s", c.provider, c.model)
	}
	assert.False(t, p.UsageCost("acme", "acme-private-7b", at, u).Known(), "unknown, not $0")
}

// The table's last-lookup entry answers as a lookup does, whichever
// goroutines price which models at once: each goroutine here alternates
// models, so the entry is replaced under the others' feet (the race
// detector watches), and a model the data does not price stays unpriced.
func TestSpanModelAgreesWithLookup(t *testing.T) {
	tb, err := Load(embedded, DataFile) // a table of its own: Default's entry is shared
	require.NoError(t, err)
	names := []struct{ provider, model string }{
		{"openai", "gpt-4o"}, {"OpenAI", "gpt-4o-2024-08-06"}, {"anthropic.messages", "claude-sonnet-4-20250514"},
		{"acme", "acme-private-7b"}, {"", "gemini-2.0-flash"}, {"vertex_ai", "gemini-2.5-pro"}, {"openai", ""},
	}
	want := make([]*Model, len(names))
	for i, n := range names {
		want[i] = tb.Lookup(semconv.NormalizeProvider(n.provider), n.model)
	}
	require.Nil(t, want[3], "acme is not priced")
	require.NotNil(t, want[0])
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				j := (g + i*(g+1)) % len(names)
				assert.Same(t, want[j], tb.spanModel(names[j].provider, names[j].model, true), "%+v", names[j])
			}
		})
	}
	wg.Wait()
}

// A run that alternates two models switches its Pricer's model on every
// call; that must cost a cached lookup, not an allocation a call.
func TestPricerAlternatingModelsAllocatesNothing(t *testing.T) {
	tb, err := Load(embedded, DataFile)
	require.NoError(t, err)
	p := Pricer{Table: tb}
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	u := semconv.Usage{Input: 1000, Output: 100}
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		if i++; i%2 == 0 {
			p.UsageCost("openai", "gpt-4o", at, u)
		} else {
			p.UsageCost("anthropic", "claude-sonnet-4-20250514", at, u)
		}
	})
	assert.Zero(t, allocs)
	assert.True(t, p.UsageCost("openai", "gpt-4o", at, u).Known())
}
