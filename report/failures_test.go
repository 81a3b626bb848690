package report_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/report"
)

// TestCarriedFailure: @mastra/arize 1.3.8 marks the rate-limited call's
// failure on its agent span only (testdata/real/mastra-arize/expected.json:
// one failed model call); the model call below it, which returned
// nothing, is listed as failed with the agent's message, and the count
// and the list agree.
func TestCarriedFailure(t *testing.T) {
	raw, err := os.ReadFile("../testdata/real/mastra-arize/payloads/fail.traces.pb")
	require.NoError(t, err)
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	recs := artifact.Records(td)
	rep := report.Tokens(recs, artifact.MetaFor(recs))
	require.Len(t, rep.Failures, 2)
	assert.Equal(t, int64(2), rep.Errors, "the count and the list")
	byKind := map[string]report.Failure{}
	for _, f := range rep.Failures {
		byKind[f.Kind] = f
	}
	require.Contains(t, byKind, "inference")
	require.Contains(t, byKind, "agent")
	assert.Equal(t, byKind["agent"].Message, byKind["inference"].Message, "the call failed with the agent's failure")
	assert.Contains(t, byKind["inference"].Message, "Rate limit reached")
	require.Len(t, rep.ByModel, 1)
	assert.Equal(t, "gpt-4o-mini", rep.ByModel[0].Model, "the step's model is its generation's")
}

// TestWithBatchChangesNothing: a report given the batch of its records
// (report.WithBatch) is the report made without it, on every captured
// payload, the carried failure of TestCarriedFailure among them.
func TestWithBatchChangesNothing(t *testing.T) {
	for f, recs := range capturedRuns(t, "*") {
		meta := artifact.MetaFor(recs)
		want := report.Tokens(recs, meta)
		got := report.Tokens(recs, meta, report.WithBatch(converter.NewBatch(recs)))
		assert.Equal(t, want, got, f)
	}
}
