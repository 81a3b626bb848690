// Written by hand as mdatagen would generate it (mdatagen could not be
// installed here).

package redactprocessor

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
