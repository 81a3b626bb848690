package judge_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
)

// TestDiffSeesRedactionPlaceholders: a tool-dispatch trace whose arguments
// hold "[redacted]" is reported as redacted even though its header has no
// redacted flag (the older shape has none).
func TestDiffSeesRedactionPlaceholders(t *testing.T) {
	recs, _ := artifacttest.Read(t, "../testdata/legacy/tool-dispatch-plugin.jsonl")
	rep := judge.Diff(recs, recs)
	require.False(t, rep.Diverged)
	require.True(t, rep.Redacted.A)
	require.True(t, rep.Redacted.B)
	require.False(t, rep.PayloadsCompared)
}
