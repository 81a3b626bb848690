package main

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// TestConvertRoundTrip: OTLP -> JSONL -> OTLP (.pb and .json) keeps every
// span exactly, and JSONL -> OTLP -> JSONL gives the same artifact.
func TestConvertRoundTrip(t *testing.T) {
	for name, src := range dialects(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			jsonl := filepath.Join(dir, "run.jsonl")
			r := agenttrace(t, "", "convert", src, "-o", jsonl)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stdout)
			assert.Empty(t, r.stderr)

			want := spansOf(t, src)
			for _, out := range []string{"back.pb", "back.json"} {
				path := filepath.Join(dir, out)
				r := agenttrace(t, "", "convert", jsonl, "-o", path)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, want, spansOf(t, path), out)

				again := filepath.Join(dir, out+".jsonl")
				r = agenttrace(t, "", "convert", path, "-o", again)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, readFile(t, jsonl), readFile(t, again), "JSONL -> %s -> JSONL", out)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestConvertStdinStdout(t *testing.T) {
	src := dialects(t)["genai-v141"]
	raw := readFile(t, src)

	// OTLP on stdin, JSONL (the default) on stdout.
	r := agenttrace(t, raw, "convert", "-", "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, converter.FormatArtifact, converter.Detect([]byte(r.stdout)))
	jsonl := r.stdout
	assert.True(t, strings.HasPrefix(jsonl, `{"v":1,"kind":"meta"`), jsonl)
	assert.Contains(t, lines(jsonl)[len(lines(jsonl))-1], `"kind":"summary"`)

	// JSONL on stdin, OTLP/JSON and protobuf on stdout.
	for _, to := range []string{"otlp-json", "otlp-proto"} {
		r = agenttrace(t, jsonl, "convert", "-", "-o", "-", "--to", to)
		require.Equal(t, 0, r.code, r.stderr)
		var td ptrace.Traces
		var err error
		if to == "otlp-json" {
			td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(r.stdout))
		} else {
			td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces([]byte(r.stdout))
		}
		require.NoError(t, err)
		assert.Equal(t, spansOf(t, src), ptracecmp.Spans(td), to)

		// And back: OTLP on stdin is told from its content too.
		back := agenttrace(t, r.stdout, "convert", "-", "-o", "-")
		require.Equal(t, 0, back.code, back.stderr)
		assert.Equal(t, jsonl, back.stdout, "JSONL -> %s -> JSONL", to)
	}
}

// TestConvertDetectsContentNotName: a .jsonl name on OTLP content, and a
// .json name on an artifact, are read for what they hold.
func TestConvertDetectsContentNotName(t *testing.T) {
	src := dialects(t)["openinference"]
	misnamed := writeTemp(t, "really-otlp.jsonl", readFile(t, src))
	out := filepath.Join(t.TempDir(), "out.json")
	r := agenttrace(t, "", "convert", misnamed, "-o", out, "--to", "jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, converter.FormatArtifact, converter.Detect([]byte(readFile(t, out))))

	back := filepath.Join(t.TempDir(), "back.pb")
	r = agenttrace(t, "", "convert", out, "-o", back)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, spansOf(t, src), spansOf(t, back))
}

// TestConvertMergesInputs: several inputs become one artifact holding
// every span, in end-time order.
func TestConvertMergesInputs(t *testing.T) {
	ds := dialects(t)
	a, b := ds["genai-v141"], ds["vercel-ai-v4"]
	out := filepath.Join(t.TempDir(), "merged.json")
	r := agenttrace(t, "", "convert", a, b, "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	want := append(spansOf(t, a), spansOf(t, b)...)
	assert.ElementsMatch(t, want, spansOf(t, out))

	jsonl := filepath.Join(t.TempDir(), "merged.jsonl")
	r = agenttrace(t, "", "convert", a, b, "-o", jsonl)
	require.Equal(t, 0, r.code, r.stderr)
	recs, meta := artifacttest.Read(t, jsonl)
	assert.Len(t, recs, len(want))
	assert.True(t, slices.IsSortedFunc(recs, func(a, b artifact.Record) int {
		return cmp.Compare(a.Span.EndTimestamp(), b.Span.EndTimestamp())
	}), "records in end-time order")
	assert.Empty(t, meta.TraceID, "two traces: the header names none")
}

// TestConvertKeepsBudget: the header's budget and redaction survive
// JSONL -> OTLP -> JSONL, and JSONL -> JSONL.
func TestConvertKeepsBudget(t *testing.T) {
	src := writeTemp(t, "budget.jsonl", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z","budget":{"budget_tokens":5000,"warn_threshold":0.5},"redacted":true}
{"kind":"inference","name":"chat m","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true,"op":"chat","model":"m","usage":{"input_tokens":3000,"output_tokens":100}}
`)
	dir := t.TempDir()
	for _, step := range [][2]string{{src, "a.pb"}, {"a.pb", "b.jsonl"}, {"b.jsonl", "c.jsonl"}} {
		in := step[0]
		if !filepath.IsAbs(in) {
			in = filepath.Join(dir, in)
		}
		r := agenttrace(t, "", "convert", in, "-o", filepath.Join(dir, step[1]))
		require.Equal(t, 0, r.code, r.stderr)
	}
	for _, f := range []string{"b.jsonl", "c.jsonl"} {
		first := lines(readFile(t, filepath.Join(dir, f)))[0]
		assert.Contains(t, first, `"budget":{"budget_tokens":5000,"warn_threshold":0.5}`, f)
		assert.Contains(t, first, `"redacted":true`, f)
	}
	r := agenttrace(t, "", "tokens", "--json", filepath.Join(dir, "c.jsonl"))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"near_budget": true`)
}

// TestConvertSkipsBadLines: a bad line is reported with its file and line
// and skipped; the rest converts, and the run exits 1.
func TestConvertSkipsBadLines(t *testing.T) {
	src := writeTemp(t, "bad.jsonl", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}
{"kind":"call","tool":"a","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true}
{"kind":"call", nope
{"kind":"call","tool":"b","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060709","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:03Z","ok":true}
`)
	out := filepath.Join(t.TempDir(), "out.json")
	r := agenttrace(t, "", "convert", src, "-o", out)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, src+":3: ")
	assert.Contains(t, r.stderr, src+": 1 bad line(s) skipped")
	assert.Len(t, spansOf(t, out), 2)
}

func TestConvertErrors(t *testing.T) {
	src := dialects(t)["genai-v141"]
	dir := t.TempDir()
	garbage := writeTemp(t, "garbage.txt", "hello, world\n")
	empty := writeTemp(t, "empty.json", "")
	newer := writeTemp(t, "newer.jsonl", `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}`+"\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"missing input", []string{"convert", filepath.Join(dir, "nope.json"), "-o", filepath.Join(dir, "x.jsonl")}, 2, "nope.json: no such file"},
		{"unwritable output", []string{"convert", src, "-o", filepath.Join(garbage, "sub", "x.jsonl")}, 2, "write " + filepath.Join(garbage, "sub", "x.jsonl") + ": not a directory"},
		{"neither -o nor --split", []string{"convert", src}, 2, "say where to write: -o OUT (a file, or - for standard output) or --split DIR"},
		{"both -o and --split", []string{"convert", src, "-o", "-", "--split", dir}, 2, "-o and --split: give one"},
		{"unknown input format", []string{"convert", garbage, "-o", filepath.Join(dir, "x.jsonl")}, 1, garbage + ": unknown input format"},
		{"empty input", []string{"convert", empty, "-o", filepath.Join(dir, "x.jsonl")}, 1, empty + ": empty input"},
		{"newer version", []string{"convert", newer, "-o", filepath.Join(dir, "x.jsonl")}, 1, newer + ":1: unsupported artifact version"},
		{"stdin twice", []string{"convert", "-", "-", "-o", "-"}, 2, "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agenttrace(t, "", tt.args...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.Empty(t, r.stdout)
		})
	}
	_, err := os.Stat(filepath.Join(dir, "x.jsonl"))
	assert.True(t, os.IsNotExist(err), "a failed conversion writes nothing")
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	assert.Empty(t, leftovers)
}

// TestConvertRefusesItsInput: an output that names one of the inputs
// (by the same path or through a link) is refused before anything is
// read or written: it would silently replace the input.
func TestConvertRefusesItsInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	r := agenttrace(t, "", "convert", dialects(t)["genai-v141"], "-o", path)
	require.Equal(t, 0, r.code, r.stderr)
	before := readFile(t, path)
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(path, link))
	for _, out := range []string{path, link} {
		r = agenttrace(t, "", "convert", path, "-o", out)
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "output "+out+" is the input "+path+": write the output to another file")
		assert.Equal(t, before, readFile(t, path))
	}
	r = agenttrace(t, "", "html", path, "-o", path)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, before, readFile(t, path))
}

// TestConvertCreatesOutputDirs: -o into directories that do not exist
// yet creates them, as --split does, and leaves no temporary file.
func TestConvertCreatesOutputDirs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "nodir", "sub", "x.json")
	r := agenttrace(t, "", "convert", dialects(t)["genai-v141"], "-o", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotEmpty(t, spansOf(t, out))
	leftovers, _ := filepath.Glob(filepath.Join(dir, "nodir", "sub", ".*.tmp"))
	assert.Empty(t, leftovers)
}

// TestConvertOTLPLinesSkipsBadLines: a bad line of OTLP/JSON lines is
// reported and skipped like an artifact's; the other lines convert.
func TestConvertOTLPLinesSkipsBadLines(t *testing.T) {
	src := dialects(t)["genai-v141"]
	doc := readOTLP(t, src)
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(doc)
	require.NoError(t, err)
	path := writeTemp(t, "lines.json", string(line)+"\nnot json\n"+string(line)+"\n")
	out := filepath.Join(t.TempDir(), "out.json")
	r := agenttrace(t, "", "convert", path, "-o", out)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, path+":2: ")
	assert.Contains(t, r.stderr, path+": 1 bad line(s) skipped")
	assert.ElementsMatch(t, append(spansOf(t, src), spansOf(t, src)...), spansOf(t, out))
}

// TestConvertNamesBadInputOnce: a decoder's error names the input
// already; the message does not name it twice. An OTLP/JSON syntax error
// says file:line:column and one line of message (issue 26).
func TestConvertNamesBadInputOnce(t *testing.T) {
	torn := writeTemp(t, "torn.json", `{"resourceSpans":[{"resource":`)
	r := agenttrace(t, "", "convert", torn, "-o", "-")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "agenttrace: "+torn+":1:31: OTLP/JSON syntax error: unexpected end\n", r.stderr)
	assert.NotContains(t, r.stderr, torn+": "+torn)
}

// TestConvertStrictOTLPJSON is issue 26: a typo in OTLP/JSON is no longer
// data (pdata dropped "spanID" and wrote span_id 0000000000000000, exit
// 0), a span without ids is refused, and trailing data is an error; each
// says file:line:column.
func TestConvertStrictOTLPJSON(t *testing.T) {
	const tid = `"traceId":"0102030405060708090a0b0c0d0e0f10"`
	cases := []struct{ name, doc, want string }{
		{"typo", `{"resourceSpans":[{"scopeSpans":[{"spans":[{` + tid + ",\n" + `"spanID":"0102030405060708"}]}]}]}`,
			`:2:1: unknown OTLP/JSON field "spanID" in a span (did you mean "spanId"?)`},
		{"zero span id", `{"resourceSpans":[{"scopeSpans":[{"spans":[{` + tid + `,"spanId":"0000000000000000"}]}]}]}`,
			`:1:44: absent or all-zero id: a span's spanId`},
		{"trailing data", `{"resourceSpans":[]} }`, `:1:22: OTLP/JSON syntax error: unexpected data after the value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "in.json", c.doc)
			r := agenttrace(t, "", "convert", path, "-o", filepath.Join(t.TempDir(), "out.jsonl"))
			assert.Equal(t, 1, r.code)
			assert.Equal(t, "agenttrace: "+path+c.want+"\n", r.stderr)
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestConvertUnwritableStdout: standard output that cannot be written is
// an I/O error (exit 2) naming it, whether the input is streamed or read
// whole, and not a problem of the input.
func TestConvertUnwritableStdout(t *testing.T) {
	for _, src := range []string{"../../testdata/shapes/transcript.jsonl", dialects(t)["genai-v141"]} {
		var stderr bytes.Buffer
		code := run([]string{"convert", src, "-o", "-"}, strings.NewReader(""), failingWriter{}, &stderr)
		assert.Equal(t, 2, code, stderr.String())
		assert.True(t, strings.HasPrefix(stderr.String(), "agenttrace: write standard output: "), stderr.String())
		assert.Contains(t, stderr.String(), "disk full")
	}
}
