// Package mcpe2e holds the end-to-end test of `agenttrace mcp` with a
// client no one here wrote: the Model Context Protocol TypeScript SDK's
// (@modelcontextprotocol/sdk from npm, pinned in js/package-lock.json),
// which starts the real binary and speaks to it over stdio, as a coding
// agent does. Every tool must answer on the demo's run and on converted
// real payloads, within 64 KiB, and a path outside the folder must be
// refused.
//
// Set-up: `npm ci --prefix internal/mcpe2e/js` (CI runs it; without it
// the test is skipped locally and fails under CI=true).
package mcpe2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/clibuild"
)

// binary builds agenttrace once for the package's tests.
var binary string

func TestMain(m *testing.M) { clibuild.Main(m, &binary) }

// jsDir is the npm project of the JavaScript client.
const jsDir = "js"

func needNodeModules(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the MCP TypeScript SDK is not installed: run `npm ci --prefix internal/mcpe2e/js` first (%v)", err)
		}
		t.Skipf("the MCP TypeScript SDK is not installed (npm ci --prefix internal/mcpe2e/js): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node: %v", err)
	}
}

// agenttrace runs the binary and returns its standard output.
func agenttrace(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(binary, args...).Output()
	require.NoError(t, err, "agenttrace %v", args)
	return string(out)
}

// toolCall is one call the client makes; answer what it got.
type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type answer struct {
	Name       string          `json:"name"`
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
}

// bound is the answers' documented bound (mcpserver.MaxAnswerBytes).
const bound = 64 << 10

// The TypeScript SDK's client lists the seven tools and calls each on the
// demo's run and on a real payload of every captured library (converted
// with agenttrace convert); each answers within 64 KiB, the demo run's
// summary gives the tokens `agenttrace tokens --json` reports, and a run
// outside the folder is refused as a tool error.
func TestTypeScriptClient(t *testing.T) {
	needNodeModules(t)
	dir := t.TempDir()
	agenttrace(t, "demo", "--out", filepath.Join(dir, "demo"))
	demo, err := filepath.Glob(filepath.Join(dir, "demo", "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, demo, 1)
	runs := []string{"demo/" + filepath.Base(demo[0])}
	libs, err := filepath.Glob("../../testdata/real/*/payloads")
	require.NoError(t, err)
	for _, p := range libs {
		traces, err := filepath.Glob(filepath.Join(p, "*.traces.json"))
		require.NoError(t, err)
		if len(traces) == 0 {
			continue
		}
		name := "real/" + filepath.Base(filepath.Dir(p)) + ".jsonl"
		agenttrace(t, "convert", traces[0], "-o", filepath.Join(dir, filepath.FromSlash(name)))
		runs = append(runs, name)
	}
	outside := filepath.Join(t.TempDir(), "outside.jsonl")
	require.NoError(t, os.WriteFile(outside, []byte("{}\n"), 0o644))

	calls := []toolCall{{"list_runs", map[string]any{"per": 50}}}
	for _, run := range runs {
		for _, tool := range []string{"run_summary", "conversation", "find_errors", "audit_run", "explain_run"} {
			calls = append(calls, toolCall{tool, map[string]any{"run": run}})
		}
		calls = append(calls, toolCall{"diff_runs", map[string]any{"a": runs[0], "b": run}})
	}
	refused := []string{outside, "../" + filepath.Base(filepath.Dir(outside)) + "/outside.jsonl", "demo/../../outside.jsonl"}
	for _, p := range refused {
		calls = append(calls, toolCall{"run_summary", map[string]any{"run": p}})
	}

	answers, tools := runClient(t, dir, calls)
	assert.ElementsMatch(t, []string{"list_runs", "run_summary", "conversation", "find_errors", "diff_runs", "audit_run", "explain_run"}, tools)
	require.Len(t, answers, len(calls))
	for i, a := range answers {
		assert.Equal(t, calls[i].Name, a.Name)
		assert.LessOrEqual(t, len(a.Text), bound, "%s %v", a.Name, calls[i].Arguments)
		assert.LessOrEqual(t, len(a.Structured), bound, "%s %v", a.Name, calls[i].Arguments)
		if i >= len(answers)-len(refused) {
			assert.True(t, a.IsError, "%v answered", calls[i].Arguments)
			assert.Contains(t, a.Text, "refused")
			continue
		}
		assert.False(t, a.IsError, "%s %v: %s", a.Name, calls[i].Arguments, a.Text)
	}

	var list struct {
		Runs []struct {
			Run string `json:"run"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(answers[0].Structured, &list))
	var listed []string
	for _, r := range list.Runs {
		listed = append(listed, r.Run)
	}
	assert.ElementsMatch(t, runs, listed)

	var rep, sum struct {
		Tokens map[string]int64 `json:"tokens"`
	}
	require.NoError(t, json.Unmarshal([]byte(agenttrace(t, "tokens", "--json", demo[0])), &rep))
	require.NoError(t, json.Unmarshal(answers[1].Structured, &sum))
	assert.Equal(t, rep.Tokens, sum.Tokens)
	assert.Positive(t, sum.Tokens["total"])
}

// runClient runs the JavaScript client on dir with calls and returns its
// answers and the tools the server listed.
func runClient(t *testing.T, dir string, calls []toolCall) ([]answer, []string) {
	t.Helper()
	in, err := json.Marshal(calls)
	require.NoError(t, err)
	node := exec.Command("node", "client.mjs", binary, dir)
	node.Dir = jsDir
	node.Stdin = strings.NewReader(string(in))
	node.Stderr = os.Stderr
	out, err := node.Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 8<<20)
	require.True(t, sc.Scan(), "the client printed nothing")
	var listed struct {
		Tools []string `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(sc.Bytes(), &listed))
	var answers []answer
	for sc.Scan() {
		var a answer
		require.NoError(t, json.Unmarshal(sc.Bytes(), &a))
		answers = append(answers, a)
	}
	require.NoError(t, sc.Err())
	return answers, listed.Tools
}

// `agenttrace mcp --http 127.0.0.1:0` serves the Go SDK's streamable HTTP
// client at the address it prints, refuses a request addressed to another
// name, and exits 0 on SIGTERM with a session still open.
func TestHTTPBinary(t *testing.T) {
	dir := t.TempDir()
	agenttrace(t, "demo", "--out", dir)
	cmd := exec.Command(binary, "mcp", dir, "--http", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan struct{}) // closed when the process ended, with waitErr set
	var waitErr error
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, br); waitErr = cmd.Wait(); close(exited) }()
	m := servingRe.FindStringSubmatch(line)
	require.NotNil(t, m, "printed %q", line)
	endpoint := m[1]

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpe2e", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_runs", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	var list struct {
		Matched int `json:"matched"`
	}
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &list))
	assert.Equal(t, 1, list.Matched)

	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Host = "rebind.example:80"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	<-exited
	require.NoError(t, waitErr, "exit 0 on SIGTERM")
	_ = cs.Close()
}

var servingRe = regexp.MustCompile(`^serving MCP for .+ at (http://127\.0\.0\.1:\d+/mcp)\n$`)
