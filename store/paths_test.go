package store

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPathsKeepsTheMostRecent: Paths remembers the MaxTrackedPaths paths
// written last, so that TrackPaths does not grow by a path per trace in a
// process that runs for days; a path written again counts as recent.
func TestPathsKeepsTheMostRecent(t *testing.T) {
	s := &Store{paths: newPathSet()}
	name := func(i int) string { return fmt.Sprintf("/runs/%05d.jsonl", i) }
	s.addPath(name(0))
	for i := 1; i < MaxTrackedPaths+2; i++ { // two more than it keeps
		s.addPath(name(i))
		if i == 2 {
			s.addPath(name(0)) // written again: recent
		}
	}
	got := s.Paths()
	has := func(p string) bool { return slices.Contains(got, p) }
	assert.Len(t, got, MaxTrackedPaths)
	assert.True(t, has(name(0)), "written again after 1 and 2")
	assert.False(t, has(name(1)), "the least recently written go first")
	assert.False(t, has(name(2)), "the least recently written go first")
	assert.True(t, has(name(3)))
	assert.True(t, has(name(MaxTrackedPaths+1)))
	assert.True(t, slices.IsSorted(got))
}
