package jsonlex

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
)

// refPlainRun is PlainRun as it was before it looked at two words a time
// with exact per-byte flags: the reference TestPlainRunAgrees holds it to.
func refPlainRun(d []byte, i int) int {
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		q := x ^ (ones * '"')
		b := x ^ (ones * '\\')
		if special := (((q - ones) & ^q) | ((b - ones) & ^b) | ((x - ones*0x20) & ^x) | x) & highs; special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// refPlainRunASCII is plainRunASCII a byte at a time.
func refPlainRunASCII(d []byte, i int) int {
	for ; i < len(d); i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// TestPlainRunAgrees tries every byte value at every position of texts
// of every length up to 40, from every start, and two special bytes in a
// row (a borrow from one must not hide or invent the other), for both
// runs.
func TestPlainRunAgrees(t *testing.T) {
	check := func(b []byte, i int) {
		if want, got := refPlainRun(b, i), PlainRun(b, i); got != want { // (require is slow in this loop)
			require.Equal(t, want, got, "PlainRun %q from %d", b, i)
		}
		if want, got := refPlainRunASCII(b, i), plainRunASCII(b, i); got != want {
			require.Equal(t, want, got, "plainRunASCII %q from %d", b, i)
		}
	}
	for n := range 41 {
		for p := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[p] = byte(c)
				for i := 0; i <= n; i++ {
					check(b, i)
				}
				if p+1 < n {
					for _, c2 := range []byte{0, '"', '\\', 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xa2, 0xdc, 0xff} {
						b[p+1] = c2
						check(b, 0)
					}
				}
			}
		}
	}
}

// FuzzPlainRun holds both runs to their references on any bytes.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`plain text, then a "quote"`), 0)
	f.Add([]byte("\x00\x1f\x20\x7f\x80\xff\\\""), 3)
	f.Add([]byte("text in another script: \xa2\xdc\x9f then \\"), 1)
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		require.Equal(t, refPlainRun(b, i), PlainRun(b, i), "%q from %d", b, i)
		require.Equal(t, refPlainRunASCII(b, i), plainRunASCII(b, i), "%q from %d", b, i)
	})
}

func BenchmarkPlainRun(b *testing.B) {
	text := []byte(strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10) + `"`)
	for _, impl := range []struct {
		name string
		f    func([]byte, int) int
	}{{"reference", refPlainRun}, {"plainRun", PlainRun}, {"plainRunASCII", plainRunASCII}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu := benchcpu.Now()
			for b.Loop() {
				if impl.f(text, 0) != len(text)-1 {
					b.Fatal("wrong end")
				}
			}
			benchcpu.Report(b, cpu)
		})
	}
}

// refPrintable is Printable a byte at a time: the reference the word
// version is held to.
func refPrintable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// TestPrintableAgrees tries every byte value at every position of texts
// of every length up to 70 (the tail loop, the single words and the
// four-word rounds), and pairs of bytes that borrow from each other.
func TestPrintableAgrees(t *testing.T) {
	for n := range 71 {
		b := []byte(strings.Repeat("a", n))
		require.True(t, Printable(b))
		for p := range n {
			for c := range 256 {
				b[p] = byte(c)
				if got, want := Printable(b), refPrintable(b); got != want { // (require is slow in this loop)
					require.Equal(t, want, got, "%q", b)
				}
				if p+1 < n {
					for _, c2 := range []byte{0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff} {
						b[p+1] = c2
						if got, want := Printable(b), refPrintable(b); got != want {
							require.Equal(t, want, got, "%q", b)
						}
					}
					b[p+1] = 'a'
				}
			}
			b[p] = 'a'
		}
	}
}

// FuzzPrintable holds Printable to the byte-at-a-time reference.
func FuzzPrintable(f *testing.F) {
	f.Add([]byte(strings.Repeat("Lisbon in March ", 5)))
	f.Add([]byte("\x00\x1f\x20\x7e\x7f\x80\xff\\\""))
	f.Add([]byte(strings.Repeat("x", 40) + "\x1f" + strings.Repeat("y", 9)))
	f.Fuzz(func(t *testing.T, b []byte) {
		require.Equal(t, refPrintable(b), Printable(b), "%q", b)
	})
}
