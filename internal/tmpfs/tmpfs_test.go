package tmpfs_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/tmpfs"
)

// TestFillThenFree: the ballast leaves about the bytes asked for, and
// removing it gives the space back (skipped where a tmpfs cannot be
// mounted).
func TestFillThenFree(t *testing.T) {
	disk := tmpfs.Mount(t, 4<<20)
	before := tmpfs.FreeBytes(t, disk)
	ballast := tmpfs.Fill(t, disk, 64<<10)
	left := tmpfs.FreeBytes(t, disk)
	assert.LessOrEqual(t, left, int64(64<<10), "filled to what was left")
	require.NoError(t, os.Remove(ballast))
	assert.Equal(t, before, tmpfs.FreeBytes(t, disk), "the space is back")
}
