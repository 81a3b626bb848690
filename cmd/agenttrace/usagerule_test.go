package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usageRuleReport is the part of tokens --json the usage rule fills.
type usageRuleReport struct {
	Tokens      map[string]int64 `json:"tokens"`
	UsageLevels []struct {
		SpanID   string           `json:"span_id"`
		Name     string           `json:"name"`
		Reported map[string]int64 `json:"reported"`
		Children map[string]int64 `json:"children"`
		Counted  map[string]int64 `json:"counted"`
	} `json:"usage_levels"`
	ReportedTotal *int64 `json:"reported_total"`
	Unattributed  int64  `json:"unattributed"`
}

func usageRuleTokens(t *testing.T, path string) usageRuleReport {
	t.Helper()
	r := agenttrace(t, "", "tokens", "--json", path)
	require.Equal(t, 0, r.code, r.stderr)
	var rep usageRuleReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	return rep
}

// TestUsageLevelsListed: the Vercel AI SDK v5's ai.generateText reports
// its last step's usage only (testdata/real/vercel-ai-v5, tool-loop):
// the total is the calls' sum, and tokens --json names the wrapper with
// what it reported (the second call's usage) and what its children sum
// to, both from the fake server's script in expected.json.
func TestUsageLevelsListed(t *testing.T) {
	dir := "../../testdata/real/vercel-ai-v5"
	var exp struct {
		Scenarios map[string]struct {
			Tokens map[string]int64 `json:"tokens"`
			Calls  []struct {
				Tokens map[string]int64 `json:"tokens"`
			} `json:"calls"`
		} `json:"scenarios"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &exp))
	sc := exp.Scenarios["tool-loop"]
	require.Len(t, sc.Calls, 2)
	for _, enc := range []string{"json", "pb"} {
		t.Run(enc, func(t *testing.T) {
			rep := usageRuleTokens(t, filepath.Join(dir, "payloads", "tool-loop.traces."+enc))
			for class, n := range sc.Tokens {
				assert.Equal(t, n, rep.Tokens[class], "tokens.%s", class)
			}
			var found bool
			for _, l := range rep.UsageLevels {
				if l.Name != "ai.generateText" {
					continue
				}
				found = true
				for class, n := range sc.Tokens {
					assert.Equal(t, sc.Calls[1].Tokens[class], l.Reported[class], "reported.%s: the last step's", class)
					assert.Equal(t, n, l.Children[class], "children.%s: the calls' sum", class)
					assert.Zero(t, l.Counted[class], "counted.%s: the wrapper adds nothing", class)
				}
			}
			assert.True(t, found, "ai.generateText is listed: %+v", rep.UsageLevels)
		})
	}
}

// TestTrajectoryReportedTotal: a trajectory whose final record states
// more total_tokens than its records itemize
// (testdata/shapes/trajectory-seed.jsonl, from a coditect trajectory
// log) reports that total and the remainder no span accounts for.
func TestTrajectoryReportedTotal(t *testing.T) {
	path := "../../testdata/shapes/trajectory-seed.jsonl"
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var stated int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			Type        string `json:"type"`
			TotalTokens int64  `json:"total_tokens"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		if rec.Type == "final" {
			stated = rec.TotalTokens
		}
	}
	require.NoError(t, sc.Err())
	require.Positive(t, stated)

	rep := usageRuleTokens(t, path)
	require.Less(t, rep.Tokens["total"], stated, "the seed's final total is above its itemized usage")
	require.NotNil(t, rep.ReportedTotal)
	assert.Equal(t, stated, *rep.ReportedTotal)
	assert.Equal(t, stated-rep.Tokens["total"], rep.Unattributed)
}

// TestNoReportedTotalWithoutOne: a run whose source states no total
// has neither member.
func TestNoReportedTotalWithoutOne(t *testing.T) {
	r := agenttrace(t, "", "tokens", "--json", "../../testdata/real/vercel-ai-v5/payloads/tool-loop.traces.json")
	require.Equal(t, 0, r.code, r.stderr)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &m))
	assert.NotContains(t, m, "reported_total")
	assert.NotContains(t, m, "unattributed")
	assert.Contains(t, m, "usage_levels")
}
