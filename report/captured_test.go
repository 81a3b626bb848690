package report_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// capturedRuns reads the captured payloads testdata/real/*/payloads/
// matching name (a glob, "*" for all): each file's records, by path.
func capturedRuns(t *testing.T, name string) map[string][]artifact.Record {
	t.Helper()
	files, err := filepath.Glob("../testdata/real/*/payloads/" + name + ".traces.pb")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	runs := make(map[string][]artifact.Record, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
		require.NoError(t, err, f)
		runs[f] = artifact.Records(td)
	}
	return runs
}
