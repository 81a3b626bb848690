//go:build !linux

package redact

// threadCPU has no per-thread CPU time to give here: the benchmarks then
// report wall time only.
func threadCPU() (int64, bool) { return 0, false }
