package artifact

import (
	"encoding/hex"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

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
