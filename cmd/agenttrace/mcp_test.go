package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// mcpSession runs `agenttrace mcp args...` in-process with pipes for
// standard input and output, and connects the Go SDK's client to it over
// them (the stdio transport). The returned function closes the session
// and returns the command's result.
func mcpSession(t *testing.T, args ...string) (*mcp.ClientSession, func() result) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(append([]string{"mcp"}, args...), inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agenttrace-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err)
	return cs, func() result {
		require.NoError(t, cs.Close())
		return result{code: <-done, stderr: stderr.String()}
	}
}

// mcpText calls a tool and returns its answer's text.
func mcpText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return string(b), res.IsError
}

// agenttrace mcp redacts what its tools answer as serve shows runs: an
// artifact written with --no-redact (its header does not say it was
// scanned) answers none of the planted secrets, and with --no-redact the
// conversation shows some, so the fixture reaches the answers at all.
func TestMCPRedactsAndServesStdio(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := loadPlanted(t)
	dir := t.TempDir()
	r := agenttrace(t, "", "convert", "--no-redact", filepath.Join(redactionDir, "otlp.json"), "-o", filepath.Join(dir, "run.jsonl"))
	require.Equal(t, 0, r.code, r.stderr)
	tools := []struct {
		name string
		args map[string]any
	}{
		{"list_runs", map[string]any{}},
		{"run_summary", map[string]any{"run": "run.jsonl"}},
		{"conversation", map[string]any{"run": "run.jsonl"}},
		{"find_errors", map[string]any{"run": "run.jsonl"}},
		{"audit_run", map[string]any{"run": "run.jsonl"}},
		{"explain_run", map[string]any{"run": "run.jsonl", "all_spans": true}},
		{"diff_runs", map[string]any{"a": "run.jsonl", "b": "run.jsonl"}},
	}
	cs, stop := mcpSession(t, dir)
	for _, tool := range tools {
		out, isErr := mcpText(t, cs, tool.name, tool.args)
		require.False(t, isErr, "%s: %s", tool.name, out)
		for family, s := range p.Secrets {
			assert.NotContains(t, out, core(s), "%s answered the %s secret", tool.name, family)
		}
	}
	res := stop()
	assert.Equal(t, 0, res.code, res.stderr)

	cs, stop = mcpSession(t, "--no-redact", dir)
	out, isErr := mcpText(t, cs, "conversation", map[string]any{"run": "run.jsonl"})
	require.False(t, isErr, out)
	kept := 0
	for _, s := range p.Secrets {
		if strings.Contains(out, core(s)) {
			kept++
		}
	}
	assert.Positive(t, kept, "with --no-redact the conversation shows the planted secrets")
	res = stop()
	assert.Equal(t, 0, res.code, res.stderr)
}

func TestMCPUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", dir, "--http", "0.0.0.0:0"}, "--allow-remote"},
		{[]string{"mcp", dir, "--http", "192.0.2.1:80"}, "not a loopback address"},
		{[]string{"mcp", dir, "--allow-remote"}, "--allow-remote needs --http"},
		{[]string{"mcp", dir, dir}, "one directory"},
		{[]string{"mcp", filepath.Join(dir, "missing")}, "missing"},
	} {
		r := agenttrace(t, "", tc.args...)
		assert.Equal(t, 2, r.code, "%v", tc.args)
		assert.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}

// explain_run answers what `agenttrace explain --json` computes: the same
// totals and, with all_spans, the same spans, on a real payload.
func TestMCPExplainIsExplain(t *testing.T) {
	dir := t.TempDir()
	in := "../../testdata/real/openllmetry-openai/payloads"
	traces, err := filepath.Glob(filepath.Join(in, "*.traces.json"))
	require.NoError(t, err)
	require.NotEmpty(t, traces)
	run := filepath.Join(dir, "run.jsonl")
	r := agenttrace(t, "", "convert", traces[0], "-o", run)
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "explain", "--json", run)
	require.Less(t, r.code, 2, r.stderr)
	var cli struct {
		Spans []map[string]any `json:"spans"`
		Total map[string]any   `json:"total"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &cli))

	cs, stop := mcpSession(t, dir)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "explain_run", Arguments: map[string]any{"run": "run.jsonl", "all_spans": true, "limit": 500}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var got struct {
		Spans  []map[string]any `json:"spans"`
		Totals map[string]any   `json:"totals"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, cli.Total, got.Totals)
	require.Len(t, got.Spans, len(cli.Spans))
	for i := range cli.Spans {
		delete(cli.Spans[i], "file") // the input's name: the path given, or the run's name
		delete(got.Spans[i], "file")
	}
	assert.Equal(t, cli.Spans, got.Spans)
	assert.Equal(t, 0, stop().code)
}
