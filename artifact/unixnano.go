package artifact

import (
	"math"
	"time"
)

// UnixNano is the time an OTLP timestamp (uint64 nanoseconds since the
// epoch) stands for, for a header's or a trailer's time. time.Unix takes
// an int64: a timestamp of 2^63 ns or more wrapped to 1677, which the
// encoder then wrote as 1970 while the records, encoded from the uint64
// itself, said 2262 or later. Clamped to the latest time an int64 holds
// (2262-04-11T23:47:16.854775807Z), a header's start stays no later than
// its records', and neither it nor a trailer's end lands centuries
// before them.
func UnixNano(ns uint64) time.Time {
	return time.Unix(0, int64(min(ns, math.MaxInt64))).UTC()
}
