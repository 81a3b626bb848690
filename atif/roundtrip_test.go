package atif_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/atif"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/semconv"
)

// load reads any input agenttrace reads, as convert does (its shape told
// by importer.Detect).
func load(t testing.TB, path string) []artifact.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return loadBytes(t, path, data)
}

func loadBytes(t testing.TB, name string, data []byte) []artifact.Record {
	t.Helper()
	read, ok := importer.For(importer.Detect(data[:min(len(data), converter.DetectSize)]))
	require.True(t, ok, "%s: no shape", name)
	var recs []artifact.Record
	st, err := read(bytes.NewReader(data), name, func(r *artifact.Record) error {
		recs = append(recs, *r)
		return nil
	})
	require.NoError(t, err, name)
	require.Empty(t, st.Problems, name)
	return recs
}

// export writes recs as one ATIF document, checked against the schema.
func export(t testing.TB, name string, recs []artifact.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, atif.Export(&b, recs, nil), name)
	require.NoError(t, validATIF(t, b.Bytes()), "%s: the export is no valid ATIF-v1.7:\n%s", name, b.String())
	return b.Bytes()
}

// callsOf is every model call of recs, as text: its system instructions,
// input and output messages (normalized), usage and evaluations; sorted.
func callsOf(t testing.TB, recs []artifact.Record) []string {
	t.Helper()
	var out []string
	var rd semconv.Reading
	for _, mc := range converter.ModelCalls(recs) {
		recs[mc.Index].Read(&rd)
		u := rd.TokenUsage()
		c := mc.Conversation
		b, err := json.Marshal(struct {
			System []semconv.Part
			Input  []semconv.Message
			Output []semconv.Message
			Usage  semconv.Usage
			Evals  []semconv.Evaluation
		}{c.System, nonEmpty(c.Input), nonEmpty(c.Output), u, semconv.Evaluations(recs[mc.Index].Span)})
		require.NoError(t, err)
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

func nonEmpty(ms []semconv.Message) []semconv.Message {
	if len(ms) == 0 {
		return nil
	}
	return ms
}

// toolCall is a tool call's name, arguments (canonical JSON when JSON)
// and result.
type toolCall struct{ name, args, result string }

// toolsOf is every tool call of recs.
func toolsOf(recs []artifact.Record) []toolCall {
	var out []toolCall
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind != semconv.Call {
			continue
		}
		tc := toolCall{name: rd.ToolName(recs[i].Span.Name())}
		if rd.Has(semconv.FieldArgs) {
			tc.args = canonical(rd.Value(semconv.FieldArgs).AsString())
		}
		if rd.Has(semconv.FieldResult) {
			tc.result = rd.Value(semconv.FieldResult).AsString()
		}
		out = append(out, tc)
	}
	return out
}

// keeps reports whether back keeps what a has: its name, and its
// arguments and result when it has them (ATIF's arguments are an object:
// none is {}).
func (b toolCall) keeps(a toolCall) bool {
	return a.name == b.name && (a.args == "" || a.args == b.args) && (a.result == "" || a.result == b.result)
}

func canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// roundTrip holds recs -> ATIF -> records to the check: every
// model call's messages and usage, every tool call's arguments and
// result, kept.
func roundTrip(t *testing.T, name string, recs []artifact.Record) {
	t.Helper()
	doc := export(t, name, recs)
	back := loadBytes(t, name+".atif.json", doc)
	assert.Equal(t, callsOf(t, recs), callsOf(t, back), "%s: model calls", name)
	got := toolsOf(back)
	for _, tool := range toolsOf(recs) {
		i := slices.IndexFunc(got, func(b toolCall) bool { return b.keeps(tool) })
		if assert.GreaterOrEqual(t, i, 0, "%s: tool call %+v lost; back: %+v", name, tool, got) {
			got = slices.Delete(got, i, i+1)
		}
	}
	// Exported again and read back, the same conversation: nothing drifts.
	again := loadBytes(t, name+".again.atif.json", export(t, name, back))
	assert.Equal(t, callsOf(t, back), callsOf(t, again), "%s: ATIF -> records -> ATIF -> records", name)
}

// The hand-written fixtures, every version: import, export, import.
func TestRoundTripFixtures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(fixtureDir, "atif-v1.[0-9]-*.json"))
	require.NoError(t, err)
	require.Len(t, files, 7)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			roundTrip(t, f, load(t, f))
		})
	}
}

// Every captured real payload and golden artifact: artifact -> ATIF ->
// artifact keeps the conversation, usage and tool calls.
func TestRoundTripReal(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pat := range []string{"../testdata/real/*/payloads/*.traces.json", "../testdata/golden/*.jsonl"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimPrefix(f, "../testdata/")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, name, load(t, f))
		})
	}
}

// Evaluation results go with the call they judge, and come back.
func TestExportEvaluations(t *testing.T) {
	t.Parallel()
	recs := load(t, "../testdata/golden/genai-v141.jsonl")
	var b bytes.Buffer
	require.NoError(t, atif.Export(&b, recs, nil))
	assert.Contains(t, b.String(), `"evaluations": [`)
	back := loadBytes(t, "genai-v141.atif.json", b.Bytes())
	var names []string
	for _, r := range back {
		for _, e := range semconv.Evaluations(r.Span) {
			names = append(names, e.Name)
		}
	}
	assert.Contains(t, names, "Relevance")
}

// A run of several agents: each a trajectory, the subagents embedded and
// referred to from the tool call that ran them; final_metrics the
// tally's.
func TestExportSubagents(t *testing.T) {
	t.Parallel()
	recs := load(t, filepath.Join(fixtureDir, "atif-v1.7-embedded.json"))
	ts := atif.FromRecords(recs, nil)
	require.Len(t, ts, 1)
	root := ts[0]
	assert.Equal(t, atif.SchemaVersion, root.SchemaVersion)
	assert.Equal(t, "lead", root.Agent.Name)
	require.Len(t, root.SubagentTrajectories, 2)
	var refs []string
	for _, s := range root.Steps {
		if s.Observation == nil {
			continue
		}
		for _, r := range s.Observation.Results {
			for _, ref := range r.SubagentTrajectoryRef {
				refs = append(refs, r.SourceCallID+" -> "+ref.TrajectoryID)
			}
		}
	}
	assert.Equal(t, []string{"t_a -> traj_child_a", "t_b -> traj_child_b"}, refs)
	// The fixture's own final_metrics are the truth.
	fm := root.FinalMetrics
	require.NotNil(t, fm)
	assert.Equal(t, int64(3600), *fm.TotalPromptTokens)
	assert.Equal(t, int64(230), *fm.TotalCompletionTokens)
	assert.Equal(t, int64(800), *fm.TotalCachedTokens)
	assert.InDelta(t, 0.0045, *fm.TotalCostUSD, 1e-9)
	sub := root.SubagentTrajectories[0].FinalMetrics
	assert.Equal(t, int64(700), *sub.TotalPromptTokens)
}
