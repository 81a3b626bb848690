package failwriter

import (
	"bytes"
	"errors"
	"sync"
)

// ErrFull is the error a Writer made with a nil error returns, worded as a
// full disk so that logs read like the failure it stands for.
var ErrFull = errors.New("no space left on device")

// Writer has room bytes left: a write that does not fit is taken as far
// as it fits, then fails, so the caller is left with a torn line it cannot
// cut back; more room may come later (Free, SetRoom). It is safe for
// concurrent use, since the writers under test write from their own
// goroutines.
type Writer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	room int
	err  error
}

// New returns a Writer with room bytes left that fails with err (ErrFull
// if nil), so a test can assert on its own sentinel with errors.Is.
func New(room int, err error) *Writer {
	if err == nil {
		err = ErrFull
	}
	return &Writer{room: room, err: err}
}

// Write takes p whole if it fits, else as much of it as fits and the
// Writer's error.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) <= w.room {
		w.room -= len(p)
		return w.buf.Write(p)
	}
	k := w.room
	w.room = 0
	w.buf.Write(p[:k])
	return k, w.err
}

// Free adds n bytes of room, as space freed on a disk does.
func (w *Writer) Free(n int) {
	w.mu.Lock()
	w.room += n
	w.mu.Unlock()
}

// SetRoom sets the room left to n, to fail the next write at a chosen
// byte.
func (w *Writer) SetRoom(n int) {
	w.mu.Lock()
	w.room = n
	w.mu.Unlock()
}

// Bytes returns a copy of everything taken so far, torn writes included,
// which is what a reader of the stream would see.
func (w *Writer) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}
