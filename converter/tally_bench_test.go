package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// BenchmarkTally measures the tally over the benchmark batch, the
// readings already made as a writer hands them over (the encoder has
// read each span and worked out each tool call's estimate, which the
// reading keeps): the wrapper check, failures, token usage and cost per
// span. The price data is
// loaded before (once per process, not per tally). artifact=one counts
// the batch in one tally (the store's one-artifact pipeline);
// artifact=per-trace in a new tally per trace, as a store with one
// artifact per trace does: there what a tally sets up on its first
// model call (its nesting state, its first price lookup) is paid once
// every seven spans.
func BenchmarkTally(b *testing.B) {
	if _, err := pricing.Default(); err != nil {
		b.Fatal(err)
	}
	recs := artifact.Records(benchBatch())
	rds := make([]semconv.Reading, len(recs))
	for i := range recs {
		recs[i].Read(&rds[i])
		if rds[i].Kind == semconv.Call {
			artifact.CallEstimate(&rds[i], recs[i].Span.Attributes()) // as the encoder does
		}
	}
	// Each trace's records are consecutive in the batch.
	var starts []int
	for i := range recs {
		if i == 0 || recs[i].Span.TraceID() != recs[i-1].Span.TraceID() {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(recs))
	b.Run("artifact=one", func(b *testing.B) {
		b.ReportAllocs()
		cpu := benchcpu.Now()
		for b.Loop() {
			var t artifact.Tally
			for i := range recs {
				t.AddReading(recs[i].Span, &rds[i])
			}
			if t.Records() != int64(len(recs)) {
				b.Fatal("lost records")
			}
		}
		benchcpu.Report(b, cpu)
	})
	b.Run("artifact=per-trace", func(b *testing.B) {
		b.ReportAllocs()
		cpu := benchcpu.Now()
		for b.Loop() {
			for j := range len(starts) - 1 {
				var t artifact.Tally
				for i := starts[j]; i < starts[j+1]; i++ {
					t.AddReading(recs[i].Span, &rds[i])
				}
				if t.Records() != int64(starts[j+1]-starts[j]) {
					b.Fatal("lost records")
				}
			}
		}
		benchcpu.Report(b, cpu)
	})
}

// TestTallyDoesNotAllocatePerSpan: once a tally holds its usage-rule state
// (made on the first span with usage), counting a span allocates nothing,
// whatever the span: the agent a late model call corrects, the calls,
// tools and HTTP spans of the benchmark batch (the hot path of every
// writer).
func TestTallyDoesNotAllocatePerSpan(t *testing.T) {
	_, err := pricing.Default()
	require.NoError(t, err)
	recs := artifact.Records(benchBatch())
	rds := make([]semconv.Reading, len(recs))
	for i := range recs {
		recs[i].Read(&rds[i])
	}
	var tally artifact.Tally
	tally.AddReading(recs[0].Span, &rds[0])
	i := 1
	allocs := testing.AllocsPerRun(len(recs)-2, func() {
		tally.AddReading(recs[i].Span, &rds[i])
		i++
	})
	assert.Zero(t, allocs, "allocations per span")
}
