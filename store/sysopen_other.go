//go:build unix && !linux

package store

import "syscall"

// sysOpen is syscall.Open.
func sysOpen(path string, flags int, mode uint32) (int, error) {
	return syscall.Open(path, flags, mode)
}
