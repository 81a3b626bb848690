package e2eload

import (
	"testing"
	"time"
)

// Await polls cond until it holds, failing the test after timeout: the
// collectors run in other processes, so there is nothing to wait on but
// what they wrote or acknowledged.
func Await(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Poll polls cond every 20 ms until it holds (true) or timeout passes
// (false), for a wait whose failure the test reports itself.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
