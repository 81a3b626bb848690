package server_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: a live stream ends when its
// client leaves or the Server shuts down.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
