package converter_test

import (
	"cmp"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/dialecttest"
	"github.com/agenttrace/agenttrace/semconv"
)

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
	for _, c := range dialecttest.Cases(t, "../testdata") {
		want := c.Want
		t.Run(c.Name, func(t *testing.T) {
			recs := artifact.Records(loadOTLP(t, c.Payload))
			var tally artifact.Tally
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
					tools = append(tools, tool{rd.ToolName(recs[i].Span.Name()), uint64(recs[i].Span.StartTimestamp())})
				}
			}
			s := tally.Summary(nil)
			assert.Equal(t, want.Records, map[string]int64{"call": s.Calls, "inference": s.Inferences, "agent": s.Agents, "span": s.Spans}, "records by kind")
			assert.Equal(t, want.Tokens, map[string]int64{
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
			assert.Equal(t, want.Tools, gotTools, "tools in start order")
		})
	}
}
