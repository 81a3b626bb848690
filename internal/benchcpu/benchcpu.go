// Package benchcpu measures the CPU time a benchmark uses, for the
// project's benchmarks to report beside wall time. On a shared machine
// wall time per op swings with the load (±40% and more on the 2-core
// machines this project is measured on); the process's CPU time per op
// holds still enough to compare old and new code. It is test support:
// nothing outside _test.go files imports it.
package benchcpu

import (
	"testing"
	"time"
)

// Now is the CPU time the process has used so far, user and system, on
// all its threads; 0 where the system does not say (then Report reports
// nothing).
func Now() time.Duration { return now() }

// Report reports the CPU time per op used since start (from Now) as
// cpu-ns/op.
func Report(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(Now()-start)/float64(b.N), "cpu-ns/op")
	}
}
