//go:build !linux

package store

import "errors"

// syncFS is not available here: syncFiles syncs file by file.
func syncFS(string) error { return errors.ErrUnsupported }
