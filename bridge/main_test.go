package bridge_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: the writer goroutine ends
// with Shutdown.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
