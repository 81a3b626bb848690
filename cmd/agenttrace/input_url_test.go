package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command that reads artifacts reads one by its bucket URL (issue 23
// point 3) as it reads the file: the same output, the URL where the path
// was. The bucket is a folder (gocloud's fileblob, file://); the artifact
// is the reference run testdata/golden/agent-run.jsonl.
func TestCommandsReadBucketURLs(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "agent-run.jsonl"))
	require.NoError(t, err)
	local := filepath.Join(dir, "runs", "abc.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(local), 0o755))
	require.NoError(t, os.WriteFile(local, data, 0o644))
	obj := "file://" + filepath.ToSlash(local)

	for _, args := range [][]string{
		{"tokens", "--json", "%s"},
		{"tokens", "%s"},
		{"messages", "%s"},
		{"validate", "%s"},
		{"explain", "%s"},
		{"audit", "%s"},
		{"diff", "%s", "%s"},
		{"html", "%s", "-o", "-"},
		{"convert", "%s", "--to", "otlp-json", "-o", "-"},
	} {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			with := func(in string) []string {
				out := make([]string, len(args))
				for i, a := range args {
					out[i] = strings.ReplaceAll(a, "%s", in)
				}
				return out
			}
			want := agenttrace(t, "", with(local)...)
			require.Equal(t, 0, want.code, want.stderr)
			got := agenttrace(t, "", with(obj)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, want.stdout, strings.ReplaceAll(got.stdout, obj, local))
		})
	}

	// A missing object fails as a missing file does: exit 2, naming it.
	r := agenttrace(t, "", "tokens", "file://"+filepath.ToSlash(filepath.Join(dir, "runs", "missing.jsonl")))
	assert.Equal(t, exitUsage, r.code, r.stderr) // 2: the input cannot be read
	assert.Contains(t, r.stderr, "missing.jsonl")
}
