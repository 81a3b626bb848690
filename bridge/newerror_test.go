package bridge_test

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/store"
)

// nonRootDir names, in a child run of this test binary as an unprivileged
// user, the read-only folder the child must fail to write.
const nonRootDir = "AGENTTRACE_TEST_READONLY_DIR"

// New keeps the store's error in its chain, so a caller can tell a folder
// it may not write from one that is not there.
func TestNewKeepsErrorChain(t *testing.T) {
	t.Run("not a directory", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(file, nil, 0o600))
		_, err := bridge.New(bridge.WithDirectory(filepath.Join(file, "runs"), store.ByTrace))
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ENOTDIR)
	})
	t.Run("unwritable directory", func(t *testing.T) {
		dir := os.Getenv(nonRootDir)
		if dir == "" {
			dir = readOnlyDir(t)
			if os.Geteuid() == 0 {
				// Root writes any folder: ask an unprivileged user.
				runAsNobody(t, dir)
				return
			}
		}
		_, err := bridge.New(bridge.WithDirectory(filepath.Join(dir, "runs"), store.ByTrace))
		require.Error(t, err)
		assert.ErrorIs(t, err, fs.ErrPermission)
	})
}

// readOnlyDir is a folder anyone may enter and nobody but root may write.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	// t.TempDir's folder and its parent are private to the test's user.
	require.NoError(t, os.Chmod(filepath.Dir(base), 0o755))
	require.NoError(t, os.Chmod(base, 0o755))
	dir := filepath.Join(base, "ro")
	require.NoError(t, os.Mkdir(dir, 0o555))
	require.NoError(t, os.Chmod(dir, 0o555))
	return dir
}

// runAsNobody runs the unwritable case again in a copy of this test binary
// as uid/gid 65534, and fails when that run fails.
func runAsNobody(t *testing.T, dir string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(filepath.Dir(dir), "bridge.test")
	copyExecutable(t, self, bin)
	cmd := exec.Command(bin, "-test.run", "^TestNewKeepsErrorChain$/^unwritable_directory$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), nonRootDir+"="+dir)
	cmd.Dir = filepath.Dir(dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "as uid 65534:\n%s", out)
	assert.Contains(t, string(out), "--- PASS: TestNewKeepsErrorChain/unwritable_directory")
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}
