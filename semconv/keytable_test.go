package semconv

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyTableFindsEveryKey: every key Read notes is found with the id
// the keyIDs map gives it, in few probes, and near misses are not found.
func TestKeyTableFindsEveryKey(t *testing.T) {
	require.Len(t, keyTab.keys, len(keyIDs))
	require.LessOrEqual(t, numKeys, maxKeys, "raise maxKeys") // lookupKeys included
	for k, id := range keyIDs {
		got, ok := keyTab.find(k)
		require.True(t, ok, k)
		assert.Equal(t, id, got, k)
		mid := []byte(k)
		mid[len(k)/2] ^= 1 // a near miss only in the middle
		for _, miss := range []string{k + "x", k[:len(k)-1], "x" + k[1:], k[:len(k)-1] + "\x00", string(mid)} {
			if _, known := keyIDs[miss]; !known {
				_, ok := keyTab.find(miss)
				assert.False(t, ok, "%q", miss)
			}
		}
	}
	for _, k := range []string{"", "a", "gen_ai", "http.request.method", "server.port", "12345678"} {
		_, ok := keyTab.find(k)
		assert.False(t, ok, k)
	}
	// The longest run of occupied slots bounds a miss's probes.
	longest, run := 0, 0
	for i := range 2 * keySlots {
		if keyTab.slot[i%keySlots] != 0 {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	assert.LessOrEqual(t, longest, 8, "the hash crowds the table")
}

// FuzzKeyTable holds keyTab.find to the keyIDs map on any key.
func FuzzKeyTable(f *testing.F) {
	for k := range keyIDs {
		f.Add(k)
		f.Add(k[1:])
	}
	f.Add("")
	f.Fuzz(func(t *testing.T, k string) {
		want, wok := keyIDs[k]
		got, ok := keyTab.find(k)
		require.Equal(t, wok, ok)
		require.Equal(t, want, got)
	})
}

// TestNoKeyIsAMarker: Read counts truncation markers among the keys the
// table does not know, so no key it knows may begin as a marker does.
func TestNoKeyIsAMarker(t *testing.T) {
	for k := range keyIDs {
		assert.False(t, strings.HasPrefix(k, TruncatedPrefix), k)
	}
}
