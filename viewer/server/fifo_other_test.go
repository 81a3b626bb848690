//go:build !unix

package server_test

import "errors"

// mkfifo is not supported here; the refusal tests go without a FIFO.
func mkfifo(string) error { return errors.ErrUnsupported }
