package artifact

import (
	"bytes"
	"fmt"
	"io"
	"unsafe"
)

// LineReader reads its input a line at a time with bounded memory. It is
// the one line reader of agenttrace: the artifact [Reader] and the
// importers' line-oriented shapes all read with it, so that they agree on
// what a line is, number lines the same way for problems named
// "file:line", and never hold more than one line however long the input or
// a line in it is.
//
// A line longer than the limit is skipped as it streams past, never held,
// and reported with [ErrLineTooLong]; the last line of an input that does
// not end with a newline is returned with [ErrTornLine], which a reader
// only needs to report when the line does not parse (a crash mid-write
// leaves one). Both keep their line number, and reading goes on with the
// next line. A LineReader is not safe for concurrent use.
type LineReader struct {
	r       io.Reader
	maxLine int
	blk     []byte // blk[pos:n] is read and not yet returned
	pos, n  int
	line    int   // number of the line returned last
	reuse   bool  // write the block again once its lines are returned (see fill)
	eof     bool  // r is drained
	err     error // the read error, once there is one
	errLine int   // the line it cut
	tooLong error // ErrLineTooLong with the limit, made once
	first   int   // the first block's size when the input's is known (0: minBlock)
}

// Blocks start small (many inputs are) and grow as lines need; a kept
// reader's blocks double up to maxBlock, and a longer line gets a block of
// its own size.
const (
	minBlock = 64 << 10
	maxBlock = 1 << 20
)

// NewLineReader returns a LineReader of r that accepts lines of up to
// maxLine bytes, not counting the newline; maxLine <= 0 means
// [DefaultMaxLineSize]. The limit is what bounds memory: a longer line is
// skipped, not buffered.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineSize
	}
	return &LineReader{r: r, maxLine: maxLine, reuse: true}
}

// newKeptLineReader returns a LineReader whose lines stay valid after the
// next call, for the artifact [Reader] (see fill).
func newKeptLineReader(r io.Reader, maxLine int) LineReader {
	return LineReader{r: r, maxLine: maxLine}
}

// Next returns the next line without its line ending ("\n", and any "\r"
// before it). The line is valid until the next call. The error is:
//
//   - nil for a line that ended with a newline;
//   - [ErrTornLine] with the last line when the input ends without a
//     newline, or a read error cuts it short (and comes on the next call):
//     use the line, and report the error only if the line does not parse;
//   - [ErrLineTooLong] (wrapped, with the limit) for a line over the limit,
//     which was skipped: the line is nil and reading goes on;
//   - io.EOF after the last line;
//   - a read error, wrapped with the number of the line it cut, and then
//     returned by every later call.
//
// [LineReader.Line] numbers each line returned, a skipped one included.
func (lr *LineReader) Next() ([]byte, error) {
	line, complete, err := lr.read()
	switch {
	case err == nil && !complete:
		return line, ErrTornLine
	case err == nil || err == io.EOF:
		return line, err
	case err == ErrLineTooLong:
		if lr.tooLong == nil {
			lr.tooLong = fmt.Errorf("%w (%d bytes)", ErrLineTooLong, lr.maxLine)
		}
		return nil, lr.tooLong
	}
	return nil, fmt.Errorf("reading line %d: %w", lr.errLine, err)
}

// Line returns the 1-based number of the line Next returned last, a line
// reported as too long or torn included; 0 before the first.
func (lr *LineReader) Line() int { return lr.line }

// MaxLineSize returns the longest line the LineReader accepts.
func (lr *LineReader) MaxLineSize() int { return lr.maxLine }

// lineString returns a line of a kept LineReader (see fill) as a string
// over the same memory, which that reader never writes again.
func lineString(line []byte) string {
	if len(line) == 0 {
		return ""
	}
	return unsafe.String(&line[0], len(line))
}

// read returns the next line without its line ending and whether it ended
// with a newline; or ErrLineTooLong for a line over the limit (skipped), a
// read error or io.EOF, all unwrapped.
func (lr *LineReader) read() (line []byte, complete bool, err error) {
	skipping := false // inside a line too long to keep
	for {
		if i := bytes.IndexByte(lr.blk[lr.pos:lr.n], '\n'); i >= 0 {
			start, end := lr.pos, lr.pos+i
			lr.pos = end + 1
			lr.line++
			if skipping || end-start > lr.maxLine {
				return nil, true, ErrLineTooLong
			}
			return lr.view(start, end), true, nil
		}
		if lr.n-lr.pos > lr.maxLine {
			// Too long to keep: drop what we have and look for its end.
			skipping = true
			lr.pos = lr.n
		}
		if lr.eof || lr.err != nil {
			if lr.pos == lr.n && !skipping {
				if lr.err != nil {
					return nil, false, lr.err
				}
				return nil, false, io.EOF
			}
			start, end := lr.pos, lr.n
			lr.pos = lr.n
			lr.line++
			if skipping {
				return nil, false, ErrLineTooLong
			}
			return lr.view(start, end), false, nil
		}
		lr.fill()
	}
}

// view returns blk[start:end] without the "\r"s that end it, capped so
// that an append cannot write into the block.
func (lr *LineReader) view(start, end int) []byte {
	for end > start && lr.blk[end-1] == '\r' {
		end--
	}
	return lr.blk[start:end:end]
}

// fill reads more input. When the block is full, the partial line it ends
// with moves to the front of it or, when it fills more than half of it, to
// a block twice the size, up to one that holds the longest line.
//
// A kept reader (the artifact Reader's, see newKeptLineReader) moves it
// to a new block every time instead, and never writes a filled block
// again: so the artifact Reader's decoder can take string values as
// slices of a block (see decoder.lineStr) instead of copying each one,
// and a block lives as long as a span decoded from it does.
func (lr *LineReader) fill() {
	if lr.n == len(lr.blk) {
		rest := lr.n - lr.pos
		switch {
		case len(lr.blk) == 0 && lr.first > 0:
			lr.moveTo(make([]byte, lr.first))
		case !lr.reuse:
			lr.moveTo(make([]byte, max(min(2*len(lr.blk), maxBlock), minBlock, 2*rest)))
		case len(lr.blk) == 0 || 2*rest > len(lr.blk) && len(lr.blk) <= lr.maxLine:
			lr.moveTo(make([]byte, max(minBlock, min(2*len(lr.blk), lr.maxLine+1))))
		default:
			lr.moveTo(lr.blk)
		}
	}
	m, err := lr.r.Read(lr.blk[lr.n:])
	lr.n += m
	if err == io.EOF {
		lr.eof = true
	} else if err != nil {
		lr.err, lr.errLine = err, lr.line+1
	}
}

// moveTo moves the unread bytes to the start of blk and makes it the block.
func (lr *LineReader) moveTo(blk []byte) {
	rest := copy(blk, lr.blk[lr.pos:lr.n])
	lr.blk, lr.pos, lr.n = blk, 0, rest
}
