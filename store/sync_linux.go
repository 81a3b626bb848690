package store

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncFS syncs the file system that holds dir, all of it, in one call.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
