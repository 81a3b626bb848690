package main

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// judgeFixture is the path of a fixture of the judge package.
func judgeFixture(name string) string { return filepath.Join("..", "..", "testdata", "judge", name) }

func TestDiffExitCodes(t *testing.T) {
	base, rerun := judgeFixture("diff-base.jsonl"), judgeFixture("diff-rerun.jsonl")
	diverged, redacted := judgeFixture("diff-diverged.jsonl"), judgeFixture("diff-redacted.jsonl")
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	garbage := writeTemp(t, "garbage.txt", "hello\n")
	empty := writeTemp(t, "empty.jsonl", "")
	newer := writeTemp(t, "v2.jsonl", `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}`+"\n")

	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"rerun: no divergence", "", []string{base, rerun}, 0, "Verdict  no divergence\n", ""},
		{"diverged", "", []string{base, diverged}, 1, "Verdict  diverged at index 3\n", ""},
		{"inserted in B", "", []string{base, diverged}, 1, "[6] inserted in B\n", ""},
		{"removed in B", "", []string{diverged, base}, 1, "[6] removed: only in A\n", ""},
		{"summary first", "", []string{base, diverged}, 1,
			"Verdict  diverged at index 3\nCalls    A 6, B 7: 5 matched, 1 diverged, 1 inserted, 0 removed, 0 reordered\nTokens   ", ""},
		{"redacted", "", []string{base, redacted}, 1, "Redacted B: arguments and results are not compared\n", ""},
		{"standard input", readFile(t, rerun), []string{base, "-"}, 0, "Verdict  no divergence\n", ""},
		{"missing file", "", []string{base, missing}, 2, "", missing},
		{"not a trace", "", []string{garbage, base}, 2, "", garbage},
		{"empty input", "", []string{base, empty}, 2, "", "empty input"},
		{"newer schema", "", []string{base, newer}, 2, "", "unsupported artifact version"},
		{"one input", "", []string{base}, 2, "", "missing input"},
		{"three inputs", "", []string{base, rerun, diverged}, 2, "", "got 3 inputs"},
		{"stdin twice", "", []string{"-", "-"}, 2, "", "more than once"},
		{"unknown flag", "", []string{base, rerun, "--yaml"}, 2, "", "unknown flag: --yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := agenttrace(t, tt.stdin, append([]string{"diff"}, tt.args...)...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			if tt.stdout != "" {
				assert.Contains(t, r.stdout, tt.stdout)
			} else {
				assert.Empty(t, r.stdout)
			}
			if tt.stderr != "" {
				assert.Contains(t, r.stderr, tt.stderr)
			} else {
				assert.Empty(t, r.stderr)
			}
		})
	}
}

// diffJSON is the part of `diff --json` the tests speak of.
type diffJSON struct {
	Diverged         bool           `json:"diverged"`
	FirstDivergence  int            `json:"first_divergence"`
	Counts           map[string]int `json:"counts"`
	Redacted         map[string]bool
	PayloadsCompared bool `json:"payloads_compared"`
	Truncated        bool `json:"truncated"`
	Divergences      []struct {
		Index   int      `json:"index"`
		Kind    string   `json:"kind"`
		Fields  []string `json:"fields"`
		Changes []struct {
			Path, Op, A, B string
		} `json:"changes"`
	} `json:"divergences"`
}

func TestDiffJSON(t *testing.T) {
	r := agenttrace(t, "", "diff", "--json", judgeFixture("diff-base.jsonl"), judgeFixture("diff-diverged.jsonl"))
	require.Equal(t, 1, r.code, r.stderr)

	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &top))
	var names []string
	for k := range top {
		names = append(names, k)
	}
	assert.ElementsMatch(t, []string{"counts", "runs", "diverged", "first_divergence", "redacted", "payloads_compared", "divergences", "truncated"}, names)
	assert.True(t, strings.HasPrefix(r.stdout, "{\n  \"counts\": {"), "the report leads with the summary")

	var got diffJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.True(t, got.Diverged)
	assert.Equal(t, 3, got.FirstDivergence)
	assert.Equal(t, map[string]int{"calls_a": 6, "calls_b": 7, "matched": 5, "args_changed": 0, "diverged": 1, "inserted": 1, "removed": 0, "reordered": 0}, got.Counts)
	assert.Equal(t, map[string]bool{"a": false, "b": false}, got.Redacted)
	assert.True(t, got.PayloadsCompared)
	assert.False(t, got.Truncated)
	require.Len(t, got.Divergences, 2)
	d := got.Divergences[0]
	assert.Equal(t, 3, d.Index)
	assert.Equal(t, "outcome", d.Kind)
	assert.Equal(t, []string{"code"}, d.Fields)
	var paths []string
	for _, c := range d.Changes {
		paths = append(paths, c.Op+" "+c.Path)
	}
	assert.Equal(t, []string{"changed args.ref", "changed result.error.code", "changed result.error.message"}, paths)
	assert.Equal(t, "inserted", got.Divergences[1].Kind)

	r = agenttrace(t, "", "diff", "--json", judgeFixture("diff-base.jsonl"), judgeFixture("diff-rerun.jsonl"))
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.False(t, got.Diverged)
	assert.Equal(t, -1, got.FirstDivergence)
	require.Len(t, got.Divergences, 2, "the rerun's changed arguments are listed, and are no divergence")
	for _, d := range got.Divergences {
		assert.Equal(t, "args_changed", d.Kind)
	}
}

// TestDiffOTLP: OTLP inputs diff like artifacts, the redaction flag
// travelling in the resource.
func TestDiffOTLP(t *testing.T) {
	dir := t.TempDir()
	otlp := func(name string) string {
		out := filepath.Join(dir, name+".json")
		r := agenttrace(t, "", "convert", judgeFixture(name+".jsonl"), "-o", out)
		require.Equal(t, 0, r.code, r.stderr)
		return out
	}
	base, redacted := otlp("diff-base"), otlp("diff-redacted")

	r := agenttrace(t, "", "diff", base, judgeFixture("diff-rerun.jsonl"))
	assert.Equal(t, 0, r.code, r.stderr)

	r = agenttrace(t, "", "diff", "--json", judgeFixture("diff-base.jsonl"), redacted)
	require.Equal(t, 1, r.code, r.stderr)
	var got diffJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, map[string]bool{"a": false, "b": true}, got.Redacted)
	assert.False(t, got.PayloadsCompared)
	assert.Equal(t, 3, got.FirstDivergence)
	assert.Empty(t, got.Divergences[0].Changes)
}

// TestDiffBadLines: reader problems go to standard error, and the lines
// that could be read are judged.
func TestDiffBadLines(t *testing.T) {
	rerun := readFile(t, judgeFixture("diff-rerun.jsonl"))
	path := writeTemp(t, "torn.jsonl", rerun+`{"kind":"call","tool":`)
	r := agenttrace(t, "", "diff", judgeFixture("diff-base.jsonl"), path)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Verdict  no divergence")
	assert.Contains(t, r.stderr, path+":10: torn last line")
	assert.Contains(t, r.stderr, path+": 1 bad line(s) skipped")
}

// TestDiffTrailerTruth: a run whose trailer counts records the file does
// not hold is summed up with the trailer's tokens, and the report says
// how many records are missing.
func TestDiffTrailerTruth(t *testing.T) {
	path := filepath.Join("testdata", "dropped-records.jsonl")
	r := agenttrace(t, "", "diff", path, judgeFixture("diff-base.jsonl"))
	assert.Contains(t, r.stdout, "Tokens   A 1,200 (input 720, output 480) from the summary trailer; B 0")
	assert.Contains(t, r.stdout, "Dropped  A: 6 record(s) the summary trailer counts are not in the file")
	assert.Contains(t, r.stdout, "Budget   A 1,000 tokens, spent 1,200: over budget; B none\n")

	r = agenttrace(t, "", "diff", "--json", path, path)
	var got struct {
		Runs struct {
			A struct {
				Dropped           int64 `json:"dropped"`
				TokensFromTrailer bool  `json:"tokens_from_trailer"`
				Tokens            struct{ Total int64 }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, int64(6), got.Runs.A.Dropped)
	assert.True(t, got.Runs.A.TokensFromTrailer)
	assert.Equal(t, int64(1200), got.Runs.A.Tokens.Total)
}

// editDemo rewrites the call records of the demo's artifact with edit
// (each record as a JSON object; returning nil drops it) and writes the
// result next to it.
func editDemo(t *testing.T, run, name string, edit func(calls []map[string]any) []map[string]any) string {
	t.Helper()
	var head, tail []string
	var calls []map[string]any
	for _, l := range lines(readFile(t, run)) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &rec))
		if rec["kind"] == "call" {
			calls = append(calls, rec)
		} else if len(calls) == 0 {
			head = append(head, l)
		} else {
			tail = append(tail, l)
		}
	}
	var out []string
	out = append(out, head...)
	for _, c := range edit(calls) {
		b, err := json.Marshal(c)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	out = append(out, tail...)
	return writeTemp(t, name, strings.Join(out, "\n")+"\n")
}

// TestDiffDemoEdits: the demo's run against copies with one ordinary
// difference each is reported as exactly that difference.
func TestDiffDemoEdits(t *testing.T) {
	run := demoArtifact(t, "")
	byTool := func(calls []map[string]any, tool string) int {
		for i, c := range calls {
			if c["tool"] == tool {
				return i
			}
		}
		t.Fatalf("no %s call", tool)
		return -1
	}
	tests := []struct {
		name   string
		edit   func(calls []map[string]any) []map[string]any
		code   int
		counts map[string]int
		kind   string
	}{
		{"inserted retry", func(calls []map[string]any) []map[string]any {
			i := byTool(calls, "search_flights")
			retry := maps.Clone(calls[i])
			retry["span_id"], retry["tool_call_id"] = "00000000000000aa", "call_retry"
			retry["started_at"], retry["finished_at"] = "2026-05-11T09:30:03.197000000Z", "2026-05-11T09:30:03.600000000Z"
			retry["elapsed_ms"] = 403
			return append(calls, retry)
		}, 1, map[string]int{"matched": 4, "inserted": 1}, "inserted"},
		{"removed call", func(calls []map[string]any) []map[string]any {
			i := byTool(calls, "search_trains")
			return append(calls[:i], calls[i+1:]...)
		}, 1, map[string]int{"matched": 3, "removed": 1}, "removed"},
		{"reordered pair", func(calls []map[string]any) []map[string]any {
			x, y := calls[byTool(calls, "search_trains")], calls[byTool(calls, "search_flights")]
			for _, k := range []string{"started_at", "finished_at", "elapsed_ms"} {
				x[k], y[k] = y[k], x[k]
			}
			return calls
		}, 1, map[string]int{"matched": 3, "reordered": 1}, "reordered"},
		{"changed argument", func(calls []map[string]any) []map[string]any {
			calls[byTool(calls, "search_trains")]["args"].(map[string]any)["date"] = "2026-06-16"
			return calls
		}, 0, map[string]int{"matched": 4, "args_changed": 1}, "args_changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := editDemo(t, run, "edited.jsonl", tt.edit)
			r := agenttrace(t, "", "diff", "--json", run, b)
			assert.Equal(t, tt.code, r.code, r.stderr)
			var got diffJSON
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
			for _, k := range []string{"matched", "diverged", "inserted", "removed", "reordered", "args_changed"} {
				assert.Equal(t, tt.counts[k], got.Counts[k], k)
			}
			require.Len(t, got.Divergences, 1)
			assert.Equal(t, tt.kind, got.Divergences[0].Kind)
		})
	}
}
