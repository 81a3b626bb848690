package store

import (
	"errors"
	"sync/atomic"
	"testing"
)

// wrapFiles makes every file the store opens, for the rest of the test,
// the one wrap returns: a disk that fills, tears or refuses writes as the
// test needs, behind the store's own file handling.
func wrapFiles(t *testing.T, wrap func(path string, f file) (file, error)) {
	t.Helper()
	orig := openFile
	t.Cleanup(func() { openFile = orig })
	openFile = func(path string, excl bool) (file, error) {
		f, err := orig(path, excl)
		if err != nil {
			return f, err
		}
		return wrap(path, f)
	}
}

// countErrors returns an OnError that counts the errors that are target
// (errors.Is), and the count, for a test that awaits the store hearing a
// failure.
func countErrors(target error) (*atomic.Int64, func(error)) {
	var n atomic.Int64
	return &n, func(err error) {
		if errors.Is(err, target) {
			n.Add(1)
		}
	}
}
