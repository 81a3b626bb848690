package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
