//go:build !linux

package tmpfs

import "testing"

// Mount skips the test: a tmpfs can be mounted on Linux only.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	t.Skip("full disk: cannot mount a tmpfs here (needs root on Linux)")
	return ""
}

// FreeBytes fails the test: it is reached only after Mount, which skips
// off Linux.
func FreeBytes(t testing.TB, path string) int64 {
	t.Helper()
	t.Fatal("tmpfs: FreeBytes is for Linux only")
	return 0
}

// Fill fails the test: it is reached only after Mount, which skips off
// Linux.
func Fill(t testing.TB, dir string, leave int64) string {
	t.Helper()
	t.Fatal("tmpfs: Fill is for Linux only")
	return ""
}
