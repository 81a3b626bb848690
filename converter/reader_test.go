package converter_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

const (
	hdr  = `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}`
	rec1 = `{"kind":"span","name":"a","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true}`
	rec2 = `{"kind":"call","name":"b","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"1112131415161718","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":false,"code":"E","tool":"t"}`
)

type readResult struct {
	names    []string
	problems []string
	stats    artifact.ReadStats
	err      error
}

func read(r io.Reader, opts ...artifact.ReaderOption) readResult {
	rd := artifact.NewReader(r, opts...)
	var res readResult
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			res.err = err
			break
		}
		res.names = append(res.names, rec.Span.Name())
	}
	for _, p := range rd.Problems() {
		res.problems = append(res.problems, p.Error())
	}
	res.stats = rd.Stats()
	return res
}

// TestReaderLines pins how the reader treats each kind of bad line: it is
// reported with its line number and skipped, and the rest is read.
func TestReaderLines(t *testing.T) {
	long := `{"kind":"span","name":"` + strings.Repeat("x", 300) + `"}`
	cases := []struct {
		name     string
		input    string
		opts     []artifact.ReaderOption
		names    []string
		problems []string
		unknown  int64
		fatal    error
	}{
		{"clean", hdr + "\n" + rec1 + "\n" + rec2 + "\n", nil, []string{"a", "b"}, nil, 0, nil},
		{"no final newline is fine", hdr + "\n" + rec1, nil, []string{"a"}, nil, 0, nil},
		{"CRLF", hdr + "\r\n" + rec1 + "\r\n", nil, []string{"a"}, nil, 0, nil},
		{"blank lines skipped", hdr + "\n\n  \n" + rec1 + "\n", nil, []string{"a"}, nil, 0, nil},
		{"torn last line", hdr + "\n" + rec1 + "\n" + rec2[:40], nil, []string{"a"},
			[]string{"in.jsonl:3: torn last line"}, 0, nil},
		{"bad JSON in the middle", hdr + "\n" + rec1 + "\n{oops\n" + rec2 + "\n", nil, []string{"a", "b"},
			[]string{"in.jsonl:3: invalid record"}, 0, nil},
		{"bad id", hdr + "\n" + strings.Replace(rec1, "0102030405060708\"", "01020304\"", 1) + "\n", nil, nil,
			[]string{"in.jsonl:2: invalid record: column"}, 0, nil},
		{"line too long", hdr + "\n" + long + "\n" + rec1 + "\n", []artifact.ReaderOption{artifact.WithMaxLineSize(200)},
			[]string{"a"}, []string{"in.jsonl:2: line exceeds the buffer limit"}, 0, nil},
		{"too long at the end", hdr + "\n" + rec1 + "\n" + long, []artifact.ReaderOption{artifact.WithMaxLineSize(200)},
			[]string{"a"}, []string{"in.jsonl:3: line exceeds the buffer limit"}, 0, nil},
		{"no header", rec1 + "\n", nil, []string{"a"}, []string{"in.jsonl:1: first line is not a meta header"}, 0, nil},
		{"unknown kind counted", hdr + "\n" + `{"kind":"note","x":1}` + "\n" + rec1 + "\n", nil, []string{"a"}, nil, 1, nil},
		{"newer version is fatal", `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n" + rec1 + "\n", nil,
			nil, nil, 0, artifact.ErrUnsupportedVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]artifact.ReaderOption{artifact.WithSource("in.jsonl")}, tc.opts...)
			for _, src := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tc.input)},
				{"one byte at a time", iotest.OneByteReader(strings.NewReader(tc.input))},
			} {
				got := read(src.r, opts...)
				if tc.fatal != nil {
					require.ErrorIs(t, got.err, tc.fatal, src.name)
					continue
				}
				require.NoError(t, got.err, src.name)
				assert.Equal(t, tc.names, got.names, src.name)
				require.Len(t, got.problems, len(tc.problems), "%s: %v", src.name, got.problems)
				for i, p := range tc.problems {
					assert.Contains(t, got.problems[i], p, src.name)
				}
				assert.Equal(t, tc.unknown, got.stats.Unknown, src.name)
			}
		})
	}
}

// TestReaderIOError: a read error stops the reader with the line it was on.
func TestReaderIOError(t *testing.T) {
	in := io.MultiReader(strings.NewReader(hdr+"\n"+rec1+"\n"), iotest.ErrReader(errors.New("disk on fire")))
	got := read(in)
	assert.Equal(t, []string{"a"}, got.names)
	require.Error(t, got.err)
	assert.EqualError(t, got.err, "reading line 3: disk on fire")
}

// TestReaderBlocks reads an artifact whose lines cross the reader's block
// boundaries, through a reader that returns a few bytes at a time.
func TestReaderBlocks(t *testing.T) {
	var buf bytes.Buffer
	encodeArtifact(t, benchBatch(), &buf)
	want := ptracecmp.Spans(decodeArtifact(t, buf.Bytes()))
	td, err := artifact.NewReader(iotest.HalfReader(bytes.NewReader(buf.Bytes()))).ReadTraces()
	require.NoError(t, err)
	require.Equal(t, want, ptracecmp.Spans(td))
}
