package converter_test

import (
	"testing"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// BenchmarkTally measures the one tally over the benchmark batch, the
// readings already made (as a writer hands them over): the wrapper
// check, failures, token usage and cost per span. The price data is
// loaded before (once per process, not per tally).
func BenchmarkTally(b *testing.B) {
	if _, err := pricing.Default(); err != nil {
		b.Fatal(err)
	}
	recs := converter.Records(benchBatch())
	rds := make([]semconv.Reading, len(recs))
	for i := range recs {
		recs[i].Read(&rds[i])
	}
	b.ReportAllocs()
	cpu := benchcpu.Now()
	for b.Loop() {
		var t converter.Tally
		for i := range recs {
			t.AddReading(recs[i].Span, &rds[i])
		}
		if t.Records() != int64(len(recs)) {
			b.Fatal("lost records")
		}
	}
	benchcpu.Report(b, cpu)
}
