package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/report"
)

// runsFolder converts every real payload of testdata/real into an
// artifact of a new folder, and adds artifacts with a budget and with
// dropped records.
func runsFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var payloads []string
	for _, pat := range []string{"*.traces.json", "*.traces.pb"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", "real", "*", "payloads", pat))
		require.NoError(t, err)
		payloads = append(payloads, m...)
	}
	require.NotEmpty(t, payloads)
	for _, p := range payloads {
		lib := filepath.Base(filepath.Dir(filepath.Dir(p)))
		name := lib + "-" + strings.ReplaceAll(filepath.Base(p), ".", "-") + ".jsonl"
		r := agenttrace(t, "", "convert", p, "-o", filepath.Join(dir, name))
		require.Equal(t, 0, r.code, "%s: %s", p, r.stderr)
	}
	for _, p := range []string{"testdata/dropped-records.jsonl", "../../testdata/golden/agent-run.jsonl", "../../testdata/golden/genai-v141.jsonl"} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644))
	}
	return dir
}

// runTokens is what runs --json and tokens --json share.
type runTokens struct {
	Records report.RecordCounts    `json:"records"`
	Errors  int64                  `json:"errors"`
	Tokens  artifact.Tokens        `json:"tokens"`
	Budget  *artifact.BudgetStatus `json:"budget"`
	Dropped int64                  `json:"dropped"`
	Trunc   int64                  `json:"truncated"`
	report.Cost
	ByModel []struct {
		Model string `json:"model"`
	} `json:"by_model"`
	ByTool []struct {
		Tool string `json:"tool"`
	} `json:"by_tool"`
}

// `runs DIR --json` agrees with `tokens --json` of each run, over real
// payloads converted into a folder.
func TestRunsAgreesWithTokens(t *testing.T) {
	dir := runsFolder(t)
	r := agenttrace(t, "", "runs", dir)
	require.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "catalog build")

	r = agenttrace(t, "", "catalog", "build", dir)
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "runs", dir, "--json", "--limit", "0")
	require.Equal(t, 0, r.code, r.stderr)
	var page struct {
		Total int           `json:"total"`
		Runs  []catalog.Row `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page))
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Equal(t, len(files), page.Total)
	require.Len(t, page.Runs, len(files))
	budgets := 0
	for _, row := range page.Runs {
		t.Run(row.Run, func(t *testing.T) {
			if assertRowIsTokens(t, row, filepath.Join(dir, row.Run)) {
				budgets++
			}
		})
	}
	assert.Positive(t, budgets, "some run has a budget")
}

func TestRunsFlags(t *testing.T) {
	dir := runsFolder(t)
	require.Equal(t, 0, agenttrace(t, "", "catalog", "build", dir).code)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a table, newest first", []string{"--limit", "2"}, 0, "1–2 of"},
		{"a bad sort", []string{"--sort", "price"}, 2, "unknown sort"},
		{"a bad age", []string{"--older-than", "soon"}, 2, "--older-than"},
		{"a bad date", []string{"--since", "2026-13-40"}, 2, "--since"},
		{"a negative limit", []string{"--limit", "-1"}, 2, "--limit"},
		{"a bucket without a catalog", []string{"file://" + filepath.ToSlash(t.TempDir())}, 1, "no catalog yet"},
		{"nothing older than a century", []string{"--older-than", "36500d"}, 0, "of 0 runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"runs", dir}, tt.args...)
			if strings.Contains(tt.args[0], "://") {
				args = []string{"runs", tt.args[0]}
			}
			r := agenttrace(t, "", args...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			assert.Contains(t, r.stdout+r.stderr, tt.want)
		})
	}
}

func TestCatalogCompact(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../testdata/golden/agent-run.jsonl")
	require.NoError(t, err)
	for _, n := range []string{"a.jsonl", "b.jsonl"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
		require.Equal(t, 0, agenttrace(t, "", "catalog", "build", dir).code) // builds do not compact...
	}
	r := agenttrace(t, "", "catalog", "compact", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "into 0") // ...but replace: one file, nothing to merge
	r = agenttrace(t, "", "runs", dir, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"total": 2`)
}

func TestServeRetentionFlags(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--otlp-max-bytes", "1000"}, "need --otlp"},
		{[]string{"--otlp-catalog=false"}, "need --otlp"},
		{[]string{"--otlp", "--otlp-max-age", "soon"}, "--otlp-max-age"},
		{[]string{"--otlp", "--otlp-max-age", "-3h"}, "--otlp-max-age"},
		{[]string{"--otlp", "--otlp-max-bytes", "-1"}, "max_bytes -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := agenttrace(t, "", append([]string{"serve", dir}, tt.args...)...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
}

// assertRowIsTokens checks a catalog row against `tokens --json` of the
// artifact at path, and reports whether the run has a budget.
func assertRowIsTokens(t *testing.T, row catalog.Row, path string) bool {
	tr := agenttrace(t, "", "tokens", path, "--json")
	require.Contains(t, []int{0, 1}, tr.code, tr.stderr)
	var want runTokens
	require.NoError(t, json.Unmarshal([]byte(tr.stdout), &want))
	got := runTokens{
		Records: report.RecordCounts{Call: row.Calls, Inference: row.Inferences, Agent: row.Agents, Span: row.Spans},
		Errors:  row.Errors, Dropped: row.Dropped, Trunc: row.Truncated,
		Tokens: artifact.Tokens{Input: row.InputTokens, Output: row.OutputTokens, CacheRead: row.CacheReadTokens,
			CacheCreation: row.CacheCreationTokens, Reasoning: row.ReasoningTokens, Total: row.TotalTokens},
	}
	assert.Equal(t, want.Records, got.Records)
	assert.Equal(t, want.Records.Total(), row.Records)
	assert.Equal(t, want.Errors, got.Errors)
	assert.Equal(t, want.Tokens, got.Tokens)
	assert.Equal(t, want.Dropped, got.Dropped)
	assert.Equal(t, want.Trunc, got.Trunc)
	assert.Equal(t, want.CostUSD, row.CostUSD)
	assert.Equal(t, want.CostUnknown, row.CostUnknown)
	var models, tools []string
	for _, m := range want.ByModel {
		models = append(models, m.Model)
	}
	for _, x := range want.ByTool {
		tools = append(tools, x.Tool)
	}
	assert.ElementsMatch(t, models, row.Models)
	assert.ElementsMatch(t, tools, row.Tools)
	b := want.Budget
	if b == nil {
		assert.Zero(t, row.BudgetTokens)
		assert.Zero(t, row.BudgetUSD)
		return false
	}
	assert.Equal(t, b.BudgetTokens, row.BudgetTokens)
	assert.Equal(t, b.Spent, row.BudgetSpent)
	assert.Equal(t, b.OverBudget, row.OverBudget)
	assert.Equal(t, b.NearBudget, row.NearBudget)
	if b.CostBudget != nil {
		assert.Equal(t, b.BudgetUSD, row.BudgetUSD)
		assert.Equal(t, b.SpentUSD, row.SpentUSD)
		assert.Equal(t, b.OverBudgetUSD, row.OverBudgetUSD)
	}
	return true
}

// `runs file://…` (a bucket through gocloud) agrees with `tokens --json`
// of each run's local copy, its catalog built from the bucket.
func TestRunsOfABucketAgreesWithTokens(t *testing.T) {
	dir := runsFolder(t)
	url := "file://" + filepath.ToSlash(t.TempDir())
	b, err := bucket.Open(t.Context(), url)
	require.NoError(t, err)
	local := map[string]string{}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	for _, f := range files {
		key, _, err := b.Put(t.Context(), f, filepath.Base(f), false)
		require.NoError(t, err)
		local[key] = f
	}
	require.NoError(t, b.Close())

	r := agenttrace(t, "", "runs", url)
	require.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "catalog build")
	r = agenttrace(t, "", "catalog", "build", url)
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "runs", url, "--json", "--limit", "0")
	require.Equal(t, 0, r.code, r.stderr)
	var page struct {
		Total int           `json:"total"`
		Runs  []catalog.Row `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &page))
	require.Equal(t, len(local), page.Total)
	for _, row := range page.Runs {
		t.Run(row.Run, func(t *testing.T) {
			require.Len(t, row.Keys, 1)
			path, ok := local[row.Keys[0]]
			require.True(t, ok, row.Keys[0])
			assertRowIsTokens(t, row, path)
		})
	}
	r = agenttrace(t, "", "catalog", "compact", url)
	assert.Equal(t, 0, r.code, r.stderr)
}
