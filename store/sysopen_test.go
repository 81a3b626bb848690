//go:build unix

package store

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSysOpen: sysOpen creates, refuses and fails as syscall.Open does, for
// a short path, one longer than its stack buffer, and one holding a NUL.
func TestSysOpen(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("d", 200), strings.Repeat("e", 200), strings.Repeat("f", 200))
	require.NoError(t, os.MkdirAll(long, 0o755))
	flags := syscall.O_CREAT | syscall.O_EXCL | syscall.O_WRONLY | syscall.O_APPEND | syscall.O_CLOEXEC
	for _, path := range []string{filepath.Join(dir, "a.jsonl"), filepath.Join(long, "b.jsonl")} {
		fd, err := sysOpen(path, flags, 0o644)
		require.NoError(t, err, path)
		_, err = syscall.Write(fd, []byte("x\n"))
		require.NoError(t, err)
		require.NoError(t, syscall.Close(fd))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "x\n", string(b))
		_, err = sysOpen(path, flags, 0o644)
		assert.ErrorIs(t, err, os.ErrExist, path)
	}
	_, err := sysOpen(filepath.Join(dir, "missing", "c.jsonl"), flags, 0o644)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = sysOpen(dir+"/nul\x00.jsonl", flags, 0o644)
	assert.ErrorIs(t, err, syscall.EINVAL)
}
