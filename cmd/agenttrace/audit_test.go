package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auditFixtures are the judge package's audit fixtures: the category
// each plants and its severity ("" for the clean one).
var auditFixtures = []struct{ name, category, severity string }{
	{"audit-clean.jsonl", "", ""},
	{"audit-missing_call.jsonl", "missing_call", "error"},
	{"audit-phantom_call.jsonl", "phantom_call", "warning"},
	{"audit-argument_drift.jsonl", "argument_drift", "error"},
	{"audit-hidden_retry.jsonl", "hidden_retry", "warning"},
	{"audit-token_underreport.jsonl", "token_underreport", "error"},
	{"audit-missing_finish_reason.jsonl", "missing_finish_reason", "warning"},
	{"audit-orphan_span.jsonl", "orphan_span", "warning"},
}

func TestAuditExitCodes(t *testing.T) {
	rank := map[string]int{"": 0, "info": 1, "warning": 2, "error": 3}
	for _, f := range auditFixtures {
		for _, failOn := range []string{"", "info", "warning", "error"} {
			t.Run(f.name+"/"+failOn, func(t *testing.T) {
				t.Parallel()
				path := judgeFixture(f.name)
				args := []string{"audit", path}
				if failOn != "" {
					args = append(args, "--fail-on", failOn)
				}
				r := agenttrace(t, "", args...)
				threshold := rank[failOn]
				if failOn == "" {
					threshold = rank["error"] // the default
				}
				want := 0
				if f.severity != "" && rank[f.severity] >= threshold {
					want = 1
				}
				assert.Equal(t, want, r.code, r.stderr)
				assert.Empty(t, r.stderr)
				if f.category == "" {
					assert.Equal(t, path+": no findings\n", r.stdout)
					return
				}
				ls := lines(r.stdout)
				require.Len(t, ls, 1)
				assert.True(t, strings.HasPrefix(ls[0], path+": "+f.severity+" "+f.category+": "), ls[0])
				assert.Contains(t, ls[0], "(trace ")
			})
		}
	}
}

func TestAuditJSON(t *testing.T) {
	args := []string{"audit", "--json"}
	for _, f := range auditFixtures {
		args = append(args, judgeFixture(f.name))
	}
	r := agenttrace(t, "", args...)
	require.Equal(t, 1, r.code, r.stderr)

	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &top))
	assert.Len(t, top, 2)
	var got struct {
		Files []struct {
			File     string                       `json:"file"`
			Findings []map[string]json.RawMessage `json:"findings"`
		} `json:"files"`
		Counts struct {
			Total, Error, Warning, Info int
			ByCategory                  map[string]int `json:"by_category"`
		} `json:"counts"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.Len(t, got.Files, len(auditFixtures))
	for i, f := range auditFixtures {
		assert.Equal(t, judgeFixture(f.name), got.Files[i].File)
		if f.category == "" {
			assert.NotNil(t, got.Files[i].Findings, "[] rather than null")
			assert.Empty(t, got.Files[i].Findings)
			continue
		}
		require.Len(t, got.Files[i].Findings, 1)
		fd := got.Files[i].Findings[0]
		assert.JSONEq(t, `"`+f.category+`"`, string(fd["category"]))
		assert.JSONEq(t, `"`+f.severity+`"`, string(fd["severity"]))
		for _, k := range []string{"message", "trace_id", "span_ids"} {
			assert.Contains(t, fd, k)
		}
	}
	assert.Equal(t, 7, got.Counts.Total)
	assert.Equal(t, 3, got.Counts.Error)
	assert.Equal(t, 4, got.Counts.Warning)
	assert.Equal(t, 0, got.Counts.Info)
	assert.Len(t, got.Counts.ByCategory, 7)
}

func TestAuditInputs(t *testing.T) {
	clean, drift := judgeFixture("audit-clean.jsonl"), judgeFixture("audit-argument_drift.jsonl")
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	garbage := writeTemp(t, "garbage.txt", "hello\n")
	torn := writeTemp(t, "torn.jsonl", readFile(t, clean)+`{"kind":"call",`)

	otlp := filepath.Join(t.TempDir(), "drift.json")
	r := agenttrace(t, "", "convert", drift, "-o", otlp)
	require.Equal(t, 0, r.code, r.stderr)

	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string // prefixes of the lines, in order
		stderr string
	}{
		{"OTLP input", "", []string{otlp}, 1, []string{otlp + ": error argument_drift: "}, ""},
		{"standard input", readFile(t, drift), []string{"-"}, 1, []string{"<stdin>: error argument_drift: "}, ""},
		{"a missing file does not hide the others", "", []string{missing, clean}, 2, []string{clean + ": no findings"}, missing},
		{"not a trace", "", []string{garbage, clean}, 1, []string{clean + ": no findings"}, garbage},
		{"skipped lines", "", []string{torn}, 1, []string{torn + ": no findings"}, torn + ": 1 bad line(s) skipped"},
		{"no inputs", "", nil, 2, nil, "missing input"},
		{"bad --fail-on", "", []string{clean, "--fail-on", "fatal"}, 2, nil, `--fail-on: unknown severity "fatal"`},
		{"stdin twice", "", []string{"-", "-"}, 2, nil, "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := agenttrace(t, tt.stdin, append([]string{"audit"}, tt.args...)...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			if tt.stdout == nil {
				assert.Empty(t, r.stdout)
			} else {
				ls := lines(r.stdout)
				require.Len(t, ls, len(tt.stdout), r.stdout)
				for i, p := range tt.stdout {
					assert.True(t, strings.HasPrefix(ls[i], p), ls[i])
				}
			}
			if tt.stderr != "" {
				assert.Contains(t, r.stderr, tt.stderr)
			} else {
				assert.Empty(t, r.stderr)
			}
		})
	}
}

// TestJudgeFixturesValidate: the committed fixtures are valid artifacts.
func TestJudgeFixturesValidate(t *testing.T) {
	files, err := filepath.Glob(judgeFixture("*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 25) // diff (4), audit (9), two-layer (6 pairs)
	r := agenttrace(t, "", append([]string{"validate"}, files...)...)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Len(t, lines(r.stdout), len(files))
}

// TestAuditBudgetStoppedDemo: the demo's run that its token budget ended
// is ended, not missing the calls its last model call asked for.
func TestAuditBudgetStoppedDemo(t *testing.T) {
	dir := t.TempDir()
	r := agenttrace(t, "", "demo", "--out", dir, "--budget", "3000")
	require.Equal(t, 0, r.code, r.stderr)
	runs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	r = agenttrace(t, "", "audit", runs[0])
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, runs[0]+": no findings\n", r.stdout)
}

// TestAuditAgainst: two recordings of one run are reconciled; each
// planted lie gives one finding naming both files and their lines.
func TestAuditAgainst(t *testing.T) {
	tests := []struct {
		pair, category string
		code           int
	}{
		{"clean", "", 0},
		{"missing", "missing_call", 1},
		{"phantom", "phantom_call", 0},
		{"retried", "hidden_retry", 0},
		{"drifted", "argument_drift", 1},
		{"underreported-loop", "token_underreport", 1},
	}
	for _, tt := range tests {
		t.Run(tt.pair, func(t *testing.T) {
			t.Parallel()
			a, b := judgeFixture("two-layer-"+tt.pair+"-a.jsonl"), judgeFixture("two-layer-"+tt.pair+"-b.jsonl")
			r := agenttrace(t, "", "audit", a, "--against", b)
			assert.Equal(t, tt.code, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			ls := lines(r.stdout)
			require.Len(t, ls, 1, r.stdout)
			if tt.category == "" {
				assert.Equal(t, a+" vs "+b+": no findings", ls[0])
				return
			}
			assert.Contains(t, ls[0], " "+tt.category+": ")
			assert.Contains(t, ls[0], "[A: "+a+" line 2")
			assert.Regexp(t, `; B: `+regexp.QuoteMeta(b)+` lines? \d`, ls[0])

			r = agenttrace(t, "", "audit", a, "--against", b, "--json", "--fail-on", "warning")
			assert.Equal(t, 1, r.code, r.stderr)
			var got struct {
				Runs     []struct{ By string }
				Findings []struct {
					Category string
					A, B     struct {
						File  string
						Lines []int
					}
				}
				Counts struct{ Total int }
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
			require.Len(t, got.Findings, 1)
			assert.Equal(t, tt.category, got.Findings[0].Category)
			assert.Equal(t, a, got.Findings[0].A.File)
			assert.Equal(t, b, got.Findings[0].B.File)
			assert.NotEmpty(t, got.Findings[0].A.Lines)
			assert.NotEmpty(t, got.Findings[0].B.Lines)
			assert.Equal(t, 1, got.Counts.Total)
			require.Len(t, got.Runs, 1)
			assert.Equal(t, "conversation_id", got.Runs[0].By)
		})
	}
}

func TestAuditAgainstUsage(t *testing.T) {
	a, b := judgeFixture("two-layer-clean-a.jsonl"), judgeFixture("two-layer-clean-b.jsonl")
	r := agenttrace(t, "", "audit", a, b, "--against", b)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--against reconciles one recording")

	r = agenttrace(t, "", "audit", a, "--against", filepath.Join("testdata", "dropped-records.jsonl"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "share no run")
}

// TestAuditTrailerTruth: a file whose trailer counts records it does not
// hold says so, with the trailer's totals, in text and JSON.
func TestAuditTrailerTruth(t *testing.T) {
	path := filepath.Join("testdata", "dropped-records.jsonl")
	r := agenttrace(t, "", "audit", path)
	assert.Contains(t, r.stdout, path+": note: the summary trailer counts 6 record(s) the file does not hold")
	assert.Contains(t, r.stdout, "1,200 tokens, budget 1,000 (over budget)")

	r = agenttrace(t, "", "audit", "--json", path)
	var got struct {
		Files []struct {
			Trailer *struct {
				Dropped int64
				Tokens  struct{ Total int64 }
				Budget  struct {
					OverBudget bool `json:"over_budget"`
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	require.Len(t, got.Files, 1)
	require.NotNil(t, got.Files[0].Trailer)
	assert.Equal(t, int64(6), got.Files[0].Trailer.Dropped)
	assert.Equal(t, int64(1200), got.Files[0].Trailer.Tokens.Total)
	assert.True(t, got.Files[0].Trailer.Budget.OverBudget)
}
