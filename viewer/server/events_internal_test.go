package server

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// tailFixture is a file followed by a tail, with what it emitted.
type tailFixture struct {
	t     *testing.T
	root  *os.Root
	path  string
	tail  *tail
	lines []string
	ends  []int64
}

func newTailFixture(t *testing.T, content string, maxLine int) *tailFixture {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	f, err := root.Open("a.jsonl")
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return &tailFixture{t: t, root: root, path: path,
		tail: &tail{rel: "a.jsonl", f: f, maxLine: maxLine, log: slog.New(slog.DiscardHandler)}}
}

func (x *tailFixture) write(s string) {
	f, err := os.OpenFile(x.path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(x.t, err)
	_, err = io.WriteString(f, s)
	require.NoError(x.t, err)
	require.NoError(x.t, f.Close())
}

// poll runs one tick of the stream and returns what it emitted.
func (x *tailFixture) poll() []string {
	x.t.Helper()
	n := len(x.lines)
	reason, err := x.tail.follow(x.root, func(line []byte, end int64) error {
		x.lines = append(x.lines, string(line))
		x.ends = append(x.ends, end)
		return nil
	})
	require.NoError(x.t, err)
	require.Empty(x.t, reason)
	return x.lines[n:]
}

// A line without its newline is held, across as many polls as it takes,
// and sent whole when the newline comes.
func TestTailHoldsTornLine(t *testing.T) {
	x := newTailFixture(t, `{"a":1}`+"\n"+`{"b":`, 1<<20)
	require.Equal(t, []string{`{"a":1}`}, x.poll())
	require.Empty(t, x.poll())
	x.write(`2`)
	require.Empty(t, x.poll())
	require.EqualValues(t, 8, x.tail.pos, "the id stays at the end of the last whole line")
	x.write("}\n")
	require.Equal(t, []string{`{"b":2}`}, x.poll())
	require.Equal(t, []int64{8, 16}, x.ends)
}

// A writer that repairs a crash by cutting off the torn last line (and
// then writes that record again) is followed without a reset.
func TestTailTornLineCutBack(t *testing.T) {
	x := newTailFixture(t, `{"a":1}`+"\n"+`{"b":`, 1<<20)
	require.Equal(t, []string{`{"a":1}`}, x.poll())
	require.NoError(t, os.Truncate(x.path, 8))
	require.Empty(t, x.poll())
	x.write(`{"c":3}` + "\n")
	require.Equal(t, []string{`{"c":3}`}, x.poll())
}

// A line longer than the limit is skipped, whole, and the lines after it
// are sent.
func TestTailSkipsOverlongLine(t *testing.T) {
	x := newTailFixture(t, `{"long":"`, 16)
	require.Empty(t, x.poll())
	x.write(`0123456789abcdef`)
	require.Empty(t, x.poll())
	x.write(`"}` + "\n" + `{"n":1}` + "\n")
	require.Equal(t, []string{`{"n":1}`}, x.poll())
	require.Equal(t, []int64{int64(len(`{"long":"0123456789abcdef"}`) + 1 + 8)}, x.ends)
}

func TestCleanRel(t *testing.T) {
	for in, want := range map[string]string{
		"a.jsonl":                "a.jsonl",
		"sub/dir/a.jsonl":        "sub/dir/a.jsonl",
		"run%20one.jsonl":        "run one.jsonl",
		"r%C3%A9sum%C3%A9.jsonl": "résumé.jsonl",
		"a..b.jsonl":             "a..b.jsonl",
		"otlp.json":              "otlp.json", // other shapes, served when their content is one (inputs.go)
		"sub/traces.pb":          "sub/traces.pb",
	} {
		got, err := cleanRel(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
		require.Equal(t, in, escapeRel(got), "escapeRel is cleanRel's inverse")
	}
	for _, in := range []string{
		"", "/a.jsonl", "a.jsonl/", "a//b.jsonl", "../a.jsonl", "sub/../a.jsonl", "./a.jsonl",
		"%2e%2e/a.jsonl", "%2E%2E/a.jsonl", "..%2fa.jsonl", "sub%2Fa.jsonl", "..%5ca.jsonl", `..\a.jsonl`,
		"a%00.jsonl", "a.jsonl%00", "a%0a.jsonl", ".hidden.jsonl", "sub/.git/a.jsonl", "a.txt", "a.jsonl.txt",
		"%zz.jsonl", "%2fetc%2fpasswd.jsonl", "a.pb.txt", "a.json.txt",
	} {
		_, err := cleanRel(in)
		require.ErrorIs(t, err, errBadPath, "%q", in)
	}
}
