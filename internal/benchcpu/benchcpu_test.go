package benchcpu

import (
	"testing"

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
