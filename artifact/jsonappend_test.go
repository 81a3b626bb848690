package artifact

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
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

// refAppendDouble is appendDouble as it was before short decimals were
// written without strconv: the reference its tests hold it to.
func refAppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `{"@double":"NaN"}`...)
	case math.IsInf(f, 1):
		return append(dst, `{"@double":"+Inf"}`...)
	case math.IsInf(f, -1):
		return append(dst, `{"@double":"-Inf"}`...)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return append(dst, s...)
}

// TestAppendDoubleAgrees: the edges of the short-decimal range, numbers
// of up to three decimals (and one more) across it, the neighbours of
// each (one ulp away, which need more digits), and random doubles.
func TestAppendDoubleAgrees(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 0.2, 247.8, 168.4, 0.1 + 0.2, 1e-3, 0.00099999, 1e6, 999999.999,
		999999.9999, 123456.5, 0.0015, 1, 2, 1e5, 0.5e-3, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		k := rng.IntN(5)
		m := rng.Int64N(1_000_000_000)
		vals = append(vals, float64(m)/math.Pow(10, float64(k)), math.Float64frombits(rng.Uint64()), rng.Float64()*1e6)
	}
	for _, v := range vals {
		for _, f := range []float64{v, -v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1))} {
			if want, got := refAppendDouble(nil, f), appendDouble(nil, f); string(got) != string(want) { // (require is slow in this loop)
				require.Equal(t, string(want), string(got), "%v (%x)", f, math.Float64bits(f))
			}
		}
	}
}

// FuzzAppendDouble holds appendDouble to strconv's shortest form on any
// double, and on any number of up to three decimals.
func FuzzAppendDouble(f *testing.F) {
	f.Add(math.Float64bits(0.2), int64(2478), uint8(1))
	f.Add(math.Float64bits(999999.999), int64(999999999), uint8(3))
	f.Fuzz(func(t *testing.T, bits uint64, m int64, k uint8) {
		d := math.Float64frombits(bits)
		require.Equal(t, string(refAppendDouble(nil, d)), string(appendDouble(nil, d)))
		d = float64(m) / math.Pow(10, float64(k%5))
		require.Equal(t, string(refAppendDouble(nil, d)), string(appendDouble(nil, d)))
	})
}
