package converter

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

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

// BenchmarkReadLines times the line reader alone over ~16 MB of lines.
func BenchmarkReadLines(b *testing.B) {
	data, lines := benchLines(16 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		lr := lineReader{r: bytes.NewReader(data), maxLine: DefaultMaxLineSize}
		n := 0
		for {
			_, _, _, err := lr.next()
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
