//go:build !unix

package semconv

import (
	"testing"
	"time"
)

// CPUTime is 0 where getrusage is missing: ReportCPU then reports nothing.
func CPUTime() time.Duration { return 0 }

// ReportCPU reports the CPU time per op used since start (from CPUTime).
func ReportCPU(b *testing.B, start time.Duration) {}
