package store

import (
	"errors"
	"fmt"
	"os"
)

// manyFiles is the number of files past which syncFiles syncs the whole
// file system once (where it can) rather than each file: at shutdown,
// ten thousand open traces would otherwise cost ten thousand fsyncs.
const manyFiles = 16

// syncFiles forces the data of paths, files of dir, to disk.
func syncFiles(dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if len(paths) > manyFiles {
		if err := syncFS(dir); err == nil {
			return nil
		}
	}
	var errs []error
	for _, p := range paths {
		errs = append(errs, syncFile(p))
	}
	return errors.Join(errs...)
}

func syncFile(path string) error {
	f, err := openNoFollow(path, os.O_WRONLY)
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
