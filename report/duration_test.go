package report_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/report"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{-time.Second, "—"},
		{0, "0 µs"},
		{420 * time.Microsecond, "420 µs"},
		{999600 * time.Nanosecond, "1.00 ms"},
		{3456 * time.Microsecond, "3.46 ms"},
		{42340 * time.Microsecond, "42.3 ms"},
		{612400 * time.Microsecond, "612 ms"},
		{999600 * time.Microsecond, "1.00 s"},
		{12345 * time.Millisecond, "12.35 s"},
		{59999 * time.Millisecond, "1 m 00 s"},
		{8*time.Minute + 6*time.Second, "8 m 06 s"},
		{522*time.Minute + 6*time.Second, "8 h 42 m 06 s"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1 h 02 m 03 s"},
		{59*time.Minute + 59*time.Second + 600*time.Millisecond, "1 h 00 m 00 s"},
	} {
		assert.Equal(t, c.want, report.Duration(c.in), "%v", c.in)
	}
}
