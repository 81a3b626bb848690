package report_test

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/report"
)

// BenchmarkTokens is a report of a run of 50 agents with 3 model calls
// and a tool call each: what `tokens` and the viewer pay per run, prices
// included.
func BenchmarkTokens(b *testing.B) {
	tb := newTrace()
	models := []string{"gpt-4o", "claude-sonnet-4-20250514", "llama-local"}
	for i := range 50 {
		a := tb.agent(fmt.Sprint("agent", i%7), pcommon.SpanID{})
		for j, m := range models {
			tb.chat(m, a, int64(1000+i), int64(100+j))
		}
		tb.tool("search", a, "result", false)
	}
	recs := tb.records()
	if _, err := pricing.Default(); err != nil { // loaded once per process, not per report
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		report.Tokens(recs, nil)
	}
}
