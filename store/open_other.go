//go:build !unix

package store

import (
	"fmt"
	"os"
)

// openAppend opens path with flags; a symbolic link at path is refused
// (ErrSymlink), checked just before the open.
func openAppend(path string, flags int) (file, error) {
	return openNoFollow(path, flags)
}

// openNoFollow opens path with flag unless it is a symbolic link
// (ErrSymlink). Without O_NOFOLLOW the check comes just before the open.
func openNoFollow(path string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: %s", ErrSymlink, path)
	}
	return os.OpenFile(path, flag, 0o644)
}
