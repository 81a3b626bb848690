package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/evalrun"
)

// atifSchema is the JSON Schema written from Harbor's RFC 0001 that the
// atif package's tests hold exports to (testdata/atif, its source named
// there).
func atifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("../../testdata/atif/atif-v1.7.schema.json")
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("atif-v1.7.schema.json", doc))
	s, err := c.Compile("atif-v1.7.schema.json")
	require.NoError(t, err)
	return s
}

// TestExportATIF: --format atif writes each run as an ATIF-v1.7 document
// that validates against the RFC's schema, one per line on standard
// output or one file per run into a directory; the filters apply; a
// judged call's verdicts are in its step's extra. The runs: the demo's
// (one stopped by its budget, one completed) and evalrun's.
func TestExportATIF(t *testing.T) {
	t.Parallel()
	schema := atifSchema(t)
	dir := t.TempDir()
	r := agenttrace(t, "", "demo", "--out", filepath.Join(dir, "stopped"), "--budget", "3000")
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "demo", "--out", filepath.Join(dir, "done"))
	require.Equal(t, 0, r.code, r.stderr)
	_, err := evalrun.Write(filepath.Join(dir, "judged"))
	require.NoError(t, err)

	r = agenttrace(t, "", "export", "--format", "atif", dir)
	require.Equal(t, 0, r.code, r.stderr)
	docs := lines0(r.stdout)
	require.Len(t, docs, 3, "one document per run")
	for _, d := range docs {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(d))
		require.NoError(t, err)
		assert.NoError(t, schema.Validate(v))
	}

	out := filepath.Join(t.TempDir(), "atif") + "/"
	r = agenttrace(t, "", "export", "--format", "atif", "-o", out, "--service", evalrun.Service, dir)
	require.Equal(t, 0, r.code, r.stderr)
	files := lines0(r.stdout)
	require.Len(t, files, 1, "--service keeps the judged run: %s", r.stdout)
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, "run.atif.json", filepath.Base(files[0]))
	var traj struct {
		Steps []struct {
			Source string `json:"source"`
			Extra  struct {
				Agenttrace struct {
					Evaluations []struct {
						Name string `json:"name"`
					} `json:"evaluations"`
				} `json:"agenttrace"`
			} `json:"extra"`
		} `json:"steps"`
	}
	require.NoError(t, json.NewDecoder(bytes.NewReader(raw)).Decode(&traj))
	var got [][]string
	for _, s := range traj.Steps {
		if s.Source != "agent" {
			continue
		}
		var names []string
		for _, e := range s.Extra.Agenttrace.Evaluations {
			names = append(names, e.Name)
		}
		got = append(got, names)
	}
	want := make([][]string, len(evalrun.Answers))
	for _, v := range evalrun.Verdicts {
		want[v.Call] = append(want[v.Call], v.Name)
	}
	assert.Equal(t, want, got, "each model call's step carries its verdicts")
}
