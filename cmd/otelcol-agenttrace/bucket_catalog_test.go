package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/internal/seaweedtest"
	"github.com/agenttrace/agenttrace/report"
)

// tokensJSON is what the catalog's numbers are checked against in
// `agenttrace tokens --json`.
type tokensJSON struct {
	Records report.RecordCounts `json:"records"`
	Errors  int64               `json:"errors"`
	Tokens  artifact.Tokens     `json:"tokens"`
	Dropped int64               `json:"dropped"`
	Trunc   int64               `json:"truncated"`
	report.Cost
}

// checkCatalog (issue 23 point 2): the catalog the collector kept in the
// bucket (`agenttrace runs s3://… --json`) holds one row per run, naming
// all its objects, whose numbers are `agenttrace tokens --json` of the
// run read from the bucket (its generations merged). It returns the rows
// checked.
func checkCatalog(t *testing.T, cli string, s *seaweedtest.Server, objs map[string]*object) int {
	t.Helper()
	var page struct {
		Total int           `json:"total"`
		Runs  []catalog.Row `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(runCLI(t, cli, "runs", s.URL(bucketPrefix), "--json", "--limit", "0")), &page))
	runs := runsOf(objs)
	assert.Equal(t, len(runs), page.Total, "one row per run")
	byKey := map[string]catalog.Row{}
	for _, row := range page.Runs {
		if assert.NotEmpty(t, row.Keys, row.Run) {
			byKey[row.Keys[0]] = row
		}
	}
	n := 0
	for trace, gens := range runs {
		var keys []string
		for _, o := range gens {
			keys = append(keys, strings.TrimPrefix(o.key, bucketPrefix+"/"))
		}
		row, ok := byKey[keys[0]]
		if !assert.True(t, ok, "run %s: a catalog row", trace) {
			continue
		}
		n++
		assert.Equal(t, keys, row.Keys, "run %s: the row names every generation", trace)
		var want tokensJSON
		require.NoError(t, json.Unmarshal([]byte(runCLI(t, cli, "tokens", s.URL(gens[0].key), "--json")), &want))
		want.CostFromSpans = 0 // no column of the catalog
		got := tokensJSON{
			Records: report.RecordCounts{Call: row.Calls, Inference: row.Inferences, Agent: row.Agents, Span: row.Spans},
			Errors:  row.Errors, Dropped: row.Dropped, Trunc: row.Truncated,
			Tokens: artifact.Tokens{Input: row.InputTokens, Output: row.OutputTokens, CacheRead: row.CacheReadTokens,
				CacheCreation: row.CacheCreationTokens, Reasoning: row.ReasoningTokens, Total: row.TotalTokens},
			Cost: report.Cost{CostUSD: row.CostUSD, CostUnknown: row.CostUnknown},
		}
		assert.Equal(t, want, got, "run %s (%d objects): the catalog row is tokens --json of the run", trace, len(gens))
	}
	return n
}
