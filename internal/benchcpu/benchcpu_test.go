package benchcpu

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestNowGrows: work done between two readings shows as CPU time.
func TestNowGrows(t *testing.T) {
	start := Now()
	if start == 0 {
		t.Skip("no CPU time on this system")
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	assert.Greater(t, Now(), start, "spun %d", x)
}

// TestHeapPeakSeesAnAllocation: a block held between the start and the
// end of the sampling shows in the peak.
func TestHeapPeakSeesAnAllocation(t *testing.T) {
	peak := HeapPeak()
	block := make([]byte, 64<<20)
	for i := range block {
		block[i] = byte(i)
	}
	time.Sleep(20 * time.Millisecond) // the sampler's period is 1 ms: samples while it is held
	got := peak()
	runtime.KeepAlive(block)
	assert.GreaterOrEqual(t, got, uint64(64<<20))
}
