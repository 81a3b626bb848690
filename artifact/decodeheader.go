package artifact

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrNotHeader is returned by DecodeHeader for a line that is no header.
var ErrNotHeader = errors.New("not a header line")

// DecodeHeader decodes an artifact's header line (its first, without the
// newline): for a reader that needs only the header (a bucket upload's
// key, from the file's start and service) and has the line at hand, where
// a Reader would allocate blocks for the lines after it.
func DecodeHeader(line []byte) (*Meta, error) {
	line = bytes.TrimRight(line, "\r\n")
	// A header has a few dozen keys: a small map, not a Reader's table
	// sized for a file's.
	d := decoder{strs: make(map[string]string, 16)}
	kind, _, err := d.classify(line)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRecord, err)
	}
	if kind != lineMeta {
		return nil, ErrNotHeader
	}
	m, err := d.decodeMeta(line)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	return m, nil
}
