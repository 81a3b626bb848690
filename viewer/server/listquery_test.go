package server_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer"
)

var listRowRe = regexp.MustCompile(`<tr data-path="([^"]*)"`)

// listed are the runs the list page shows for query, in order.
func listed(t *testing.T, ts *testServer, query string) []string {
	t.Helper()
	resp, body := ts.get(t, "/?"+query)
	require.Equal(t, http.StatusOK, resp.StatusCode, query)
	var out []string
	for _, m := range listRowRe.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func goldenDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		copyFile(t, filepath.Join(golden, n), dir, n)
	}
	return dir
}

// The list filters, searches and sorts through its URL: by service,
// agent, model and status, across names, tools, models and message text,
// by every sortable column both ways.
func TestListFiltersAndSorts(t *testing.T) {
	ts := start(t, goldenDir(t, "agent-run.jsonl", "openinference.jsonl", "langfuse.jsonl", "conversation.jsonl"))
	tests := []struct {
		query string
		want  []string
	}{
		{"q=lisbon", []string{"conversation.jsonl", "agent-run.jsonl"}}, // message text
		{"q=LISBON&service=travel-planner", []string{"conversation.jsonl", "agent-run.jsonl"}},
		{"q=read_file", []string{"openinference.jsonl"}},                                  // a tool name
		{"q=gpt-4o", []string{"conversation.jsonl", "agent-run.jsonl", "langfuse.jsonl"}}, // a model
		{"q=no+such+words", nil},
		{"service=codebot", []string{"openinference.jsonl"}},
		{"agent=hotel-finder", []string{"agent-run.jsonl"}},
		{"model=text-embedding-3-small", []string{"langfuse.jsonl"}},
		{"status=error", []string{"agent-run.jsonl", "langfuse.jsonl", "openinference.jsonl"}},
		{"status=running", nil},
		{"since=1h", nil}, // the fixtures are months old
		{"min_tokens=5000", []string{"agent-run.jsonl", "openinference.jsonl"}},
		{"min_tokens=3,200&sort=tokens&dir=asc", []string{"conversation.jsonl", "openinference.jsonl", "agent-run.jsonl"}},
		{"min_duration=20s", []string{"conversation.jsonl", "agent-run.jsonl"}},
		{"min_duration=1m&service=travel-planner", []string{"conversation.jsonl"}},
		{"min_tokens=junk&min_duration=-5s", []string{"conversation.jsonl", "agent-run.jsonl", "langfuse.jsonl", "openinference.jsonl"}},
		{"sort=tokens", []string{"agent-run.jsonl", "openinference.jsonl", "conversation.jsonl", "langfuse.jsonl"}},
		{"sort=tokens&dir=asc", []string{"langfuse.jsonl", "conversation.jsonl", "openinference.jsonl", "agent-run.jsonl"}},
		{"sort=duration", []string{"conversation.jsonl", "agent-run.jsonl", "openinference.jsonl", "langfuse.jsonl"}},
		// Costs: agent-run $0.0242, openinference $0.0115 or more (a call
		// of no known model), conversation $0.0090, langfuse $0.0035 or
		// more (two embedding calls of no known price).
		{"sort=cost", []string{"agent-run.jsonl", "openinference.jsonl", "conversation.jsonl", "langfuse.jsonl"}},
		{"sort=cost&dir=asc", []string{"langfuse.jsonl", "conversation.jsonl", "openinference.jsonl", "agent-run.jsonl"}},
		{"min_cost=0.01&sort=cost", []string{"agent-run.jsonl", "openinference.jsonl"}}, // a lower bound that reaches the minimum
		{"min_cost=%240.009&sort=cost&dir=asc", []string{"openinference.jsonl", "agent-run.jsonl"}},
		{"max_cost=0.01", []string{"conversation.jsonl"}}, // unpriced calls: not known to be within
		{"max_cost=%241&sort=cost", []string{"agent-run.jsonl", "conversation.jsonl"}},
		{"min_cost=0.005&max_cost=0.01", []string{"conversation.jsonl"}},
		{"min_cost=0.1", nil},
		{"min_cost=lots&max_cost=-1", []string{"conversation.jsonl", "agent-run.jsonl", "langfuse.jsonl", "openinference.jsonl"}},
		{"sort=run", []string{"agent-run.jsonl", "conversation.jsonl", "langfuse.jsonl", "openinference.jsonl"}},
		{"sort=bogus&status=bogus", []string{"conversation.jsonl", "agent-run.jsonl", "langfuse.jsonl", "openinference.jsonl"}}, // newest first
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			assert.Equal(t, tt.want, listed(t, ts, tt.query))
		})
	}
	// A search is shown back as text, never markup.
	_, body := ts.get(t, "/?q="+url.QueryEscape(`"><script>alert(1)</script>`))
	assert.NotContains(t, body, "<script>alert(1)")
	assert.Contains(t, body, "&lt;script&gt;alert(1)")
}

// /version changes when a file changes, so the list page reloads.
func TestListVersion(t *testing.T) {
	dir := goldenDir(t, "agent-run.jsonl")
	ts := start(t, dir)
	_, v1 := ts.get(t, "/version")
	_, v2 := ts.get(t, "/version")
	assert.Equal(t, v1, v2)
	copyFile(t, filepath.Join(golden, "langfuse.jsonl"), dir, "new.jsonl")
	_, v3 := ts.get(t, "/version")
	assert.NotEqual(t, v1, v3)
	_, page := ts.get(t, "/")
	assert.Contains(t, page, `data-version="`+v3+`"`)
}

// Two runs side by side: totals, tools and models of each, and where the
// tool calls diverge (judge.Diff), each linked to its span.
func TestCompare(t *testing.T) {
	dir := goldenDir(t, "agent-run.jsonl", "openinference.jsonl")
	ts := start(t, dir)
	resp, body := ts.get(t, "/compare?c=agent-run.jsonl&c=openinference.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "The tool calls diverge")
	for _, want := range []string{`data-tool="find_hotels"`, `data-tool="read_file"`, `data-model="gpt-4o-2024-08-06"`, `id="divergences"`, `href="/run/agent-run.jsonl#span=`, `href="/run/openinference.jsonl#span=`} {
		assert.Contains(t, body, want)
	}
	// Cost side by side, as the run pages and `agenttrace tokens` say it:
	// a run with a call of no known model is a lower bound.
	costA := viewer.CostText(expect(t, filepath.Join(dir, "agent-run.jsonl")).rep.Cost)
	costB := viewer.CostText(expect(t, filepath.Join(dir, "openinference.jsonl")).rep.Cost)
	assert.True(t, strings.HasSuffix(costB, " or more"), costB)
	assert.Contains(t, body, `<tr id="cost"><th>Cost</th><td class="n">`+costA+`</td><td class="n">`+costB+`</td></tr>`)
	assert.Regexp(t, `data-model="gpt-4.1-2025-04-14"><th>[^<]*</th><td class="n">0 calls · 0 tokens</td><td class="n">\d+ calls? · [\d,]+ tokens · \$0\.\d{4}</td>`, body)
	resp, body = ts.get(t, "/compare?a=agent-run.jsonl&b=agent-run.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "Same tool calls, same outcomes")
	assert.NotContains(t, body, `id="divergences"`)

	for _, bad := range []struct {
		query string
		code  int
	}{
		{"c=agent-run.jsonl", http.StatusBadRequest},
		{"c=agent-run.jsonl&c=../x.jsonl", http.StatusBadRequest},
		{"c=agent-run.jsonl&c=missing.jsonl", http.StatusNotFound},
		{"c=agent-run.jsonl&c=" + url.QueryEscape("/etc/passwd"), http.StatusBadRequest},
	} {
		resp, body := ts.get(t, "/compare?"+bad.query)
		assert.Equal(t, bad.code, resp.StatusCode, "%s: %s", bad.query, strings.TrimSpace(body))
	}
}
