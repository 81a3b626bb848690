//go:build !linux

package seaweedtest

import (
	"errors"
	"time"
)

// CPU is the server process's CPU time so far; Linux only.
func (s *Server) CPU() (time.Duration, error) {
	return 0, errors.New("seaweedtest: the server's CPU time is read on Linux only")
}
