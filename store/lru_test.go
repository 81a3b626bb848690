package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenFilesEvictsLeastRecentlyUsed: past max open files, the ones used
// longest ago are marked for closing, in that order; a touch (once files
// have been opened since) keeps a file, a removed one leaves the order,
// and an evicted one touched before it closes comes back in another's
// place.
func TestOpenFilesEvictsLeastRecentlyUsed(t *testing.T) {
	o := newOpenFiles(3)
	arts := make([]*runFile, 8)
	for i := range arts {
		arts[i] = &runFile{path: string(rune('a' + i))}
	}
	names := func(as []*runFile) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.path)
		}
		return out
	}
	for _, a := range arts[:3] {
		o.add(a)
	}
	assert.Empty(t, o.takeEvicted(nil))
	o.add(arts[3]) // opens: 4; a is oldest
	assert.Equal(t, []string{"a"}, names(o.takeEvicted(nil)))
	o.add(arts[4])   // b out
	o.touch(arts[2]) // c aged past max/2+1: to the front
	o.add(arts[5])   // d out, not c
	assert.Equal(t, []string{"b", "d"}, names(o.takeEvicted(nil)))
	o.remove(arts[4]) // e closes on its own
	o.add(arts[6])    // c, f, g open
	assert.Empty(t, o.takeEvicted(nil))
	o.add(arts[7]) // c out
	require.Equal(t, []string{"c"}, names(o.takeEvicted(nil)))
	arts[2].touched = 0 // c aged
	o.touch(arts[2])    // back, f out in its place
	assert.Equal(t, []string{"f"}, names(o.takeEvicted(nil)))
	assert.True(t, o.stillEvicted(arts[5]))
	assert.False(t, o.stillEvicted(arts[2]))
	assert.Equal(t, 3, o.lru.Len())
	assert.Equal(t, []string{"g", "h", "c"}, names(o.lru.Keys())) // oldest first
}
