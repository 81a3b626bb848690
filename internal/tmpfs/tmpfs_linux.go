//go:build linux

package tmpfs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Mount mounts a tmpfs of size bytes at a new directory, unmounted at
// cleanup, or skips the test where mounting is not allowed (not root, no
// CAP_SYS_ADMIN): a full disk cannot be had otherwise without filling the
// machine's own.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("full disk: cannot mount a tmpfs here (needs root on Linux): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// FreeBytes returns the bytes an unprivileged writer may still use on the
// file system of path, which is what a test awaits to know the disk is
// full.
func FreeBytes(t testing.TB, path string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(path, &st))
	return int64(st.Bavail) * int64(st.Bsize)
}

// Fill writes a ballast file of all but leave bytes of the file system of
// dir and returns its path: removing it frees the space again.
func Fill(t testing.TB, dir string, leave int64) string {
	t.Helper()
	p := filepath.Join(dir, "ballast")
	f, err := os.Create(p)
	require.NoError(t, err)
	defer f.Close()
	n := FreeBytes(t, dir) - leave
	chunk := make([]byte, 64<<10)
	for n > 0 {
		w, err := f.Write(chunk[:min(int64(len(chunk)), n)])
		require.NoError(t, err)
		n -= int64(w)
	}
	return p
}
