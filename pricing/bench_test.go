package pricing

import (
	"testing"
	"time"

	"github.com/agenttrace/agenttrace/semconv"
)

// BenchmarkUsageCost is what pricing one model call costs a report or the
// bridge once the model is in the lookup cache.
func BenchmarkUsageCost(b *testing.B) {
	tb := table(b)
	at := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	u := semconv.Usage{Input: 10_000, Output: 1_000, CacheRead: 4_000}
	b.ReportAllocs()
	for b.Loop() {
		tb.UsageCost("anthropic", "claude-sonnet-4-20250514", at, u)
	}
}

// BenchmarkLookupUncached is the match against the data that the cache
// saves: every provider's and model's matchers in turn.
func BenchmarkLookupUncached(b *testing.B) {
	tb := table(b)
	b.ReportAllocs()
	for b.Loop() {
		tb.lookup("gcp.vertex_ai", "gemini-2.5-pro")
	}
}

// BenchmarkLoad is what the first priced report of a process pays: the
// vendored data decoded and its matchers compiled.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(embedded, DataFile); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPricerUsageCost is what the tally pays per model call: the
// model remembered from the call before, so no lookup at all.
func BenchmarkPricerUsageCost(b *testing.B) {
	p := Pricer{Table: table(b)}
	at := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	u := semconv.Usage{Input: 10_000, Output: 1_000, CacheRead: 4_000}
	b.ReportAllocs()
	for b.Loop() {
		p.UsageCost("anthropic", "claude-sonnet-4-20250514", at, u)
	}
}
