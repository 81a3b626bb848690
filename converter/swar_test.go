package converter

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refPrintable is printable a byte at a time: the reference the word
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
		require.True(t, printable(b))
		for p := range n {
			for c := range 256 {
				b[p] = byte(c)
				if got, want := printable(b), refPrintable(b); got != want { // (require is slow in this loop)
					require.Equal(t, want, got, "%q", b)
				}
				if p+1 < n {
					for _, c2 := range []byte{0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff} {
						b[p+1] = c2
						if got, want := printable(b), refPrintable(b); got != want {
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

// FuzzPrintable holds printable to the byte-at-a-time reference.
func FuzzPrintable(f *testing.F) {
	f.Add([]byte(strings.Repeat("Lisbon in March ", 5)))
	f.Add([]byte("\x00\x1f\x20\x7e\x7f\x80\xff\\\""))
	f.Add([]byte(strings.Repeat("x", 40) + "\x1f" + strings.Repeat("y", 9)))
	f.Fuzz(func(t *testing.T, b []byte) {
		require.Equal(t, refPrintable(b), printable(b), "%q", b)
	})
}

func TestAppendHexAgrees(t *testing.T) {
	for n := range 41 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*37 + n)
		}
		for _, c := range []byte{0x00, 0x09, 0x0a, 0x0f, 0x90, 0x9a, 0xa9, 0xf0, 0xff} {
			if n > 0 {
				b[n-1] = c
			}
			want := hex.AppendEncode([]byte("x"), b)
			require.Equal(t, string(want), string(appendHex([]byte("x"), b)), "% x", b)
		}
	}
}

// FuzzAppendHex holds appendHex to encoding/hex.
func FuzzAppendHex(f *testing.F) {
	f.Add([]byte("0123456789abcdef"))
	f.Add([]byte{0xff, 0x00, 0x9a, 0xa9, 0x0f, 0xf0, 0x10, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		require.Equal(t, hex.EncodeToString(b), string(appendHex(nil, b)))
	})
}

func TestAppendIntAgrees(t *testing.T) {
	vals := []int64{math.MinInt64, math.MaxInt64, -10000, -1, 99999, 100000}
	for v := int64(-20); v <= 20000; v++ {
		vals = append(vals, v)
	}
	for _, v := range vals {
		if got, want := string(appendInt([]byte("x"), v)), string(strconv.AppendInt([]byte("x"), v, 10)); got != want {
			require.Equal(t, want, got)
		}
	}
}

// FuzzAppendInt holds appendInt to strconv.
func FuzzAppendInt(f *testing.F) {
	f.Add(int64(4200))
	f.Add(int64(-1))
	f.Fuzz(func(t *testing.T, v int64) {
		require.Equal(t, strconv.FormatInt(v, 10), string(appendInt(nil, v)))
	})
}
