//go:build unix

package server_test

import "syscall"

// mkfifo makes a named pipe: opening one for reading blocks until a
// writer comes, so the server must never try.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
