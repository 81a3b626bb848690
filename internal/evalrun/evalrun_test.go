package evalrun

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWrite: the run is written, one artifact; EVALRUN_OUT set copies it
// there, to look at.
func TestWrite(t *testing.T) {
	path, err := Write(t.TempDir())
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(raw), "gen_ai.evaluation.result")
	if out := os.Getenv("EVALRUN_OUT"); out != "" {
		require.NoError(t, os.WriteFile(out, raw, 0o644))
	}
}
