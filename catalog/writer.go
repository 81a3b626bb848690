package catalog

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Defaults of [WriterOptions].
const (
	DefaultMaxRows  = 100_000
	DefaultMaxBytes = 64 << 20
)

// WriterOptions bound a [Writer]'s files.
type WriterOptions struct {
	// MaxRows bounds the rows of a file (default DefaultMaxRows).
	MaxRows int
	// MaxBytes bounds the estimated bytes of a file's rows before
	// compression (default DefaultMaxBytes): a file holds at most this
	// much, whatever its rows hold.
	MaxBytes int64
}

func (o WriterOptions) withDefaults() WriterOptions {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// A Writer appends rows to a catalog: it buffers them and, when the
// buffer reaches a file's bound or on Flush, writes one new file per
// partition they fall in, its rows sorted by run. It never rewrites a
// file. A Writer is not safe for concurrent use.
type Writer struct {
	dest  Dest
	opts  WriterOptions
	buf   []Row
	bytes int64
}

// NewWriter returns a Writer of the catalog at dest.
func NewWriter(dest Dest, opts WriterOptions) *Writer {
	return &Writer{dest: dest, opts: opts.withDefaults()}
}

// Add buffers row, stamping its WrittenAt when it has none, and writes
// the buffer when it is full. An error is the write's: the rows, row
// among them, stay buffered for the next Flush.
func (w *Writer) Add(ctx context.Context, row Row) error {
	if row.WrittenAt.IsZero() {
		row.WrittenAt = time.Now().UTC()
	}
	n := rowBytes(&row)
	var err error
	if len(w.buf) > 0 && w.bytes+n > w.opts.MaxBytes {
		err = w.Flush(ctx)
	}
	w.buf = append(w.buf, row) // kept, even when the flush failed
	w.bytes += n
	if err == nil && len(w.buf) >= w.opts.MaxRows {
		err = w.Flush(ctx)
	}
	return err
}

// Buffered returns the rows not written yet.
func (w *Writer) Buffered() int { return len(w.buf) }

// Drop forgets the buffered rows of run, so that a run removed before its
// row was written is not written.
func (w *Writer) Drop(run string) {
	w.buf = slices.DeleteFunc(w.buf, func(r Row) bool { return r.Run == run })
}

// Flush writes the buffered rows. On an error the rows stay buffered, to
// be written by the next Flush.
func (w *Writer) Flush(ctx context.Context) error {
	if len(w.buf) == 0 {
		return nil
	}
	sortRows(w.buf)
	parts := map[string][]Row{}
	for _, r := range w.buf {
		p := partition(r.Started)
		parts[p] = append(parts[p], r)
	}
	for _, p := range slices.Sorted(maps.Keys(parts)) {
		if _, err := writeFiles(ctx, w.dest, p, parts[p], w.opts); err != nil {
			return err
		}
		w.buf = slices.DeleteFunc(w.buf, func(r Row) bool { return partition(r.Started) == p })
	}
	w.buf, w.bytes = w.buf[:0], 0
	return nil
}

// sortRows orders rows as every catalog file holds them: by run, the
// latest row of a run first.
func sortRows(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := cmp.Compare(a.Run, b.Run); c != 0 {
			return c
		}
		return b.WrittenAt.Compare(a.WrittenAt)
	})
}

// writeFiles writes rows, sorted and of partition part, in as many files
// as opts allow. It returns the keys written.
func writeFiles(ctx context.Context, dest Dest, part string, rows []Row, opts WriterOptions) ([]string, error) {
	var keys []string
	for len(rows) > 0 {
		n, size := 0, int64(0)
		for n < len(rows) && n < opts.MaxRows && (n == 0 || size+rowBytes(&rows[n]) <= opts.MaxBytes) {
			size += rowBytes(&rows[n])
			n++
		}
		key := part + fileName()
		if err := writeFile(ctx, dest, key, rows[:n]); err != nil {
			return keys, err
		}
		keys = append(keys, key)
		rows = rows[n:]
	}
	return keys, nil
}

// writeFile writes one Parquet file of rows at key.
func writeFile(ctx context.Context, dest Dest, key string, rows []Row) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := dest.Create(ctx, key)
	if err != nil {
		return fmt.Errorf("catalog: create %s: %w", key, err)
	}
	pw := parquet.NewGenericWriter[Row](out, parquet.Compression(&parquet.Zstd))
	_, err = pw.Write(rows)
	err = errors.Join(err, pw.Close())
	if err != nil {
		cancel() // leave no object
		out.Close()
		return fmt.Errorf("catalog: write %s: %w", key, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("catalog: write %s: %w", key, err)
	}
	return nil
}

// fileName is a new file's name: its time, for people, and 64 random
// bits, so that writers never pick the same name.
func fileName() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return fmt.Sprintf("%019d-%s.parquet", time.Now().UnixNano(), hex.EncodeToString(b[:]))
}

// rowBytes estimates a row's size before compression.
func rowBytes(r *Row) int64 {
	n := 256 + len(r.Run) + len(r.TraceID) + len(r.ConversationID) + len(r.Service) +
		len(r.RootName) + len(r.Agent) + len(r.FirstPrompt)
	for _, l := range [][]string{r.Models, r.Tools, r.Keys} {
		for _, s := range l {
			n += len(s) + 4
		}
	}
	return int64(n)
}
