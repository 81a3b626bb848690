package server

import (
	"math"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/report"
)

// TestParseDollars: a cost filter is a number of dollars, 0 or more,
// written as people write it; anything else is no filter.
func TestParseDollars(t *testing.T) {
	tests := []struct {
		in   string
		usd  float64
		isOK bool
	}{
		{"0.05", 0.05, true},
		{"$1.20", 1.2, true},
		{" $1,250.5 ", 1250.5, true},
		{"0", 0, true},
		{"1e-3", 0.001, true},
		{"", 0, false},
		{"$", 0, false},
		{"-1", 0, false},
		{"lots", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"1e999", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			usd, ok := parseDollars(tt.in)
			assert.Equal(t, tt.isOK, ok)
			assert.InDelta(t, tt.usd, usd, 1e-12)
		})
	}
}

// TestCompareCost: unknown below every known cost, $0 included; a lower
// bound just above the same exact sum.
func TestCompareCost(t *testing.T) {
	usd := func(v float64, unknown int64) report.Cost { return report.Cost{CostUSD: &v, CostUnknown: unknown} }
	unknown := report.Cost{CostUnknown: 2}
	ordered := []report.Cost{unknown, usd(0, 0), usd(0.01, 0), usd(0.01, 1), usd(0.02, 0)}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Equal(t, want, compareCost(ordered[i], ordered[j]), "%d vs %d", i, j)
		}
	}
}

// FuzzListQuery: any query string parses without a panic into a query
// whose cost filters are finite dollars, 0 or more, and which reads back
// the same from its own URL (a sorted, filtered list stays a link).
func FuzzListQuery(f *testing.F) {
	for _, s := range []string{
		"min_cost=0.05&max_cost=%241&sort=cost&dir=asc",
		"q=lisbon&service=a&agent=b&model=c&status=over&since=24h&min_tokens=3,200&min_duration=30s",
		"min_cost=-1&max_cost=NaN&sort=bogus",
		"min_cost=1e400",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q := parseListQuery(v)
		for _, c := range []struct {
			has bool
			usd float64
		}{{q.hasMin, q.minCost}, {q.hasMax, q.maxCost}} {
			if c.has {
				require.False(t, math.IsNaN(c.usd) || math.IsInf(c.usd, 0) || c.usd < 0, "%v", c.usd)
			}
		}
		back, err := url.Parse(q.SortURL(q.Sort))
		require.NoError(t, err)
		again := parseListQuery(back.Query())
		again.Desc = q.Desc // SortURL turns the order round on the sorted column
		require.Equal(t, q, again)
	})
}
