package store

import (
	"fmt"
	"io"
)

// appendWriter writes b, whole lines, to the Writer of a (Options.Writer).
// A Writer is not a file: what it took of a write that failed part-way
// cannot be cut back, and a newline to close the torn line off would
// leave a bad line mid-stream. So when it takes part of b and fails, the
// rest is held and written first, before anything else, once it takes
// writes again: the stream never holds a torn or glued line, and the
// records of b count as written, since whatever trailer the stream gets
// comes after them. That write does not fail (its records are not the
// caller's to retry or count as dropped); its error goes to OnError. Until
// the held bytes are written, every later write fails as a whole, as to a
// full disk, and Flush and Close return the error; if they never are, the
// stream ends with a torn line and no trailer after it. A Writer that
// fails having taken nothing fails the write, as a file does. a.mu is
// held.
func (s *Store) appendWriter(a *runFile, b []byte) error {
	if err := s.writeHeld(a); err != nil {
		return err
	}
	n, err := a.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	switch {
	case err == nil:
		return nil
	case n <= 0:
		return fmt.Errorf("write artifact: %w", err)
	}
	if n < len(b) {
		a.held = append([]byte(nil), b[n:]...)
	}
	s.handle(fmt.Errorf("write artifact: %w (the %d bytes of %d it did not take are held, to be written first)", err, len(b)-n, len(b)))
	return nil
}

// writeHeld writes what a failed write left held (see appendWriter).
// a.mu is held.
func (s *Store) writeHeld(a *runFile) error {
	if len(a.held) == 0 {
		return nil
	}
	n, err := a.w.Write(a.held)
	if err == nil && n < len(a.held) {
		err = io.ErrShortWrite
	}
	a.held = a.held[max(n, 0):]
	if len(a.held) == 0 {
		a.held = nil
		return nil
	}
	return fmt.Errorf("write artifact: %w (%d bytes of an earlier write still to write)", err, len(a.held))
}
