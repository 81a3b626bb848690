package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUsageErrors(t *testing.T) {
	src := dialects(t)["genai-v141"]
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"convert", src, "-o", "x.jsonl", "--bogus"}, "unknown flag: --bogus"},
		{"convert without inputs", []string{"convert", "-o", "x.jsonl"}, "missing input"},
		{"convert without output", []string{"convert", src}, "say where to write: -o OUT"},
		{"output and split", []string{"convert", src, "-o", "x.jsonl", "--split", dir}, "-o and --split: give one"},
		{"unknown extension", []string{"convert", src, "-o", filepath.Join(dir, "x.txt")}, `"` + filepath.Join(dir, "x.txt") + `"`},
		{"bad --to", []string{"convert", src, "-o", "-", "--to", "xml"}, `--to "xml"`},
		{"bad --group-by", []string{"convert", src, "--split", dir, "--group-by", "user"}, `--group-by "user"`},
		{"--group-by without --split", []string{"convert", src, "-o", "-", "--group-by", "trace"}, "--group-by needs --split"},
		{"bad --from", []string{"convert", src, "-o", "-", "--from", "otlp"}, `--from "otlp"`},
		{"--from is one shape", []string{"convert", src, "-o", "-", "--from", "jsonl, otlp-json"}, `--from "jsonl, otlp-json"`},
		{"validate without files", []string{"validate"}, "missing file"},
		{"tokens without files", []string{"tokens"}, "missing input"},
		{"bad --top", []string{"tokens", src, "--top", "-1"}, "--top -1"},
		{"non-numeric --top", []string{"tokens", src, "--top", "many"}, "--top"},
		{"stdin twice", []string{"tokens", "-", "-"}, "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agenttrace(t, "", tt.args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.Empty(t, r.stdout)
		})
	}
}

func TestMissingFileExits2(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, cmd := range [][]string{
		{"convert", missing, "-o", "-"},
		{"tokens", missing},
		{"validate", missing},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			r := agenttrace(t, "", cmd...)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, missing)
			assert.Empty(t, r.stdout)
		})
	}
}

// TestUnreadableInputExits2: an input that opens but cannot be read is
// an I/O error, named once.
func TestUnreadableInputExits2(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range [][]string{{"convert", dir, "-o", "-"}, {"tokens", dir}, {"validate", dir}, {"audit", dir}} {
		r := agenttrace(t, "", cmd...)
		assert.Equal(t, 2, r.code, cmd)
		assert.True(t, strings.HasPrefix(r.stderr, "agenttrace: read "+dir+": "), r.stderr)
		assert.Equal(t, 1, strings.Count(r.stderr, dir), r.stderr)
	}
}

func TestHelp(t *testing.T) {
	r := agenttrace(t, "", "--help")
	assert.Equal(t, 0, r.code)
	for _, cmd := range []string{"convert", "validate", "tokens"} {
		assert.Contains(t, r.stdout, cmd)
	}
	r = agenttrace(t, "", "convert", "--help")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.Contains(r.stdout, "--split"))
	assert.Empty(t, r.stderr)
}
