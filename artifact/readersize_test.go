package artifact_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// A Reader told its input's size reads what it reads without: the size
// right, too small (the block grows), too large, and with the input
// given a byte at a time.
func TestReaderWithSize(t *testing.T) {
	paths, err := filepath.Glob("../testdata/golden/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		want := readAll(t, bytes.NewReader(raw))
		require.NotEmpty(t, want.recs, path)
		n := int64(len(raw))
		for _, size := range []int64{n, n - 1, n / 3, 1, n + 1, 10 * n} {
			assert.Equal(t, want, readAll(t, bytes.NewReader(raw), artifact.WithSize(size)), "%s, size %d", path, size)
			assert.Equal(t, want, readAll(t, iotest.OneByteReader(bytes.NewReader(raw)), artifact.WithSize(size)), "%s, size %d, a byte at a time", path, size)
		}
	}
}

// read is what a Reader gave: the records' lines and span names, its
// header's start, its trailer and its counts.
type read struct {
	recs  []string
	meta  artifact.Meta
	sum   *artifact.Summary
	stats artifact.ReadStats
}

func readAll(t *testing.T, r io.Reader, opts ...artifact.ReaderOption) read {
	t.Helper()
	rd := artifact.NewReader(r, opts...)
	var out read
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		out.recs = append(out.recs, rec.Span.Name()+" "+rec.Span.SpanID().String())
	}
	out.meta, out.sum, out.stats = *rd.Meta(), rd.Summary(), rd.Stats()
	return out
}
