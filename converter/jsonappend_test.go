package converter

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// refAppendTimestamp is appendTimestamp as it was before it wrote two
// digits at a time: the reference its tests hold it to.
func refAppendTimestamp(dst []byte, ns uint64) []byte {
	secs := ns / 1e9
	frac := ns % 1e9
	days := secs / 86400
	rem := secs % 86400
	y, m, d := civilFromDays(int64(days))
	digits := func(dst []byte, v uint64, width int) []byte {
		var b [20]byte
		i := len(b)
		for v > 0 || width > 0 {
			i--
			b[i] = byte('0' + v%10)
			v /= 10
			width--
		}
		return append(dst, b[i:]...)
	}
	dst = append(dst, '"')
	dst = digits(dst, uint64(y), 4)
	dst = append(dst, '-')
	dst = digits(dst, uint64(m), 2)
	dst = append(dst, '-')
	dst = digits(dst, uint64(d), 2)
	dst = append(dst, 'T')
	dst = digits(dst, rem/3600, 2)
	dst = append(dst, ':')
	dst = digits(dst, rem%3600/60, 2)
	dst = append(dst, ':')
	dst = digits(dst, rem%60, 2)
	dst = append(dst, '.')
	dst = digits(dst, frac, 9)
	return append(dst, 'Z', '"')
}

func TestAppendTimestampAgreesWithReference(t *testing.T) {
	edges := []uint64{0, 1, 999_999_999, 1e9, 86400e9 - 1, 951782400e9, 951868800e9 - 1, // 2000-02-29
		1_777_000_000_123_456_789, math.MaxInt64, math.MaxUint64, math.MaxUint64 - 1e9}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		edges = append(edges, r.Uint64())
	}
	var day dayCache
	for i, ns := range edges {
		got := appendTimestamp([]byte("x"), ns)
		require.Equal(t, string(refAppendTimestamp([]byte("x"), ns)), string(got), "%d", ns)
		on := ns
		switch {
		case i%3 == 1 && edges[i-1] < math.MaxUint64-86400e9:
			// Another time on the day before it, which the cache holds;
			// the next one is on another day, which it must follow.
			on = edges[i-1] - edges[i-1]%86400e9 + ns%86400e9
		case i%3 == 2 && edges[i-1] < math.MaxUint64-60e9:
			// Another time in the minute before it.
			on = edges[i-1] - edges[i-1]%60e9 + ns%60e9
		}
		require.Equal(t, string(refAppendTimestamp([]byte("x"), on)), string(appendTimestampOn([]byte("x"), on, &day)), "%d", on)
		if ns <= math.MaxInt64 {
			want := `x"` + time.Unix(0, int64(ns)).UTC().Format("2006-01-02T15:04:05.000000000Z") + `"`
			require.Equal(t, want, string(got), "%d", ns)
		}
	}
}

// FuzzAppendTimestamp holds appendTimestamp to the reference on any time.
func FuzzAppendTimestamp(f *testing.F) {
	f.Add(uint64(0))
	f.Add(uint64(math.MaxUint64))
	f.Add(uint64(1_777_000_000_123_456_789))
	var day dayCache
	f.Fuzz(func(t *testing.T, ns uint64) {
		require.Equal(t, string(refAppendTimestamp(nil, ns)), string(appendTimestamp(nil, ns)))
		require.Equal(t, string(refAppendTimestamp(nil, ns)), string(appendTimestampOn(nil, ns, &day)))
	})
}
