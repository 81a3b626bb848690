package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// TestSendEndToEnd: `agenttrace send` replays recorded runs into the
// built distribution, over OTLP/gRPC and OTLP/HTTP, and the artifacts the
// distribution writes hold exactly the spans of the files sent. This is
// the round trip artifact -> OTLP -> collector -> artifact with real
// processes and sockets on both sides.
func TestSendEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector and the CLI")
	}
	col := buildDistribution(t)
	cli := filepath.Join(t.TempDir(), "agenttrace")
	// ../agenttrace is built in the root module (go.work, or this
	// module's replace), so the CLI is the one in this checkout.
	out, err := exec.Command("go", "build", "-o", cli, "../agenttrace").CombinedOutput()
	require.NoError(t, err, "go build ../agenttrace:\n%s", out)

	dir := t.TempDir()
	c := startCollector(t, col, dir)
	sends := []struct{ path, protocol, endpoint string }{
		{"../../testdata/golden/agent-run.jsonl", "grpc", c.grpc},
		{"../../testdata/golden/conversation.jsonl", "http", c.http},
	}
	want := map[string][]artifact.Record{}
	for _, s := range sends {
		cmd := exec.Command(cli, "send", s.path, "--protocol", s.protocol, "--endpoint", s.endpoint, "--insecure")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "agenttrace send %s over %s:\n%s", s.path, s.protocol, out)
		assert.Contains(t, string(out), "sent ", s.path)

		recs := readArtifact(t, s.path).records
		require.NotEmpty(t, recs, s.path)
		for id, trace := range byTrace(recs) {
			require.NotContains(t, want, id, "trace %s sent twice", id)
			want[id] = trace
		}
	}
	// Stopping the collector finalizes every artifact.
	c.stop(t)

	var files []string
	for id := range want {
		files = append(files, id+".jsonl")
	}
	assert.ElementsMatch(t, files, artifactNames(t, dir), "one artifact per trace sent")
	for id, recs := range want {
		got := readArtifact(t, filepath.Join(dir, id+".jsonl"))
		assert.Equal(t, ptracecmp.Spans(artifact.ToTraces(recs)), ptracecmp.Spans(artifact.ToTraces(got.records)), "trace %s", id)
		require.NotNil(t, got.summary, id)
		assert.Equal(t, "meta", got.kinds[0], id)
	}
}
