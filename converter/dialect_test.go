package converter_test

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// expectation is what a dialect payload must read as; the files sit beside
// the payloads in testdata/dialects and were computed by hand from them.
type expectation struct {
	Records   map[string]int64 `json:"records"`
	RawTokens map[string]int64 `json:"tokens"`
	Models    []string         `json:"models"`
	Tools     []string         `json:"tools"`
	Errors    int64            `json:"errors"`
}

func dialectFiles(t *testing.T) []string {
	files, err := filepath.Glob("../testdata/dialects/*.expect.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

func loadOTLP(t testing.TB, path string) ptrace.Traces {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	return td
}

// TestDialects reads a realistic payload of each dialect (current and
// deprecated GenAI, OpenInference, OpenLLMetry old and new, Vercel AI SDK
// v4 and v5) and checks kinds, token totals (inference only: wrapper spans
// repeat their children's usage), models, tools in order and errors.
func TestDialects(t *testing.T) {
	for _, expPath := range dialectFiles(t) {
		name := strings.TrimSuffix(filepath.Base(expPath), ".expect.json")
		t.Run(name, func(t *testing.T) {
			var want expectation
			raw, err := os.ReadFile(expPath)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &want))

			recs := converter.Records(loadOTLP(t, filepath.Join("../testdata/dialects", name+".json")))
			var tally converter.Tally
			var rd semconv.Reading
			models := map[string]bool{}
			type tool struct {
				name  string
				start uint64
			}
			var tools []tool
			for i := range recs {
				tally.Add(&recs[i])
				recs[i].Read(&rd)
				switch rd.Kind {
				case semconv.Inference:
					if m := rd.Model(); m != "" {
						models[m] = true
					}
				case semconv.Call:
					tools = append(tools, tool{rd.Str(semconv.FieldTool), uint64(recs[i].Span.StartTimestamp())})
				}
			}
			s := tally.Summary(nil)
			assert.Equal(t, want.Records, map[string]int64{"call": s.Calls, "inference": s.Inferences, "agent": s.Agents, "span": s.Spans}, "records by kind")
			assert.Equal(t, want.RawTokens, map[string]int64{
				"input": s.Tokens.Input, "output": s.Tokens.Output, "cache_read": s.Tokens.CacheRead,
				"cache_creation": s.Tokens.CacheCreation, "reasoning": s.Tokens.Reasoning,
			}, "tokens")
			assert.Equal(t, want.Errors, s.Errors, "errors")
			gotModels := make([]string, 0, len(models))
			for m := range models {
				gotModels = append(gotModels, m)
			}
			slices.Sort(gotModels)
			assert.Equal(t, want.Models, gotModels, "models")
			slices.SortStableFunc(tools, func(a, b tool) int { return cmp.Compare(a.start, b.start) })
			gotTools := []string{}
			for _, tl := range tools {
				gotTools = append(gotTools, tl.name)
			}
			if want.Tools == nil {
				want.Tools = []string{}
			}
			assert.Equal(t, want.Tools, gotTools, "tools in start order")
		})
	}
}
