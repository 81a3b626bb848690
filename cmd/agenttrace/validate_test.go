package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// validArtifact converts a dialect fixture and returns the artifact's lines
// (header, records, summary trailer).
func validArtifact(t *testing.T) []string {
	t.Helper()
	r := agenttrace(t, "", "convert", dialects(t)["genai-v141"], "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	ls := lines(r.stdout)
	require.Len(t, ls, 10, "header, 8 records, trailer")
	return ls
}

func join(ls []string) string { return strings.Join(ls, "\n") + "\n" }

func TestValidate(t *testing.T) {
	ls := validArtifact(t)
	last := len(ls) // the trailer's line number
	noTrailer := ls[:last-1]
	const ts = `"trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708"`

	tests := []struct {
		name    string
		content string
		code    int
		want    []string // stdout lines, with FILE for the path
		stderr  string
	}{
		{"valid", join(ls), 0, []string{"FILE: ok (8 records)"}, ""},
		{"valid without trailer", join(noTrailer), 0, []string{"FILE: ok (8 records)"}, ""},
		{"torn last line", join(noTrailer[:len(noTrailer)-1]) + noTrailer[len(noTrailer)-1][:40], 1,
			[]string{"FILE:9: torn last line"}, ""},
		{"bad JSON on line 3", join(append(append(append([]string{}, noTrailer[:2]...), `{"kind":"call",`), noTrailer[3:]...)), 1,
			[]string{"FILE:3: invalid record"}, ""},
		{"newer version", `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n" + join(noTrailer[1:]), 1,
			[]string{"FILE:1: unsupported artifact version"}, ""},
		{"missing header", join(noTrailer[1:]), 1, []string{"FILE:1: first line is not a meta header"}, ""},
		{"summary mismatch", join(append(append([]string{}, ls[:last-1]...), strings.Replace(ls[last-1], `"records":8`, `"records":9`, 1))), 1,
			[]string{fmt.Sprintf("FILE:%d: summary says records 9, the records add up to 8", last)}, ""},
		{"summary token mismatch", join(append(append([]string{}, ls[:last-1]...), strings.Replace(ls[last-1], `"input":9732`, `"input":1`, 1))), 1,
			[]string{fmt.Sprintf("FILE:%d: summary says tokens.input 1, the records add up to 9732", last)}, ""},
		{"duplicate span id", join(append(append([]string{}, noTrailer...), noTrailer[2])), 1,
			[]string{"FILE:10: duplicate span_id"}, ""},
		{"finished before started", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}
{"kind":"call","tool":"t",` + ts + `,"started_at":"2026-01-01T00:00:02Z","finished_at":"2026-01-01T00:00:01Z","ok":true}
`, 1, []string{"FILE:2: finished_at 2026-01-01T00:00:01Z is before started_at 2026-01-01T00:00:02Z"}, ""},
		{"unknown kind is valid", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}
{"kind":"thought","text":"hmm"}
{"kind":"call","tool":"t",` + ts + `,"started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true}
`, 0, []string{"FILE: ok (1 records)"}, "FILE: note: 1 line(s) of an unknown kind skipped"},
		{"tool-dispatch trace", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z","core_version":"0.9.0"}
{"kind":"call","tool":"click","ok":true,"started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","elapsed_ms":1000,"estimated_tokens":340}
{"kind":"call","tool":"click","ok":true,"started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","elapsed_ms":1000,"estimated_tokens":340}
`, 0, []string{"FILE: ok (2 records)"}, ""},
		{"empty", "", 1, []string{"FILE: empty file: no meta header"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "run.jsonl", tt.content)
			r := agenttrace(t, "", "validate", path)
			assert.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			got := lines(r.stdout)
			require.Len(t, got, len(tt.want), r.stdout)
			for i, w := range tt.want {
				assert.True(t, strings.HasPrefix(got[i], strings.ReplaceAll(w, "FILE", path)), "got %q, want prefix %q", got[i], w)
			}
			if tt.stderr != "" {
				assert.Contains(t, r.stderr, strings.ReplaceAll(tt.stderr, "FILE", path))
			} else {
				assert.Empty(t, r.stderr)
			}
		})
	}
}

// TestValidateManyFiles: every file is checked; the worst result sets the
// exit status, and a missing file (2) outranks findings (1).
func TestValidateManyFiles(t *testing.T) {
	ls := validArtifact(t)
	good := writeTemp(t, "good.jsonl", join(ls))
	bad := writeTemp(t, "bad.jsonl", join(ls[:3])+"{nope\n")
	missing := filepath.Join(t.TempDir(), "missing.jsonl")

	r := agenttrace(t, "", "validate", good, bad)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, []string{good + ": ok (8 records)", bad + ":4: invalid record"}, cutAfterPrefix(lines(r.stdout), ": invalid record"))

	r = agenttrace(t, "", "validate", good, missing, bad)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, missing+": no such file or directory")
	assert.Contains(t, r.stdout, good+": ok")
	assert.Contains(t, r.stdout, bad+":4: ")

	r = agenttrace(t, join(ls), "validate", "-")
	assert.Equal(t, 0, r.code, r.stdout)
	assert.Equal(t, "<stdin>: ok (8 records)\n", r.stdout)
}

// cutAfterPrefix shortens lines containing marker to end at it, so tests
// need not spell out a decoder's detail.
func cutAfterPrefix(ls []string, marker string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		if j := strings.Index(l, marker); j >= 0 {
			l = l[:j+len(marker)]
		}
		out[i] = l
	}
	return out
}

func TestValidateOTLPIsNotAnArtifact(t *testing.T) {
	src := dialects(t)["genai-v141"]
	r := agenttrace(t, "", "validate", src)
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, src+": not an agenttrace artifact"), r.stdout)
}

// TestValidateBinaryFile: a file that is not text (a PNG renamed .jsonl,
// here the repository's own screenshot) gets one clear line, not one
// problem per "line" of its bytes.
func TestValidateBinaryFile(t *testing.T) {
	pngs, err := filepath.Glob("../../docs/img/*.png")
	require.NoError(t, err)
	require.NotEmpty(t, pngs)
	raw, err := os.ReadFile(pngs[0])
	require.NoError(t, err)
	path := writeTemp(t, "picture.jsonl", string(raw))
	r := agenttrace(t, "", "validate", path)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, path+": not text (binary data at byte 0): not an agenttrace artifact\n", r.stdout)
	assert.Empty(t, r.stderr)
}

// TestValidateTrailerWithDrops: a trailer that reports dropped records is
// still checked: its record counts exactly, its tokens as at least what
// the records hold, its budget as following from its spent.
func TestValidateTrailerWithDrops(t *testing.T) {
	raw, err := os.ReadFile(droppedFixture)
	require.NoError(t, err)
	ls := lines(string(raw))
	last := len(ls)
	trailer := func(old, new string) string {
		require.Contains(t, ls[last-1], old)
		return join(append(append([]string{}, ls[:last-1]...), strings.Replace(ls[last-1], old, new, 1)))
	}
	drops := "FILE:8: note: the summary reports 6 dropped span(s), not in the file"
	tests := []struct {
		name, content string
		code          int
		want          string // the first stdout line, FILE for the path
	}{
		{"as written", join(ls), 0, "FILE: ok (6 records)"},
		{"records", trailer(`"records":6`, `"records":7`), 1, "FILE:8: summary says records 7, the records add up to 6"},
		{"tokens below the records", trailer(`"input":720`, `"input":300`), 1, "FILE:8: summary says tokens.input 300, less than the records add up to (360)"},
		{"total", trailer(`"total":1200`, `"total":1300`), 1, "FILE:8: summary says tokens.total 1300, not tokens.input + tokens.output (1200)"},
		{"spent below the records", trailer(`"spent":1200`, `"spent":500`), 1, "FILE:8: summary says budget.spent 500, less than the records add up to (600)"},
		{"budget not the header's", trailer(`"budget_tokens":1000,"spent"`, `"budget_tokens":2000,"spent"`), 1, "FILE:8: summary says budget.budget_tokens 2000, the header's budget is 1000"},
		{"over budget not said", trailer(`"over_budget":true`, `"over_budget":false`), 1, "FILE:8: summary's budget does not follow from its spent 1200 of 1000"},
		{"truncated", trailer(`"dropped":6`, `"dropped":6,"truncated":2`), 1, "FILE:8: summary says truncated 2, the records add up to 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "run.jsonl", tt.content)
			r := agenttrace(t, "", "validate", path)
			assert.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.True(t, strings.HasPrefix(r.stdout, strings.ReplaceAll(tt.want, "FILE", path)), "got %q, want prefix %q", r.stdout, tt.want)
			assert.Contains(t, r.stderr, strings.ReplaceAll(drops, "FILE", path))
		})
	}
}

// TestBigAttribute: a span with a 20 MiB attribute converts (exit 0) to an
// artifact that validates, with the value truncated and reported by
// validate and tokens; converting it back keeps the span, marked.
func TestBigAttribute(t *testing.T) {
	const size = 20 << 20
	dir := t.TempDir()
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{2})
	sp.SetName("execute_tool fetch")
	sp.SetStartTimestamp(1e18)
	sp.SetEndTimestamp(1e18 + 1e9)
	sp.Attributes().PutStr(semconv.OperationName, "execute_tool")
	sp.Attributes().PutStr(semconv.ToolName, "fetch")
	sp.Attributes().PutStr(semconv.ToolCallResult, strings.Repeat("r", size))
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	otlp := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(otlp, b, 0o644))

	jsonl := filepath.Join(dir, "big.jsonl")
	r := agenttrace(t, "", "convert", otlp, "-o", jsonl)
	require.Equal(t, 0, r.code, r.stderr)

	r = agenttrace(t, "", "validate", jsonl)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Equal(t, jsonl+": ok (1 records; 1 value(s) truncated when written)\n", r.stdout)
	assert.Contains(t, r.stderr, fmt.Sprintf("%s:2: note: span %s: %s truncated when written (%d bytes originally)", jsonl, pcommon.SpanID{2}, semconv.ToolCallResult, size))

	r = agenttrace(t, "", "tokens", "--json", jsonl)
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Truncated int64    `json:"truncated"`
		Notes     []string `json:"notes"`
		ByTool    []struct {
			EstimatedTokens int64 `json:"estimated_tokens"`
		} `json:"by_tool"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, int64(1), rep.Truncated)
	require.Len(t, rep.Notes, 1)
	assert.Contains(t, rep.Notes[0], "1 attribute value was cut short")
	require.Len(t, rep.ByTool, 1)
	assert.Equal(t, int64(size/4), rep.ByTool[0].EstimatedTokens, "the estimate counts the whole result")

	back := filepath.Join(dir, "back.json")
	r = agenttrace(t, "", "convert", jsonl, "-o", back)
	require.Equal(t, 0, r.code, r.stderr)
	got := readOTLP(t, back)
	require.Equal(t, 1, got.SpanCount(), "the span is kept")
	attrs := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	marker, ok := attrs.Get(artifact.TruncatedPrefix + semconv.ToolCallResult)
	require.True(t, ok)
	assert.Equal(t, int64(size), marker.Int())
	result, _ := attrs.Get(semconv.ToolCallResult)
	assert.Greater(t, len(result.Str()), size/2, "most of the value is kept")

	// With a larger --max-line, nothing is cut, and the file needs the
	// same --max-line to be read.
	whole := filepath.Join(dir, "whole.jsonl")
	r = agenttrace(t, "", "convert", otlp, "-o", whole, "--max-line", "32000000")
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "validate", whole)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, whole+":2: line exceeds the buffer limit")
	r = agenttrace(t, "", "validate", "--max-line", "32000000", whole)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Equal(t, whole+": ok (1 records)\n", r.stdout)
}
