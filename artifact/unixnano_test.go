package artifact

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestUnixNano: timestamps past what an int64 holds (2^63 ns: April 2262)
// are the latest time.Time an int64 can say, not a wrap to 1677.
func TestUnixNano(t *testing.T) {
	last := time.Unix(0, math.MaxInt64).UTC()
	for _, tc := range []struct {
		ns   uint64
		want time.Time
	}{
		{0, time.Unix(0, 0).UTC()},
		{1_700_000_000_000_000_000, time.Unix(0, 1_700_000_000_000_000_000).UTC()},
		{math.MaxInt64, last},
		{1 << 63, last},
		{math.MaxUint64, last},
	} {
		assert.Equal(t, tc.want, UnixNano(tc.ns), "%d", tc.ns)
	}
}

// TestTallyEndPast2262: a trailer's end follows the same rule as its
// header's start, so a span ending at 2^63 ns or later does not give a
// trailer that ends in 1970 while its records say 2262.
func TestTallyEndPast2262(t *testing.T) {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{1})
	sp.SetName("late")
	sp.SetStartTimestamp(1 << 62)
	sp.SetEndTimestamp(math.MaxUint64)
	var tl Tally
	recs := Records(td)
	tl.Add(&recs[0])
	assert.Equal(t, 2262, tl.Summary(nil).FinishedAt.Year())
}
