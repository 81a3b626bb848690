package converter_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

var update = flag.Bool("update", false, "rewrite the golden artifacts in testdata/golden")

// TestGolden pins the JSONL the converter writes for every OTLP payload in
// testdata: a change to the artifact format shows up here as a diff, and
// must come with a change to docs/format.md. Run with -update to accept.
func TestGolden(t *testing.T) {
	var inputs []string
	for _, pattern := range []string{"../testdata/dialects/*.json", "../testdata/otlp/*.json"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		inputs = append(inputs, m...)
	}
	require.NotEmpty(t, inputs, "no payloads: the test would pin nothing")
	for _, in := range inputs {
		base := filepath.Base(in)
		if strings.HasSuffix(base, ".expect.json") || strings.HasSuffix(base, ".lines.json") {
			continue
		}
		name := strings.TrimSuffix(base, ".json")
		t.Run(name, func(t *testing.T) {
			td := loadOTLP(t, in)
			got := artifacttest.Encode(t, td)
			golden := filepath.Join("../testdata/golden", name+".jsonl")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test ./converter -run TestGolden -update")
			require.Equal(t, string(want), string(got))

			// The golden artifact converts back to the payload, exactly.
			recs, _ := artifacttest.ReadBytes(t, want)
			require.Equal(t, ptracecmp.Spans(td), ptracecmp.Spans(artifact.ToTraces(recs)))
		})
	}
}
