package report

import (
	"fmt"
	"strconv"
	"time"
)

// Duration writes d as a person reads a length of time: microseconds
// under a millisecond, milliseconds with three significant digits under a
// second, seconds with two decimals under a minute, then minutes and
// seconds ("8 m 06 s"), and from an hour on hours, minutes and seconds
// ("8 h 42 m 06 s", never "522 m 6 s"). Each band is rounded before it is
// chosen, so 59.999 s reads "1 m 00 s", not "60.00 s". Negative reads
// "—".
func Duration(d time.Duration) string {
	if d < 0 {
		return "—"
	}
	if us := roundTo(d, time.Microsecond); us < time.Millisecond {
		return strconv.FormatInt(int64(us/time.Microsecond), 10) + " µs"
	}
	for _, b := range []struct {
		unit, below, step time.Duration
		decimals          int
	}{
		{time.Millisecond, 10 * time.Millisecond, 10 * time.Microsecond, 2},
		{time.Millisecond, 100 * time.Millisecond, 100 * time.Microsecond, 1},
		{time.Millisecond, time.Second, time.Millisecond, 0},
		{time.Second, time.Minute, 10 * time.Millisecond, 2},
	} {
		if r := roundTo(d, b.step); r < b.below {
			name := " ms"
			if b.unit == time.Second {
				name = " s"
			}
			return strconv.FormatFloat(float64(r)/float64(b.unit), 'f', b.decimals, 64) + name
		}
	}
	s := int64(roundTo(d, time.Second) / time.Second)
	if s < 3600 {
		return fmt.Sprintf("%d m %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d m %02d s", s/3600, s/60%60, s%60)
}

// roundTo rounds d to a multiple of step, halves up.
func roundTo(d, step time.Duration) time.Duration {
	return (d + step/2) / step * step
}
