package converter_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
)

// A line-oriented reader reports a line over the limit and goes on, and
// reports the torn last line only if it does not parse.
func ExampleLineReader() {
	in := "{\"a\":1}\r\n" + strings.Repeat("x", 64) + "\n\n{\"b\":"
	lr := artifact.NewLineReader(strings.NewReader(in), 32)
	for {
		line, err := lr.Next()
		torn := err == artifact.ErrTornLine
		switch {
		case err == io.EOF:
			return
		case errors.Is(err, artifact.ErrLineTooLong):
			fmt.Printf("in.jsonl:%d: %v\n", lr.Line(), err)
			continue
		case err != nil && !torn:
			fmt.Println("in.jsonl:", err) // a read error: stop
			return
		}
		if len(line) == 0 {
			continue
		}
		if torn && !strings.HasSuffix(string(line), "}") {
			fmt.Printf("in.jsonl:%d: %v\n", lr.Line(), err)
			continue
		}
		fmt.Printf("line %d: %s\n", lr.Line(), line)
	}
	// Output:
	// line 1: {"a":1}
	// in.jsonl:2: line exceeds the buffer limit (32 bytes)
	// in.jsonl:4: torn last line (cut short by a crash?)
}
