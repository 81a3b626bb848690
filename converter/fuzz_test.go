package converter_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// maxSeed is the largest seed a fuzz target is given: the fuzzer minimizes
// every input that finds new coverage, and minimizing the 10-40 KB golden
// artifacts took up to a minute each, so FuzzReader made 25 executions in
// 188 s with default flags (issue 13). The whole files go through the same
// properties in plain tests (TestReaderPropertiesWholeFiles,
// TestDetectPropertiesWholeFiles).
const maxSeed = 2 << 10

// goldenArtifacts returns the paths of the golden artifacts.
func goldenArtifacts(t testing.TB) []string {
	files, err := filepath.Glob("../testdata/golden/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// leadingLines returns the complete lines that begin b, as many as fit in
// maxSeed (at least the first, cut to maxSeed): a header and the first
// records of an artifact.
func leadingLines(b []byte) []byte {
	if len(b) <= maxSeed {
		return b
	}
	end := 0
	for end < maxSeed {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 || end+i+1 > maxSeed {
			break
		}
		end += i + 1
	}
	if end == 0 {
		return b[:maxSeed]
	}
	return b[:end]
}

// seedArtifacts adds the leading lines of every golden artifact and a few
// hand-made edge cases to a fuzz corpus.
func seedArtifacts(f *testing.F) {
	for _, p := range goldenArtifacts(f) {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(leadingLines(b))
	}
	f.Add([]byte(`{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z","core_version":"0.9.0","budget":{"spent":10,"warn_threshold":0.8,"overflowed":false}}` + "\n" +
		`{"kind":"call","tool":"click","ok":false,"code":"trace.BUDGET_EXCEEDED","started_at":1767225600000,"finished_at":1767225600012,"elapsed_ms":12,"estimated_tokens":340,"args":{"ref":"[redacted]"},"result":{"ok":false}}` + "\n"))
	f.Add([]byte(`{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n"))
	// A cost budget's header and trailer (artifact/testdata/cost-budget.golden).
	cost, err := os.ReadFile(filepath.Join("..", "artifact", "testdata", "cost-budget.golden"))
	require.NoError(f, err)
	f.Add(cost)
	f.Add([]byte(`{"kind":"span","attrs":{"a":{"@map":{"@bytes":"AAE="}},"b":{"@double":"NaN"},"c":null,"d":[1,1.0,"x"]}}` + "\n{\"kind\":\"inf"))
}

// FuzzReader feeds arbitrary bytes to the artifact reader. It must never
// panic or fail fatally on bad lines, and every record it returns must
// survive a second encode/decode unchanged.
func FuzzReader(f *testing.F) {
	seedArtifacts(f)
	f.Fuzz(readerProperty)
}

// TestReaderPropertiesWholeFiles holds every golden artifact, whole, to
// FuzzReader's properties (the fuzz corpus has only their leading lines).
func TestReaderPropertiesWholeFiles(t *testing.T) {
	for _, p := range goldenArtifacts(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			readerProperty(t, b)
		})
	}
}

// readerProperty: the reader never panics or fails fatally on bad lines,
// Next and ReadTraces agree, and every record it returns survives a second
// encode/decode unchanged.
func readerProperty(t *testing.T, data []byte) {
	next, par, np, pp, ne, pe := readBoth(t, data)
	require.Equal(t, ne == nil, pe == nil, "Next: %v, ReadTraces: %v", ne, pe)
	require.Equal(t, next, par, "ReadTraces differs from Next")
	require.Equal(t, np, pp)

	r := artifact.NewReader(bytes.NewReader(data), artifact.WithMaxLineSize(1<<16))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			require.ErrorIs(t, err, artifact.ErrUnsupportedVersion)
			return
		}
		recs = append(recs, *rec)
	}
	if len(recs) == 0 {
		return
	}
	td := artifact.ToTraces(recs)
	want := ptracecmp.Spans(td)
	again, _ := artifacttest.ReadBytes(t, artifacttest.Encode(t, td))
	require.Equal(t, want, ptracecmp.Spans(artifact.ToTraces(again)))
}

// FuzzDetect feeds arbitrary bytes to input detection and to the reader of
// the detected format: neither may panic, and an artifact detected as such
// must read.
func FuzzDetect(f *testing.F) {
	seedArtifacts(f)
	for _, p := range detectCorpus(f) {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		if len(b) <= maxSeed {
			f.Add(b)
		}
	}
	f.Add([]byte("{\n  \"resourceSpans\": []\n}\n"))
	f.Add([]byte{0x0A, 0x00})
	f.Fuzz(detectProperty)
}

// detectCorpus returns the OTLP files and dialect payloads.
func detectCorpus(t testing.TB) []string {
	var out []string
	for _, pattern := range []string{"../testdata/otlp/*", "../testdata/dialects/*.json"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		out = append(out, files...)
	}
	require.NotEmpty(t, out)
	return out
}

// TestDetectPropertiesWholeFiles holds every OTLP file, dialect payload and
// golden artifact, whole, to FuzzDetect's properties (the fuzz corpus has
// only the small ones).
func TestDetectPropertiesWholeFiles(t *testing.T) {
	for _, p := range append(detectCorpus(t), goldenArtifacts(t)...) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			detectProperty(t, b)
		})
	}
}

// detectProperty: neither detection nor the reader of the detected format
// panics, and an artifact detected as such reads without a fatal error.
func detectProperty(t *testing.T, data []byte) {
	head := data[:min(len(data), converter.DetectSize)]
	switch format := converter.Detect(head); format {
	case converter.FormatArtifact:
		r := artifact.NewReader(bytes.NewReader(data))
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				// Bad lines are problems, not errors: only a newer
				// version stops a reader of memory.
				require.ErrorIs(t, err, artifact.ErrUnsupportedVersion)
				break
			}
		}
	case converter.FormatOTLPJSON, converter.FormatOTLPJSONLines, converter.FormatOTLPProto:
		td, err := converter.ReadOTLP(bytes.NewReader(data), format, "fuzz")
		if err == nil {
			artifact.Records(td)
		}
	}
}
