package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

func TestHTML(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "agent-run.jsonl")
	copyFile(t, "../../testdata/golden/agent-run.jsonl", run)

	t.Run("next to the input by default", func(t *testing.T) {
		res := agenttrace(t, "", "html", run)
		require.Equal(t, 0, res.code, res.stderr)
		page, err := os.ReadFile(filepath.Join(dir, "agent-run.html"))
		require.NoError(t, err)
		require.Contains(t, string(page), `data-name="agent-run.jsonl"`)
		require.Contains(t, string(page), `http-equiv="Content-Security-Policy"`)
		require.Contains(t, res.stderr, "12 records in 1 run")
	})

	t.Run("several inputs of any format, one page", func(t *testing.T) {
		out := filepath.Join(dir, "both.html")
		res := agenttrace(t, "", "html", run, "../../testdata/otlp/conversation.json", "--title", "two runs", "-o", out)
		require.Equal(t, 0, res.code, res.stderr)
		page, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Contains(t, string(page), `data-name="conversation.json"`)
		require.Contains(t, string(page), `<title>two runs</title>`)
	})

	t.Run("standard output", func(t *testing.T) {
		stdin, err := os.ReadFile(run)
		require.NoError(t, err)
		res := agenttrace(t, string(stdin), "html", "-", "-o", "-")
		require.Equal(t, 0, res.code, res.stderr)
		require.True(t, strings.HasPrefix(res.stdout, "<!doctype html>"))
		require.Contains(t, res.stdout, `data-name="&lt;stdin&gt;"`)
	})

	t.Run("bad lines are reported and make the exit status 1", func(t *testing.T) {
		b, err := os.ReadFile(run)
		require.NoError(t, err)
		lines := strings.SplitAfter(string(b), "\n")
		lines[3] = "{not json\n"
		bad := filepath.Join(dir, "bad.jsonl")
		require.NoError(t, os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644))
		res := agenttrace(t, "", "html", bad)
		require.Equal(t, exitInvalid, res.code)
		require.Contains(t, res.stderr, "bad.jsonl:4:")
		require.FileExists(t, filepath.Join(dir, "bad.html"), "the page is still written, with the lines that could be read")
	})

	t.Run("dropped records: the trailer's totals and a note", func(t *testing.T) {
		out := filepath.Join(dir, "dropped.html")
		res := agenttrace(t, "", "html", "testdata/dropped-records.jsonl", "-o", out)
		require.Equal(t, 0, res.code, res.stderr)
		page, err := os.ReadFile(out)
		require.NoError(t, err)
		// The outline (no JavaScript) and the embedded report both say it;
		// viewer's browser tests check what the script makes of it.
		require.Contains(t, string(page), "6 records were dropped")
		require.Contains(t, string(page), "1,200 of 1,000 tokens")
		require.Contains(t, string(page), `"from_trailer":true`)
		require.Contains(t, string(page), `"dropped":6`)
	})

	t.Run("usage and I/O errors", func(t *testing.T) {
		require.Equal(t, exitUsage, agenttrace(t, "", "html").code)
		require.Equal(t, exitUsage, agenttrace(t, "x", "html", "-").code, "stdin needs -o")
		res := agenttrace(t, "", "html", filepath.Join(dir, "missing.jsonl"))
		require.Equal(t, exitUsage, res.code)
		require.Contains(t, res.stderr, "missing.jsonl")
		// Missing directories are created (as convert -o does); a path
		// under a regular file cannot be.
		res = agenttrace(t, "", "html", run, "-o", filepath.Join(run, "sub", "x.html"))
		require.Equal(t, exitUsage, res.code)
		require.Contains(t, res.stderr, "not a directory")
		res = agenttrace(t, "", "html", run, "-o", filepath.Join(dir, "no", "such", "dir", "x.html"))
		require.Equal(t, exitOK, res.code, res.stderr)
		require.FileExists(t, filepath.Join(dir, "no", "such", "dir", "x.html"))
	})
}
