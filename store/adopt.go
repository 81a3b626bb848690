package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
)

// ErrNotAppendable is returned for a file the store will not append to:
// an artifact of a newer schema version, which no reader of this version
// would understand once appended to. The file is left as it is.
var ErrNotAppendable = errors.New("artifact cannot be appended to")

// adopted is what an artifact left on disk holds, for an artifact that
// goes on appending to it (a restarted process, an artifact reopened for
// a late span).
type adopted struct {
	meta        *artifact.Meta
	tally       artifact.Tally
	seen        map[artifact.SpanKey]struct{}
	rootEnded   bool
	trailerLast bool  // the last complete line is a trailer
	size        int64 // after a torn last line was cut off
	cut         int64 // bytes of a torn last line cut off
}

// adopt reads the artifact at path so that the store can continue it. It
// returns nil and no error when there is no such file, or an empty one.
//
// A file whose first line is not a complete header of this version (a
// torn header, a blank line, garbage: what a crash or another program
// left) is not continued: it is renamed aside to path.corrupt-<unix ns>
// and nil is returned, so that a fresh artifact takes the name; setAside
// reports it. A torn last line (a crash mid-write) is cut off, the file
// truncated to the end of its last complete line (adopted.cut says how
// much): write, then count, so the record it held was never counted, and
// the sender's redelivery writes it again whole. Left in place and closed
// off, it would sit mid-file once appended to, and the artifact would
// fail validation for ever. A last line without its newline that still
// reads as a line (format §11 rule 7) is kept and closed off.
func adopt(path string, setAside func(from, to string, why error)) (*adopted, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adopt artifact: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("adopt artifact: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("adopt artifact: %s is not a regular file", path)
	}
	if st.Size() == 0 {
		return nil, nil
	}
	if why := checkHeader(f); why != nil {
		if errors.Is(why, artifact.ErrUnsupportedVersion) {
			return nil, fmt.Errorf("%w: %s: %w", ErrNotAppendable, path, why)
		}
		to := path + ".corrupt-" + strconv.FormatInt(time.Now().UnixNano(), 10)
		if err := os.Rename(path, to); err != nil {
			return nil, fmt.Errorf("set aside %s (%v): %w", path, why, err)
		}
		if setAside != nil {
			setAside(path, to, why)
		}
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("adopt artifact: %w", err)
	}
	bad := 0 // the line of the last problem
	r := artifact.NewReader(f, artifact.WithSource(path), artifact.WithProblemHandler(func(le *artifact.LineError) {
		bad = le.Line
	}))
	ad := &adopted{seen: make(map[artifact.SpanKey]struct{}), size: st.Size()}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrNotAppendable, path, err)
		}
		ad.tally.Add(rec)
		ad.seen[artifact.SpanKey{Trace: rec.Span.TraceID(), Span: rec.Span.SpanID()}] = struct{}{}
		if artifact.IsLocalRoot(rec.Span) {
			ad.rootEnded = true
		}
	}
	ad.meta = r.Meta()
	if sum := r.Summary(); sum != nil {
		ad.takeSummary(sum)
		ad.trailerLast = int64(r.SummaryLine()) == r.Stats().Lines
	}
	if err := ad.closeOff(f, path, st.Size(), bad > 0 && int64(bad) == r.Stats().Lines); err != nil {
		return nil, err
	}
	return ad, nil
}

// takeSummary takes from the trailer of an adopted artifact what its
// records do not say: the drops, the dollars of model calls dropped
// before they were written, and the budget.
func (ad *adopted) takeSummary(sum *artifact.Summary) {
	ad.tally.Drop(sum.Dropped)
	if b := sum.Budget; b != nil && b.CostBudget != nil {
		// The dollars of model calls dropped before they were written
		// (Store.Drop) are in the trailer and in no record: what
		// it counts beyond the records is theirs, kept for the next.
		rec := ad.tally.Cost()
		var d pricing.Total
		if n := pricing.Nanos(b.CostBudget.SpentUSD) - rec.Nanos; n > 0 {
			d.Nanos = n
		}
		if k := b.CostBudget.UnpricedCalls - rec.Unknown; k > 0 {
			d.Unknown = k
		}
		ad.tally.AddCost(d)
	}
	if b := sum.Budget; b != nil && (b.BudgetTokens > 0 || b.CostBudget != nil) {
		ad.meta.Budget = &artifact.Budget{Tokens: b.BudgetTokens, WarnThreshold: b.WarnThreshold}
		if b.CostBudget != nil {
			ad.meta.Budget.USD = b.BudgetUSD
		}
	}
}

// closeOff makes the adopted file f at path, of size bytes, end with a
// complete line: a torn last line (torn: it did not read) is cut off, a
// last line that reads but lacks its newline gets one.
func (ad *adopted) closeOff(f *os.File, path string, size int64, torn bool) error {
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return fmt.Errorf("adopt artifact: %w", err)
	}
	switch {
	case last[0] == '\n':
	case torn:
		// The last line was cut short and does not read (or is too long).
		end, err := lastLineEnd(f, size)
		if err != nil {
			return fmt.Errorf("adopt artifact: %w", err)
		}
		if err := truncate(path, end); err != nil {
			return fmt.Errorf("adopt artifact: cut the torn last line off %s: %w", path, err)
		}
		ad.size, ad.cut = end, size-end
		// A trailer may have ended the complete part: one more is
		// written at finalization all the same.
		ad.trailerLast = false
	default:
		ad.trailerLast = false
		if err := appendNewline(path); err != nil {
			return err
		}
		ad.size++
	}
	return nil
}

// lastLineEnd returns the offset just past the last newline of f, whose
// size is size: the end of its last complete line. The header is one, so
// there is a newline.
func lastLineEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		off := max(end-int64(len(buf)), 0)
		b := buf[:end-off]
		if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		end = off
	}
	return 0, errors.New("no complete line")
}

// checkHeader returns why f's first line is not a complete header an
// artifact of this version can be continued under, or nil.
func checkHeader(f *os.File) error {
	br := bufio.NewReaderSize(f, 64<<10)
	line, err := br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		// A header is small: this is no header.
		return artifact.ErrNoHeader
	case err != nil:
		return fmt.Errorf("%w: %w", artifact.ErrTornLine, artifact.ErrNoHeader)
	case len(bytes.TrimSpace(line)) == 0:
		return fmt.Errorf("blank first line: %w", artifact.ErrNoHeader)
	}
	var why error
	r := artifact.NewReader(bytes.NewReader(line), artifact.WithProblemHandler(func(le *artifact.LineError) {
		if why == nil {
			why = le.Err
		}
	}))
	if _, err := r.Next(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if why == nil && r.Stats().Records > 0 {
		why = artifact.ErrNoHeader
	}
	return why
}

// truncate cuts the file at path to size, not through a symbolic link.
func truncate(path string, size int64) error {
	f, err := openNoFollow(path, os.O_WRONLY)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func appendNewline(path string) error {
	f, err := openNoFollow(path, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("adopt artifact: %w", err)
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		f.Close()
		return fmt.Errorf("adopt artifact: %w", err)
	}
	return f.Close()
}
