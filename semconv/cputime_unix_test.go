//go:build unix

package semconv

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the CPU time the process has used, user and system. On a
// shared machine wall time per op swings with the load; the CPU time a
// benchmark reports next to it (cpu-ns/op, see ReportCPU) holds still
// enough to compare.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports the CPU time per op used since start (from CPUTime).
func ReportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(CPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
}
