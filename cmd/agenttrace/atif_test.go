package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const atifFixtures = "../../testdata/atif"

// turnsOf is messages --json of paths, each call's system, input and
// output as text, sorted.
func turnsOf(t *testing.T, paths ...string) []string {
	t.Helper()
	r := agenttrace(t, "", append([]string{"messages", "--json"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var turns []struct {
		System json.RawMessage `json:"system"`
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &turns))
	out := make([]string, len(turns))
	for i, tr := range turns {
		out[i] = string(tr.System) + string(tr.Input) + string(tr.Output)
	}
	slices.Sort(out)
	return out
}

// atifTokensOf is tokens --json of paths: the totals and what the source
// states.
type atifTokens struct {
	Tokens struct {
		Input, Output int64
		CacheRead     int64 `json:"cache_read"`
		Total         int64
	} `json:"tokens"`
	ReportedTotal *int64 `json:"reported_total"`
	Unattributed  int64  `json:"unattributed"`
}

func atifTokensOf(t *testing.T, paths ...string) atifTokens {
	t.Helper()
	r := agenttrace(t, "", append([]string{"tokens", "--json"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	var tj atifTokens
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tj))
	return tj
}

// The demo run (a planner with a nested hotel-scout agent) to ATIF and
// back: the same conversation and tokens; the nested agent a subagent
// trajectory the tool call refers to.
func TestConvertATIFDemo(t *testing.T) {
	dir := t.TempDir()
	r := agenttrace(t, "", "demo", "--out", dir)
	require.Equal(t, 0, r.code, r.stderr)
	arts, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, arts)
	for _, art := range arts {
		doc := filepath.Join(t.TempDir(), "run.atif.json")
		r := agenttrace(t, "", "convert", art, "-o", doc) // the format from the name
		require.Equal(t, 0, r.code, r.stderr)
		raw, err := os.ReadFile(doc)
		require.NoError(t, err)
		var top struct {
			SchemaVersion string `json:"schema_version"`
			Agent         struct{ Name string }
			Subagents     []struct {
				TrajectoryID string `json:"trajectory_id"`
				Agent        struct{ Name string }
			} `json:"subagent_trajectories"`
		}
		require.NoError(t, json.Unmarshal(raw, &top))
		assert.Equal(t, "ATIF-v1.7", top.SchemaVersion)
		assert.Equal(t, "planner", top.Agent.Name)
		require.NotEmpty(t, top.Subagents, "the nested agent")
		assert.Equal(t, "hotel-scout", top.Subagents[0].Agent.Name)
		assert.Contains(t, string(raw), `"trajectory_id": "`+top.Subagents[0].TrajectoryID+`"`)

		back := filepath.Join(t.TempDir(), "back.jsonl")
		r = agenttrace(t, "", "convert", doc, "-o", back)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, turnsOf(t, art), turnsOf(t, back), "%s: conversation", art)
		assert.Equal(t, atifTokensOf(t, art).Tokens, atifTokensOf(t, back).Tokens, "%s: tokens", art)
	}
}

func TestConvertATIFFlags(t *testing.T) {
	art := filepath.Join(atifFixtures, "atif-v1.4-rfc-example.json")
	r := agenttrace(t, "", "convert", art, "-o", "-", "--to", "atif")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"schema_version": "ATIF-v1.7"`)
	r = agenttrace(t, "", "convert", art, "--split", t.TempDir(), "--to", "atif")
	assert.Equal(t, 2, r.code, "--split writes no ATIF")
	r = agenttrace(t, "", "convert", art, "-o", filepath.Join(t.TempDir(), "x.atif.json"), "--logs-out", "l.json")
	assert.Equal(t, 2, r.code, "--logs-out needs OTLP")
}

// A delegating trajectory whose final_metrics include its subagent's
// file: alone, the subagent's tokens are the unattributed remainder;
// with the subagent's file, they are itemized.
func TestATIFFinalMetrics(t *testing.T) {
	parent := filepath.Join(atifFixtures, "atif-v1.2-delegating.json")
	child := filepath.Join(atifFixtures, "atif-v1.2-subagent.json")
	alone := atifTokensOf(t, parent)
	require.NotNil(t, alone.ReportedTotal)
	assert.Equal(t, int64(5400+210), *alone.ReportedTotal) // the file's final_metrics
	assert.Equal(t, int64(1400+1500+40+60), alone.Unattributed)
	both := atifTokensOf(t, parent, child)
	assert.Nil(t, both.ReportedTotal)
	assert.Equal(t, int64(5400+210), both.Tokens.Total)
}
