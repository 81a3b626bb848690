package atif_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/atif"
)

func TestDecodeVersions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, version string
		steps, subs   int
	}{
		{"atif-v1.0-no-metrics.json", "ATIF-v1.0", 5, 0},
		{"atif-v1.2-delegating.json", "ATIF-v1.2", 4, 0},
		{"atif-v1.4-rfc-example.json", "ATIF-v1.4", 3, 0},
		{"atif-v1.5-continued.json", "ATIF-v1.5", 5, 0},
		{"atif-v1.6-multimodal.json", "ATIF-v1.6", 3, 0},
		{"atif-v1.7-embedded.json", "ATIF-v1.7", 4, 2},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(fixtureDir, c.file))
		require.NoError(t, err)
		tr, problems, err := atif.Decode(data)
		require.NoError(t, err, c.file)
		assert.Empty(t, problems, c.file)
		assert.Equal(t, c.version, tr.SchemaVersion, c.file)
		assert.Len(t, tr.Steps, c.steps, c.file)
		assert.Len(t, tr.SubagentTrajectories, c.subs, c.file)
		assert.Contains(t, atif.Versions, tr.SchemaVersion)
	}
	// v1.6 content parts, and a step's offset pointing at the step.
	data, err := os.ReadFile(filepath.Join(fixtureDir, "atif-v1.6-multimodal.json"))
	require.NoError(t, err)
	tr, _, err := atif.Decode(data)
	require.NoError(t, err)
	require.Len(t, tr.Steps[0].Message.Parts, 2)
	assert.Equal(t, "images/step1_screen.png", tr.Steps[0].Message.Parts[1].Source.Path)
	assert.Equal(t, "What does the dialog on this screen say?", tr.Steps[0].Message.String())
	assert.True(t, bytes.HasPrefix(data[tr.Steps[1].Offset:], []byte(`{"step_id": 2`)))
}

func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	doc := []byte("{\"agent\":{\"name\":\"a\",\"version\":\"1\"},\"steps\":[\n{\"step_id\":1,\"source\":\"user\",\"message\":{}},\n" +
		"{\"step_id\":2,\"source\":\"user\",\"message\":\"ok\"}],\"final_metrics\":[]}")
	tr, problems, err := atif.Decode(doc)
	require.NoError(t, err)
	assert.Len(t, tr.Steps, 1)
	require.Len(t, problems, 2)
	assert.Equal(t, "steps[0]", problems[0].Path)
	assert.Equal(t, byte('{'), doc[problems[0].Offset])
	assert.Equal(t, "final_metrics", problems[1].Path)
	for _, bad := range []string{``, `[]`, `{}`, `{"steps":[`, `{"agent":1}`} {
		_, _, err := atif.Decode([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// FuzzDecode: any input decodes or fails with an error, never panics;
// problems point into the input; what decodes writes and decodes again.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "atif-v1.?-*.json"))
	require.NoError(f, err)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"steps":[{"step_id":"x","timestamp":1e400}],"subagent_trajectories":[{"steps":[]},{"steps":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, problems, err := atif.Decode(data)
		for _, p := range problems {
			if p.Offset < 0 || p.Offset > len(data) {
				t.Fatalf("problem %v at offset %d of %d bytes", p, p.Offset, len(data))
			}
		}
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := atif.Write(&b, tr); err != nil {
			return // a value JSON cannot write (a NaN cost) is refused, not a panic
		}
		if _, _, err := atif.Decode(b.Bytes()); err != nil {
			t.Fatalf("a written trajectory does not decode: %v\n%s", err, b.Bytes())
		}
	})
}
