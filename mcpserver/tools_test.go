package mcpserver

import (
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/agentsim"
)

// folder is a served folder: two runs of the simulated agent (one
// complete, one stopped by its guard) and every captured real payload as
// an artifact.
type folder struct {
	dir          string
	done, halted string
	doneRes      agentsim.Result // what the complete run's agent did
	runs         []string
}

func newFolder(t *testing.T) folder {
	t.Helper()
	f := folder{dir: t.TempDir()}
	name, r := simRun(t, f.dir, 1, 0)
	require.NoError(t, r.Stopped)
	f.done, f.doneRes = name, r
	f.halted, r = simRun(t, f.dir, 2, 4)
	require.Error(t, r.Stopped)
	f.runs = append([]string{f.done, f.halted}, realRuns(t, f.dir)...)
	return f
}

// pages calls a paged tool from offset 0 until its answer has no
// next_offset, and returns each page's items (decoded by items) and the
// total the pages said.
func pages[T any](t *testing.T, call func(args map[string]any, out any), args map[string]any, items func(*testing.T, map[string]any) []T) ([]T, int) {
	t.Helper()
	var all []T
	total := -1
	for offset := 0; ; {
		a := maps.Clone(args)
		a["offset"] = offset
		var raw map[string]any
		call(a, &raw)
		b, err := json.Marshal(raw)
		require.NoError(t, err)
		var page Page
		require.NoError(t, json.Unmarshal(b, &page))
		got := items(t, raw)
		require.Equal(t, offset, page.Offset)
		require.Equal(t, len(got), page.Returned)
		total = page.Total
		all = append(all, got...)
		if page.NextOffset == nil {
			require.Equal(t, total, offset+len(got), "the last page ends at the total")
			return all, total
		}
		require.Greater(t, *page.NextOffset, offset, "paging moves on")
		require.NotEmpty(t, page.Note, "a page with more to come says so")
		offset = *page.NextOffset
	}
}

// Every tool answers on the simulated agent's runs and on every captured
// real payload, through the Go SDK's client, within 64 KiB; the numbers
// are the agent's own (agentsim.Result) and the artifact's trailer, which
// the bridge wrote while recording.
func TestEveryToolAnswers(t *testing.T) {
	f := newFolder(t)
	cs := connect(t, f.dir)
	bound := MaxAnswerBytes
	largest := map[string]int{} // per tool, the largest answer's text
	t.Cleanup(func() { t.Logf("largest answers (bytes, bound %d): %v", bound, largest) })
	do := func(name string) func(map[string]any, any) {
		return func(args map[string]any, out any) {
			res := call(t, cs, bound, name, args, out)
			require.False(t, res.IsError, "%s %v: %v", name, args, res.Content)
			largest[name] = max(largest[name], len(res.Content[0].(*mcp.TextContent).Text))
		}
	}

	// list_runs, paged: every artifact once.
	var listed []string
	for page := 1; ; page++ {
		var l RunList
		do("list_runs")(map[string]any{"page": page, "per": 25, "sort": "run", "ascending": true}, &l)
		for _, r := range l.Runs {
			listed = append(listed, r.Run)
		}
		if l.NextPage == 0 {
			assert.Equal(t, len(f.runs), l.Matched)
			break
		}
		assert.Equal(t, page+1, l.NextPage)
	}
	assert.ElementsMatch(t, f.runs, listed)
	var errs RunList
	do("list_runs")(map[string]any{"status": "error", "per": 50}, &errs)
	assert.Contains(t, names(errs), f.done, "the complete run has a failed tool call")

	// The complete run: its summary against the trailer the bridge wrote,
	// its conversation and failures against what the agent did.
	var sum RunSummary
	do("run_summary")(map[string]any{"run": f.done}, &sum)
	trailer := trailerOf(t, filepath.Join(f.dir, f.done))
	assert.Equal(t, trailer.Tokens, sum.Tokens)
	assert.Equal(t, trailer.Errors, sum.Errors)
	assert.Equal(t, "done", sum.State)
	require.NotNil(t, sum.CostUSD)

	turns, total := pages(t, do("conversation"), map[string]any{"run": f.done, "limit": 2}, decodeList[Turn]("calls"))
	assert.Equal(t, f.doneRes.ModelCalls, total)
	require.Len(t, turns, total)
	answered := false
	for _, tu := range turns {
		for _, m := range tu.Output {
			answered = answered || strings.Contains(m.Text(), f.doneRes.Answer)
		}
	}
	assert.True(t, answered, "some call answered the agent's final answer %q", f.doneRes.Answer)

	fails, n := pages(t, do("find_errors"), map[string]any{"run": f.done}, decodeList[map[string]any]("failures"))
	assert.Equal(t, int(trailer.Errors), n)
	calls := 0
	for _, fl := range fails {
		if fl["kind"] == "call" {
			calls++
		}
	}
	assert.Equal(t, f.doneRes.ToolErrors, calls)

	var one Conversation
	do("conversation")(map[string]any{"run": f.done, "span_id": turns[0].SpanID}, &one)
	require.Len(t, one.Calls, 1)
	assert.Equal(t, turns[0].SpanID, one.Calls[0].SpanID)

	var diff map[string]any
	do("diff_runs")(map[string]any{"a": f.done, "b": f.halted}, &diff)
	assert.Equal(t, true, diff["diverged"], "the stopped run made fewer calls")

	// Every tool on every run, the real payloads included.
	for _, run := range f.runs {
		var s RunSummary
		do("run_summary")(map[string]any{"run": run}, &s)
		assert.Equal(t, run, s.Run)
		pages(t, do("conversation"), map[string]any{"run": run}, decodeList[Turn]("calls"))
		pages(t, do("find_errors"), map[string]any{"run": run}, decodeList[map[string]any]("failures"))
		pages(t, do("audit_run"), map[string]any{"run": run}, decodeList[map[string]any]("findings"))
		pages(t, do("explain_run"), map[string]any{"run": run, "all_spans": true}, decodeList[map[string]any]("spans"))
		do("diff_runs")(map[string]any{"a": run, "b": f.done}, nil)
	}
}

func names(l RunList) []string {
	var out []string
	for _, r := range l.Runs {
		out = append(out, r.Run)
	}
	return out
}

// trailerOf reads the summary trailer the writer put on an artifact.
func trailerOf(t *testing.T, path string) *artifact.Summary {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd := artifact.NewReader(f)
	for {
		if _, err := rd.Next(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	require.NotNil(t, rd.Summary(), "%s has a trailer", path)
	return rd.Summary()
}

// decodeList returns a function that decodes the list named key of an
// answer.
func decodeList[T any](key string) func(*testing.T, map[string]any) []T {
	return func(t *testing.T, raw map[string]any) []T {
		t.Helper()
		b, err := json.Marshal(raw[key])
		require.NoError(t, err)
		var out []T
		require.NoError(t, json.Unmarshal(b, &out))
		return out
	}
}
