package artifact

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readLines reads lr to the end (or a read error) and returns what Next
// gave, each as "number:line", with "<too long>" for a skipped line, a
// torn line's text followed by "<torn>", and "<err: …>" for a read error.
func readLines(lr *LineReader) []string {
	var out []string
	for {
		line, err := lr.Next()
		n := strconv.Itoa(lr.Line()) + ":"
		switch {
		case err == nil:
			out = append(out, n+string(line))
		case err == io.EOF:
			return out
		case err == ErrTornLine:
			out = append(out, n+string(line)+"<torn>")
		case errors.Is(err, ErrLineTooLong):
			out = append(out, n+"<too long>")
		default:
			return append(out, "<err: "+err.Error()+">")
		}
	}
}

// sources are the ways a test input is read: whole, a byte at a time (every
// line crosses reads) and half a request at a time.
func sources(in string) map[string]io.Reader {
	return map[string]io.Reader{
		"whole":       strings.NewReader(in),
		"one byte":    iotest.OneByteReader(strings.NewReader(in)),
		"half a read": iotest.HalfReader(strings.NewReader(in)),
	}
}

func TestLineReader(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 5, nil},
		{"lines", "a\nbb\n", 5, []string{"1:a", "2:bb"}},
		{"CRLF", "a\r\nbb\r\n\r\n", 5, []string{"1:a", "2:bb", "3:"}},
		{"every CR before the newline goes", "a\r\r\n", 5, []string{"1:a"}},
		{"a CR inside stays", "a\rb\n", 5, []string{"1:a\rb"}},
		{"blank lines are lines", "\n \n\nx\n", 5, []string{"1:", "2: ", "3:", "4:x"}},
		{"torn last line", "a\nbb", 5, []string{"1:a", "2:bb<torn>"}},
		{"torn after CR", "a\r", 5, []string{"1:a<torn>"}},
		{"at the limit", "12345\n", 5, []string{"1:12345"}},
		{"over the limit", "12345\n123456\nok\n", 5, []string{"1:12345", "2:<too long>", "3:ok"}},
		{"a CR counts", "1234\r\n12345\r\n", 5, []string{"1:1234", "2:<too long>"}},
		{"far over the limit", "a\n" + strings.Repeat("x", 300<<10) + "\nb\n", 5, []string{"1:a", "2:<too long>", "3:b"}},
		{"over the limit at the end", "ok\n1234567", 5, []string{"1:ok", "2:<too long>"}},
		{"torn at the limit", "ok\n12345", 5, []string{"1:ok", "2:12345<torn>"}},
		{"the events fixture", "short\r\n" + strings.Repeat("x", 100) + "\nok\n\nlast", 10,
			[]string{"1:short", "2:<too long>", "3:ok", "4:", "5:last<torn>"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for how, r := range sources(c.in) {
				assert.Equal(t, c.want, readLines(NewLineReader(r, c.max)), how)
			}
			for how, r := range sources(c.in) {
				kept := newKeptLineReader(r, c.max)
				assert.Equal(t, c.want, readLines(&kept), "kept, %s", how)
			}
		})
	}
}

func TestLineReaderErrors(t *testing.T) {
	lr := NewLineReader(strings.NewReader(strings.Repeat("x", 10)+"\n"), 4)
	_, err := lr.Next()
	require.ErrorIs(t, err, ErrLineTooLong)
	assert.EqualError(t, err, "line exceeds the buffer limit (4 bytes)")
	assert.Equal(t, 4, lr.MaxLineSize())

	boom := errors.New("disk on fire")
	lr = NewLineReader(io.MultiReader(strings.NewReader("a\nbb"), iotest.ErrReader(boom)), 0)
	assert.Equal(t, DefaultMaxLineSize, lr.MaxLineSize())
	assert.Equal(t, []string{"1:a", "2:bb<torn>", "<err: reading line 2: disk on fire>"}, readLines(lr))
	_, err = lr.Next()
	require.ErrorIs(t, err, boom, "the error stays")
	assert.Equal(t, 2, lr.Line())
}

// endless is a line of n bytes that exists only as it is read.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	if e.n == 0 {
		p[k-1] = '\n'
	}
	return k, nil
}

// A line over the limit is skipped as it streams past: the block never
// grows past what the limit needs.
func TestLineReaderBoundedMemory(t *testing.T) {
	lr := NewLineReader(io.MultiReader(&endless{64 << 20}, strings.NewReader("ok\n")), 1<<10)
	assert.Equal(t, []string{"1:<too long>", "2:ok"}, readLines(lr))
	assert.LessOrEqual(t, cap(lr.blk), minBlock)

	// A long line within the limit grows the block to hold it, and no more.
	lr = NewLineReader(iotest.HalfReader(strings.NewReader(strings.Repeat("y", 300<<10)+"\nz\n")), 400<<10)
	got := readLines(lr)
	require.Len(t, got, 2)
	assert.Len(t, got[0], 2+300<<10)
	assert.LessOrEqual(t, cap(lr.blk), 400<<10+1)
}

// A kept reader's lines stay as they were after later reads: the Reader's
// decoder shares their memory.
func TestLineReaderKeeps(t *testing.T) {
	var in bytes.Buffer
	var want []string
	for i := range 20000 {
		l := strings.Repeat(strconv.Itoa(i%10), 1+i%97)
		want = append(want, l)
		in.WriteString(l + "\n")
	}
	kept := newKeptLineReader(iotest.HalfReader(&in), 1<<10)
	var lines [][]byte
	var strs []string
	for {
		line, err := kept.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		lines, strs = append(lines, line), append(strs, lineString(line))
	}
	require.Len(t, lines, len(want))
	for i := range want {
		require.Equal(t, want[i], string(lines[i]), "line %d", i+1)
		require.Equal(t, want[i], strs[i], "line %d", i+1)
	}
}

// FuzzLineReader checks the reader against splitting the whole input at
// its newlines, in both modes and through reads of every size.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\r\nbb\n\nccc"), uint8(2), uint8(0))
	f.Add([]byte("123456\n12\r\n"), uint8(5), uint8(1))
	f.Add(bytes.Repeat([]byte("xy\n"), 1000), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, maxLine, how uint8) {
		max := int(maxLine%16) + 1
		var want []string
		for i, l := range strings.Split(string(data), "\n") {
			last := i == strings.Count(string(data), "\n")
			n := strconv.Itoa(i+1) + ":"
			switch {
			case last && l == "":
			case len(l) > max:
				want = append(want, n+"<too long>")
			case last:
				want = append(want, n+strings.TrimRight(l, "\r")+"<torn>")
			default:
				want = append(want, n+strings.TrimRight(l, "\r"))
			}
		}
		src := func() io.Reader {
			switch how % 3 {
			case 1:
				return iotest.OneByteReader(bytes.NewReader(data))
			case 2:
				return iotest.HalfReader(bytes.NewReader(data))
			}
			return bytes.NewReader(data)
		}
		if got := readLines(NewLineReader(src(), max)); !slices.Equal(got, want) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
		kept := newKeptLineReader(src(), max)
		if got := readLines(&kept); !slices.Equal(got, want) {
			t.Fatalf("kept: got %q\nwant %q", got, want)
		}
	})
}

// benchLines returns about size bytes of lines of mixed lengths, as
// JSON-lines artifacts have them: mostly short records, now and then a long
// one carrying a conversation.
func benchLines(size int) ([]byte, int) {
	var b bytes.Buffer
	n := 0
	for i := 0; b.Len() < size; i++ {
		l := 80 + (i*7919)%700
		if i%50 == 0 {
			l = 40 << 10
		}
		b.WriteString(`{"kind":"span","name":"`)
		b.WriteString(strings.Repeat("x", l))
		b.WriteString("\"}\n")
		n++
	}
	return b.Bytes(), n
}

// BenchmarkReadLines times the artifact Reader's line reader alone over
// ~16 MB of lines: a kept one, whose blocks are never written again.
func BenchmarkReadLines(b *testing.B) {
	benchReadLines(b, func(r io.Reader) *LineReader {
		lr := newKeptLineReader(r, DefaultMaxLineSize)
		return &lr
	})
}

// BenchmarkReadLinesReused is BenchmarkReadLines for a LineReader made by
// NewLineReader, which reuses its block: the importers'.
func BenchmarkReadLinesReused(b *testing.B) {
	benchReadLines(b, func(r io.Reader) *LineReader { return NewLineReader(r, DefaultMaxLineSize) })
}

func benchReadLines(b *testing.B, newReader func(io.Reader) *LineReader) {
	data, lines := benchLines(16 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr := newReader(bytes.NewReader(data))
		n := 0
		for {
			_, err := lr.Next()
			if err == io.EOF {
				break
			}
			n++
		}
		if n != lines {
			b.Fatalf("%d lines, want %d", n, lines)
		}
	}
}
