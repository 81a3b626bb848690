//go:build !unix

package store

import "os"

// openAppend opens path with flags.
func openAppend(path string, flags int) (file, error) {
	return os.OpenFile(path, flags, 0o644)
}
