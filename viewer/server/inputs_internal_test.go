package server

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/viewer"
)

// swapFile writes data to a file of a fresh folder and opens it as a page
// does, converted when it is of another shape, with a cache of max bytes.
func swapFile(t testing.TB, data []byte, max int64) (*servedRun, error) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.jsonl"), data, 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	a, err := openArtifact(root, "f.jsonl")
	require.NoError(t, err)
	t.Cleanup(func() { a.f.Close() })
	return a, newImportCache(max).swap(a)
}

// readBack reads a converted artifact with artifact.Reader: the records
// and the lines it could not read.
func readBack(t testing.TB, a *servedRun) (int, []*artifact.LineError) {
	_, err := a.f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	rd := artifact.NewReader(a.f)
	n := 0
	for {
		_, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		n++
	}
	return n, rd.Problems()
}

// FuzzImportServed: whatever a served file holds, opening it never
// panics; a file converted reads back as an artifact without a bad line,
// and the live stream goes on from a line's end within the file.
func FuzzImportServed(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "inputs", "*.*"))
	require.NoError(f, err)
	for _, n := range names {
		if strings.HasSuffix(n, ".md") {
			continue
		}
		data, err := os.ReadFile(n)
		require.NoError(f, err)
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add(append(bytes.Clone(data), "not json\n{\"type\":"...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := swapFile(t, data, 1<<20)
		if err != nil || a.imp == nil {
			return
		}
		_, problems := readBack(t, a)
		assert.Empty(t, problems, "the converted artifact reads back")
		assert.LessOrEqual(t, a.imp.upto, int64(len(data)))
		if a.imp.upto < int64(len(data)) && a.imp.upto > 0 {
			assert.Equal(t, byte('\n'), data[a.imp.upto-1], "the stream goes on from a line's end")
		}
	})
}

// An OTLP/JSON document being written (its end not there yet, no newline
// after its last line) is not an error: it shows what its complete lines
// hold (nothing, for a document on one line), and all of it once whole.
// A line-shaped log's last line without its newline is waited for.
func TestImportWhileWritten(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "langfuse", "payloads", "tool-loop.traces.json"))
	require.NoError(t, err)
	doc = bytes.TrimSpace(doc)
	pretty, err := os.ReadFile(filepath.Join("testdata", "inputs", "otlp-langfuse-stream.json"))
	require.NoError(t, err)
	transcript, err := os.ReadFile(filepath.Join("testdata", "inputs", "session-transcript.jsonl"))
	require.NoError(t, err)
	lastLine := bytes.LastIndexByte(transcript[:len(transcript)-1], '\n') + 1
	for _, c := range []struct {
		name    string
		data    []byte
		shape   importer.Shape
		upto    int
		records bool
	}{
		{"document half written", doc[:len(doc)/2], importer.OTLPJSON, 0, false},
		{"document whole, no newline", doc, importer.OTLPJSON, len(doc), true},
		{"document pretty, half written", pretty[:len(pretty)/2], importer.OTLPJSON, bytes.LastIndexByte(pretty[:len(pretty)/2], '\n') + 1, false},
		{"log, last line half written", transcript[:lastLine+10], importer.Transcript, lastLine, true},
		{"log whole", transcript, importer.Transcript, len(transcript), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := swapFile(t, c.data, 1<<20)
			require.NoError(t, err)
			require.NotNil(t, a.imp)
			assert.Equal(t, c.shape, a.imp.shape)
			assert.Equal(t, int64(c.upto), a.imp.upto, "where the live stream goes on")
			assert.Empty(t, a.imp.problems, "nothing reported")
			n, problems := readBack(t, a)
			assert.Empty(t, problems)
			assert.Equal(t, c.records, n > 0, "%d records", n)
		})
	}
}

// A file of another shape larger than the conversions may hold is
// refused with a reason that says what to do; an artifact or a file of no
// known shape is left as it is.
func TestImportRefusesTooLarge(t *testing.T) {
	transcript, err := os.ReadFile(filepath.Join("testdata", "inputs", "session-transcript.jsonl"))
	require.NoError(t, err)
	_, err = swapFile(t, transcript, int64(len(transcript))-1)
	require.ErrorIs(t, err, errImportTooLarge)
	assert.Contains(t, err.Error(), "agenttrace convert")
	for _, data := range []string{"", "not a trace\n", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n"} {
		a, err := swapFile(t, []byte(data), 1)
		require.NoError(t, err, "%q", data)
		assert.Nil(t, a.imp, "%q read as it is", strings.TrimSpace(data))
	}
}

// A JSON document that does not read once its last line has its newline
// is a run without records whose problem says why: never silent, never a
// refusal.
func TestImportBrokenDocument(t *testing.T) {
	pretty, err := os.ReadFile(filepath.Join("testdata", "inputs", "otlp-langfuse-stream.json"))
	require.NoError(t, err)
	half := pretty[:bytes.LastIndexByte(pretty[:len(pretty)/2], '\n')+1]
	a, err := swapFile(t, half, 1<<20)
	require.NoError(t, err)
	require.NotNil(t, a.imp)
	require.Len(t, a.imp.problems, 1)
	assert.Contains(t, a.imp.problems[0].Error(), "f.jsonl: the otlp-json document does not read")
	assert.Equal(t, int64(1), a.imp.skipped)
	assert.Equal(t, int64(len(half)), a.imp.upto)
	n, _ := readBack(t, a)
	assert.Zero(t, n)
}

// A conversion is made once per version of a file (its size and
// modification time): opened again unchanged, the file is not converted
// again; once it grew, it is, and the older version is dropped.
func TestImportCachedBySizeAndMtime(t *testing.T) {
	transcript, err := os.ReadFile(filepath.Join("testdata", "inputs", "session-transcript.jsonl"))
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	half := bytes.LastIndexByte(transcript[:len(transcript)/2], '\n') + 1
	require.NoError(t, os.WriteFile(path, transcript[:half], 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	c := newImportCache(1 << 20)
	open := func() *imported {
		t.Helper()
		a, err := openArtifact(root, "t.jsonl")
		require.NoError(t, err)
		defer a.f.Close()
		require.NoError(t, c.swap(a))
		require.NotNil(t, a.imp)
		return a.imp
	}
	first := open()
	assert.Same(t, first, open(), "unchanged: the same conversion")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(transcript[half:])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	grown := open()
	assert.NotSame(t, first, grown, "grown: converted again")
	assert.Greater(t, len(grown.data), len(first.data))
	assert.Equal(t, 1, c.lru.Len(), "the older version dropped")
	assert.Equal(t, int64(len(grown.data)), c.bytes)
}

// Records of a type the shape does not define are skipped, as convert
// skips them, and said on the page by type, as convert notes them: not a
// bad line, never silent.
func TestImportNotesUnknownTypes(t *testing.T) {
	transcript, err := os.ReadFile(filepath.Join("testdata", "inputs", "session-transcript.jsonl"))
	require.NoError(t, err)
	data := append(bytes.Clone(transcript), `{"type":"widget.spun","sessionId":"sess_7f3a9c","time":"2026-05-04T10:00:20.000Z"}`+"\n"...)
	a, err := swapFile(t, data, 1<<20)
	require.NoError(t, err)
	require.NotNil(t, a.imp)
	assert.Zero(t, a.imp.skipped, "not a bad line")
	assert.Equal(t, map[string]int64{"widget.spun": 1}, a.imp.unknown)
	assert.Contains(t, a.imp.runProblems(), viewer.Problem{Message: `note: 1 record(s) of unknown type "widget.spun" skipped`})
}
