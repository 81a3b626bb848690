package report_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/dialecttest"
	"github.com/agenttrace/agenttrace/report"
)

func readRecords(t *testing.T, path string) []artifact.Record {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	return artifact.Records(td)
}

func TestTokensMatchDialectExpectations(t *testing.T) {
	for _, c := range dialecttest.Cases(t, "../testdata") {
		want := c.Want
		t.Run(c.Name, func(t *testing.T) {
			rep := report.Tokens(readRecords(t, c.Payload), nil)

			assert.Equal(t, want.Records, map[string]int64{
				"call": rep.Records.Call, "inference": rep.Records.Inference,
				"agent": rep.Records.Agent, "span": rep.Records.Span,
			}, "records by kind")
			assert.Equal(t, want.Tokens, map[string]int64{
				"input": rep.Tokens.Input, "output": rep.Tokens.Output, "cache_read": rep.Tokens.CacheRead,
				"cache_creation": rep.Tokens.CacheCreation, "reasoning": rep.Tokens.Reasoning,
			}, "tokens")
			assert.Equal(t, rep.Tokens.Input+rep.Tokens.Output, rep.Tokens.Total)
			assert.Equal(t, want.Errors, rep.Errors, "errors")
			assert.Len(t, rep.Failures, int(want.Errors))

			var models []string
			var modelCount int64
			for _, m := range rep.ByModel {
				// A retriever span may name no model; its row is not a model.
				if m.Model != report.Unknown {
					models = append(models, m.Model)
				}
				modelCount += m.Count
			}
			assert.ElementsMatch(t, want.Models, models, "models")
			assert.Equal(t, rep.Records.Inference, modelCount)

			tools := map[string]int64{}
			for _, name := range want.Tools {
				tools[name]++
			}
			got := map[string]int64{}
			for _, u := range rep.ByTool {
				got[u.Tool] = u.Calls
			}
			assert.Equal(t, tools, got, "tools")

			// Every inference lands on exactly one agent row.
			var agentTotal, agentInferences int64
			for _, a := range rep.ByAgent {
				agentTotal += a.Total
				agentInferences += a.Inferences
			}
			assert.Equal(t, rep.Tokens.Total, agentTotal)
			assert.Equal(t, rep.Records.Inference, agentInferences)
		})
	}
}
