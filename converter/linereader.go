package converter

import (
	"bytes"
	"io"
	"unsafe"
)

// lineReader splits its input into lines held in large blocks that are
// never reused or written again once filled. That lets the decoder take
// string values as slices of a block (see decoder.lineStr) instead of
// copying each one: a block lives as long as a span decoded from it does.
type lineReader struct {
	r       io.Reader
	blk     []byte // blk[pos:n] is read and not yet returned
	pos, n  int
	maxLine int
	eof     bool
	err     error
}

// Blocks start small (many artifacts are) and double up to maxBlock; a
// longer line gets a block of its own size.
const (
	minBlock = 64 << 10
	maxBlock = 1 << 20
)

// next returns the next line without its newline, as bytes and as a string
// over the same memory; whether it ended with a newline; and io.EOF at the
// end, ErrLineTooLong for a line longer than maxLine (skipped), or a read
// error.
func (lr *lineReader) next() (line []byte, str string, complete bool, err error) {
	skipping := false // inside a line too long to keep
	for {
		if i := bytes.IndexByte(lr.blk[lr.pos:lr.n], '\n'); i >= 0 {
			start, end := lr.pos, lr.pos+i
			lr.pos = end + 1
			if skipping || end-start > lr.maxLine {
				return nil, "", true, ErrLineTooLong
			}
			return lr.view(start, end)
		}
		if lr.n-lr.pos > lr.maxLine {
			// Too long to keep: drop what we have and look for its end.
			skipping = true
			lr.pos = lr.n
		}
		if lr.eof || lr.err != nil {
			if lr.pos == lr.n {
				if skipping {
					return nil, "", false, ErrLineTooLong
				}
				if lr.err != nil {
					return nil, "", false, lr.err
				}
				return nil, "", false, io.EOF
			}
			start, end := lr.pos, lr.n
			lr.pos = lr.n
			if skipping {
				return nil, "", false, ErrLineTooLong
			}
			line, str, _, _ = lr.view(start, end)
			return line, str, false, nil
		}
		lr.fill()
	}
}

func (lr *lineReader) view(start, end int) ([]byte, string, bool, error) {
	line := lr.blk[start:end:end]
	if len(line) == 0 {
		return line, "", true, nil
	}
	// The block's filled bytes are never written again, so a string may
	// share them.
	return line, unsafe.String(&line[0], len(line)), true, nil
}

// fill reads more input, moving a partial line to a new block when the
// current one is full (the old block stays intact for the strings that
// share it).
func (lr *lineReader) fill() {
	if lr.n == len(lr.blk) {
		rest := lr.n - lr.pos
		size := max(min(2*len(lr.blk), maxBlock), minBlock, 2*rest)
		nb := make([]byte, size)
		copy(nb, lr.blk[lr.pos:lr.n])
		lr.blk, lr.pos, lr.n = nb, 0, rest
	}
	m, err := lr.r.Read(lr.blk[lr.n:])
	lr.n += m
	if err == io.EOF {
		lr.eof = true
	} else if err != nil {
		lr.err = err
	}
}
