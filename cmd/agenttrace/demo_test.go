package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// demoRun runs `agenttrace demo --out DIR args...` into a fresh DIR and
// returns the result and the artifact paths it printed.
func demoRun(t *testing.T, args ...string) (result, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "runs")
	r := agenttrace(t, "", append([]string{"demo", "--out", dir}, args...)...)
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	var paths []string
	for _, l := range lines(r.stdout) {
		if strings.HasPrefix(l, dir+string(filepath.Separator)) {
			paths = append(paths, l)
		}
	}
	require.NotEmpty(t, paths, "no artifact path in:\n%s", r.stdout)
	for _, p := range paths {
		assert.Equal(t, ".jsonl", filepath.Ext(p))
		assert.FileExists(t, p)
	}
	return r, paths
}

// demoTokens is the part of `tokens --json` these tests look at.
type demoTokens struct {
	Records  map[string]int64       `json:"records"`
	Tokens   artifact.Tokens        `json:"tokens"`
	Errors   int64                  `json:"errors"`
	Budget   *artifact.BudgetStatus `json:"budget"`
	Failures []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"failures"`
}

func tokensOf(t *testing.T, paths []string) demoTokens {
	t.Helper()
	r := agenttrace(t, "", append([]string{"tokens", "--json"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var got demoTokens
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	return got
}

var tokensLine = regexp.MustCompile(`(?m)^Tokens +([\d,]+) \(input ([\d,]+), output ([\d,]+); cache read ([\d,]+), cache creation ([\d,]+), reasoning ([\d,]+)\)$`)

// printedTokens reads the totals off the demo's Tokens line.
func printedTokens(t *testing.T, stdout string) artifact.Tokens {
	t.Helper()
	m := tokensLine.FindStringSubmatch(stdout)
	require.NotNil(t, m, "no Tokens line in:\n%s", stdout)
	n := make([]int64, len(m))
	for i := 1; i < len(m); i++ {
		v, err := strconv.ParseInt(strings.ReplaceAll(m[i], ",", ""), 10, 64)
		require.NoError(t, err)
		n[i] = v
	}
	return artifact.Tokens{Total: n[1], Input: n[2], Output: n[3], CacheRead: n[4], CacheCreation: n[5], Reasoning: n[6]}
}

// trailer reads an artifact to the end and returns its summary trailer.
func trailer(t *testing.T, path string) *artifact.Summary {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := artifact.NewReader(f, artifact.WithSource(path))
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	require.Empty(t, r.Problems())
	require.NotNil(t, r.Summary(), "%s has no summary trailer", path)
	return r.Summary()
}

// TestDemo: the default run writes an artifact that validates, holds the
// whole run, and whose tokens `agenttrace tokens` totals as demo printed.
func TestDemo(t *testing.T) {
	t.Parallel()
	r, paths := demoRun(t)
	assert.Empty(t, r.stderr)
	assert.Contains(t, r.stdout, "planner answered: 5 model calls, 4 tool calls (1 failed)")
	require.Len(t, paths, 1, "one trace, one artifact")

	v := agenttrace(t, "", append([]string{"validate"}, paths...)...)
	assert.Equal(t, 0, v.code, v.stdout+v.stderr)

	got := tokensOf(t, paths)
	assert.Equal(t, printedTokens(t, r.stdout), got.Tokens, "demo prints what tokens totals")
	assert.GreaterOrEqual(t, got.Records["inference"], int64(3))
	assert.Equal(t, int64(2), got.Records["agent"], "the planner and hotel-scout")
	assert.Positive(t, got.Tokens.CacheRead)
	assert.Nil(t, got.Budget)
	require.Len(t, got.Failures, 1)
	assert.Equal(t, "call", got.Failures[0].Kind)
	assert.Equal(t, "execute_tool search_flights", got.Failures[0].Name)

	// The summary demo prints is the head of the tokens report.
	text := agenttrace(t, "", append([]string{"tokens"}, paths...)...)
	require.Equal(t, 0, text.code, text.stderr)
	head, _, _ := strings.Cut(text.stdout, "\n\n")
	assert.Contains(t, r.stdout, "\n"+head+"\n")

	s := trailer(t, paths[0])
	assert.True(t, s.Complete)
	assert.Equal(t, got.Tokens, s.Tokens)
	assert.Equal(t, int64(1), s.Errors)
}

// TestDemoIsDeterministic: a seed gives the same artifact, byte for byte.
func TestDemoIsDeterministic(t *testing.T) {
	t.Parallel()
	_, a := demoRun(t)
	_, b := demoRun(t)
	_, c := demoRun(t, "--seed", "7")
	require.Len(t, b, len(a))
	for i := range a {
		assert.Equal(t, filepath.Base(a[i]), filepath.Base(b[i]))
		want, err := os.ReadFile(a[i])
		require.NoError(t, err)
		got, err := os.ReadFile(b[i])
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "same seed, same bytes")
	}
	assert.NotEqual(t, filepath.Base(a[0]), filepath.Base(c[0]), "another seed, another trace id")
}

// TestDemoTwiceIntoOneDir: running the demo again replaces its artifact
// rather than appending a second copy of the trace to it.
func TestDemoTwiceIntoOneDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := agenttrace(t, "", "demo", "--out", dir)
	require.Equal(t, 0, first.code, first.stderr)
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, paths, 1)
	want, err := os.ReadFile(paths[0])
	require.NoError(t, err)

	again := agenttrace(t, "", "demo", "--out", dir)
	require.Equal(t, 0, again.code, again.stderr)
	assert.Contains(t, again.stderr, "note: replacing "+paths[0])
	assert.Equal(t, first.stdout, again.stdout)
	got, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	v := agenttrace(t, "", "validate", paths[0])
	assert.Equal(t, 0, v.code, v.stdout+v.stderr)
}

// TestDemoBudget: a small budget stops the agent early; the stop is the
// budget working, so demo exits 0, and the artifact records it.
func TestDemoBudget(t *testing.T) {
	t.Parallel()
	_, full := demoRun(t)
	r, paths := demoRun(t, "--budget", "3000")
	assert.Regexp(t, `(?m)^budget exceeded after \d+ model calls: spent \d+ of 3000 tokens; stopping$`, r.stderr)
	assert.Contains(t, r.stdout, "planner stopped by its token budget")

	v := agenttrace(t, "", append([]string{"validate"}, paths...)...)
	assert.Equal(t, 0, v.code, v.stdout+v.stderr)

	s := trailer(t, paths[0])
	require.NotNil(t, s.Budget)
	assert.True(t, s.Budget.OverBudget)
	assert.Equal(t, int64(3000), s.Budget.BudgetTokens)
	assert.GreaterOrEqual(t, s.Budget.Spent, int64(3000))
	assert.Less(t, s.Inferences, trailer(t, full[0]).Inferences, "fewer model calls than the full run")

	got := tokensOf(t, paths)
	require.NotNil(t, got.Budget)
	assert.True(t, got.Budget.OverBudget)
	assert.Equal(t, s.Budget.Spent, got.Budget.Spent)
	assert.Equal(t, printedTokens(t, r.stdout), got.Tokens)
	assert.Equal(t, int64(2), got.Records["agent"], "the stop ends the open agents too")
}

func TestDemoUsageErrors(t *testing.T) {
	t.Parallel()
	file := writeTemp(t, "file", "not a directory\n")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no --out", []string{"demo"}, `"out" not set`},
		{"empty --out", []string{"demo", "--out", ""}, "--out"},
		{"negative budget", []string{"demo", "--out", t.TempDir(), "--budget", "-1"}, "--budget -1"},
		{"argument", []string{"demo", "--out", t.TempDir(), "extra"}, "extra"},
		{"out is a file", []string{"demo", "--out", file}, file},
		{"out under a file", []string{"demo", "--out", filepath.Join(file, "runs")}, file},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := agenttrace(t, "", tt.args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.Empty(t, r.stdout)
		})
	}
}

// TestInvocation: the command demo prints to run agenttrace again is go
// run with the package's directory as seen from the working directory
// (inside the module), or the package path (outside), for an executable
// go run built; else the name the shell found it by, or the path it was
// started by.
func TestInvocation(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mod := filepath.Join(root, "mod")
	for dir, gomod := range map[string]string{
		mod:                          "// a comment\nmodule example.com/m // the main module\n\ngo 1.26\n",
		filepath.Join(mod, "nested"): "module example.com/m/nested\n",
	} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	}
	for _, dir := range []string{"cmd/tool", "nested/deep", "bin", "my dir"} {
		require.NoError(t, os.MkdirAll(filepath.Join(mod, dir), 0o755))
	}
	onPath := filepath.Join(mod, "bin", "tool")
	require.NoError(t, os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755))
	lookPath := func(name string) (string, error) {
		if name == "tool" {
			return onPath, nil
		}
		return "", exec.ErrNotFound
	}
	devel := &debug.BuildInfo{Path: "example.com/m/cmd/tool", Main: debug.Module{Path: "example.com/m", Version: "(devel)"}}
	released := &debug.BuildInfo{Path: "example.com/m/cmd/tool", Main: debug.Module{Path: "example.com/m", Version: "v1.2.3"}}
	const (
		tempExe   = "/tmp/go-build3388486806/b001/exe/tool"
		cachedExe = "/root/.cache/go-build/04/048c74a841421b4fcc8ca6c3bbc598903321cbe0dfa15fd7401ac5940a344912-d/tool"
	)
	tests := []struct {
		name, arg0, cwd string
		bi              *debug.BuildInfo
		want            string
	}{
		{"go run from the module root", tempExe, mod, devel, "go run ./cmd/tool"},
		{"go run, cached executable", cachedExe, mod, devel, "go run ./cmd/tool"},
		{"go run from the package", tempExe, filepath.Join(mod, "cmd", "tool"), devel, "go run ."},
		{"go run from a nested module", cachedExe, filepath.Join(mod, "nested", "deep"), devel, "go run ../../cmd/tool"},
		{"go run outside the module, released", tempExe, root, released, "go run example.com/m/cmd/tool@v1.2.3"},
		{"go run outside the module, devel", tempExe, root, devel, "go run example.com/m/cmd/tool"},
		{"on PATH", "tool", mod, devel, "tool"},
		{"a path to what PATH finds", onPath, root, devel, "tool"},
		{"a path PATH does not lead to", "./bin/other", mod, devel, "./bin/other"},
		{"a path that needs quoting", filepath.Join(mod, "my dir", "tool"), mod, devel, "'" + filepath.Join(mod, "my dir", "tool") + "'"},
		{"not a go run directory", "/tmp/go-build1/b001/tool.test", mod, devel, "/tmp/go-build1/b001/tool.test"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, invocation(tc.arg0, tc.cwd, tc.bi, lookPath))
		})
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"runs/2a7e.jsonl":     "runs/2a7e.jsonl",
		"go.example/m@v1.0.0": "go.example/m@v1.0.0",
		"my runs/a.jsonl":     "'my runs/a.jsonl'",
		"it's":                `'it'\''s'`,
		"$HOME":               "'$HOME'",
		"":                    "''",
		"a;rm -rf b":          "'a;rm -rf b'",
		"C:/x,y=z+1%":         "C:/x,y=z+1%",
		"tab\there":           "'tab\there'",
		"glob*":               "'glob*'",
		"semi~colon":          "'semi~colon'",
	} {
		assert.Equal(t, want, shellQuote(in), in)
	}
}

// TestDemoCommandsWork: the commands demo prints at its end run as
// printed, in the shell and directory demo ran in: with agenttrace
// installed on PATH, and under go run from a clone.
func TestDemoCommandsWork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agenttrace")
	}
	t.Parallel()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command")
	moduleRoot, err := filepath.Abs("../..")
	require.NoError(t, err)

	// sh runs a command line in dir, with bin first on PATH.
	sh := func(t *testing.T, dir, bin, line string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s (in %s):\n%s", line, dir, out)
		return string(out)
	}
	// printed returns the commands after the demo's closing labels.
	printed := func(t *testing.T, out string) (tokens, html string) {
		t.Helper()
		for _, l := range lines(out) {
			if c, ok := strings.CutPrefix(l, "Where they went: "); ok {
				tokens = c
			}
			if c, ok := strings.CutPrefix(l, "Look at it:      "); ok {
				html = c
			}
		}
		require.NotEmpty(t, tokens, "no tokens command in:\n%s", out)
		require.NotEmpty(t, html, "no html command in:\n%s", out)
		return tokens, html
	}

	t.Run("installed", func(t *testing.T) {
		t.Parallel()
		bin, work := t.TempDir(), t.TempDir()
		build := exec.Command(goBin, "build", "-o", filepath.Join(bin, "agenttrace"), ".")
		out, err := build.CombinedOutput()
		require.NoError(t, err, "go build:\n%s", out)

		demo := sh(t, work, bin, "agenttrace demo --out runs")
		tokens, html := printed(t, demo)
		assert.True(t, strings.HasPrefix(tokens, "agenttrace tokens runs/"), tokens)
		assert.Contains(t, sh(t, work, bin, tokens), "Tokens ")
		sh(t, work, bin, html)
		matches, err := filepath.Glob(filepath.Join(work, "runs", "*.html"))
		require.NoError(t, err)
		assert.Len(t, matches, 1, "html wrote the page")
	})
	t.Run("go run", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "runs")
		demo := sh(t, moduleRoot, filepath.Dir(goBin), "go run ./cmd/agenttrace demo --out "+shellQuote(out))
		tokens, html := printed(t, demo)
		assert.True(t, strings.HasPrefix(tokens, "go run ./cmd/agenttrace tokens "+out), tokens)
		assert.Contains(t, sh(t, moduleRoot, filepath.Dir(goBin), tokens), "Tokens ")
		sh(t, moduleRoot, filepath.Dir(goBin), html)
	})
}
