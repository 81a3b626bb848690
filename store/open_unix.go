//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// noFollow makes an open refuse a symbolic link as the file's own name
// (ELOOP), where the system can say so in the same call.
const noFollow = syscall.O_NOFOLLOW

// symlinkErr turns the error of an open with noFollow that met a symbolic
// link into one that says so (ErrSymlink); any other error is returned as
// it is.
func symlinkErr(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%w: %s", ErrSymlink, path)
	}
	return err
}

// openAppend opens path with flags as a bare descriptor: os.OpenFile
// offers every file to the network poller, which a regular file refuses,
// at four more system calls (fcntl and epoll_ctl) per file, and with one
// artifact per trace files are opened as often as traces end. An artifact
// file needs only write, truncate, sync and close, each one system call.
// A symbolic link at path is refused (ErrSymlink): see openNoFollow.
func openAppend(path string, flags int) (file, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC|noFollow, 0o644)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, symlinkErr(path, &os.PathError{Op: "open", Path: path, Err: err})
		}
		return &rawFile{fd: fd, path: path}, nil
	}
}

// openNoFollow opens path with flag as os.OpenFile does, refusing a
// symbolic link at path (ErrSymlink): an artifact's name in the store's
// folder is never a link, so no record is appended to, and no file read
// back from, a file outside it that someone planted a link to.
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|noFollow, 0o644)
	if err != nil {
		return nil, symlinkErr(path, err)
	}
	return f, nil
}

// rawFile is an open artifact file. Its methods are not safe for
// concurrent use (the artifact's mutex serializes them).
type rawFile struct {
	fd   int
	path string
}

// Write writes all of p, or returns how much it wrote and why not.
func (f *rawFile) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := syscall.Write(f.fd, p[n:])
		if k > 0 {
			n += k
		}
		switch {
		case err == syscall.EINTR || err == syscall.EAGAIN:
			continue
		case err != nil:
			return n, &os.PathError{Op: "write", Path: f.path, Err: err}
		case k == 0:
			return n, &os.PathError{Op: "write", Path: f.path, Err: syscall.EIO}
		}
	}
	return n, nil
}

func (f *rawFile) Truncate(size int64) error {
	return retry("truncate", f.path, func() error { return syscall.Ftruncate(f.fd, size) })
}

func (f *rawFile) Sync() error {
	return retry("sync", f.path, func() error { return syscall.Fsync(f.fd) })
}

func (f *rawFile) Close() error {
	if f.fd < 0 {
		return fmt.Errorf("close %s: %w", f.path, os.ErrClosed)
	}
	err := syscall.Close(f.fd) // never retried: the descriptor is gone either way
	f.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}

func retry(op, path string, call func() error) error {
	for {
		err := call()
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: op, Path: path, Err: err}
		}
		return nil
	}
}
