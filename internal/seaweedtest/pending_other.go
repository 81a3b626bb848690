//go:build !linux

package seaweedtest

import "errors"

// PendingBytes is known on Linux only (/proc/net/tcp).
func (s *Server) PendingBytes() (int64, error) {
	return 0, errors.New("seaweedtest: PendingBytes needs Linux's /proc/net/tcp")
}

// stopped cannot be known without Linux's /proc: taken as stopped.
func stopped(int) bool { return true }
