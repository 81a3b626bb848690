package store

import (
	"strings"
	"syscall"
	"unsafe"
)

// sysOpen is syscall.Open without its allocation: the path goes to the
// kernel from a buffer on the stack (a trace's artifact opens a file per
// trace). A path too long for the buffer, or holding a NUL, goes through
// syscall.Open.
func sysOpen(path string, flags int, mode uint32) (int, error) {
	var buf [512]byte
	if len(path) >= len(buf) || strings.IndexByte(path, 0) >= 0 {
		return syscall.Open(path, flags, mode)
	}
	copy(buf[:], path) // NUL-terminated: the rest of buf is zero
	atFDCWD := -100    // AT_FDCWD
	fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&buf[0])), uintptr(flags|syscall.O_LARGEFILE), uintptr(mode), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}
