package atif_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtureDir = "../testdata/atif"

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// atifSchema is testdata/atif/atif-v1.7.schema.json, compiled.
func atifSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	schemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		f, err := os.Open(filepath.Join(fixtureDir, "atif-v1.7.schema.json"))
		if err != nil {
			schemaErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			schemaErr = err
			return
		}
		if schemaErr = c.AddResource("atif-v1.7.schema.json", doc); schemaErr != nil {
			return
		}
		schema, schemaErr = c.Compile("atif-v1.7.schema.json")
	})
	require.NoError(t, schemaErr)
	return schema
}

// validATIF checks a document against the schema and the rules the
// reference models check in code: step ids sequential from 1, every
// source_call_id a tool call of its own step, embedded trajectory ids
// unique, every trajectory_id ref resolvable among them.
func validATIF(t testing.TB, data []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := atifSchema(t).Validate(doc); err != nil {
		return err
	}
	var root rulesTraj
	if err := json.Unmarshal(data, &root); err != nil {
		return err
	}
	return root.check("")
}

type rulesTraj struct {
	TrajectoryID string `json:"trajectory_id"`
	Steps        []struct {
		StepID    int64 `json:"step_id"`
		ToolCalls []struct {
			ID string `json:"tool_call_id"`
		} `json:"tool_calls"`
		Observation *struct {
			Results []struct {
				SourceCallID string `json:"source_call_id"`
				Refs         []struct {
					TrajectoryID string `json:"trajectory_id"`
				} `json:"subagent_trajectory_ref"`
			} `json:"results"`
		} `json:"observation"`
	} `json:"steps"`
	Subagents []rulesTraj `json:"subagent_trajectories"`
}

func (r rulesTraj) check(path string) error {
	ids := map[string]bool{}
	for i, s := range r.Subagents {
		if ids[s.TrajectoryID] {
			return fmt.Errorf("%ssubagent_trajectories[%d]: trajectory_id %q twice", path, i, s.TrajectoryID)
		}
		ids[s.TrajectoryID] = true
		if err := s.check(fmt.Sprintf("%ssubagent_trajectories[%d].", path, i)); err != nil {
			return err
		}
	}
	for i, s := range r.Steps {
		if s.StepID != int64(i+1) {
			return fmt.Errorf("%ssteps[%d]: step_id %d, want %d", path, i, s.StepID, i+1)
		}
		if s.Observation == nil {
			continue
		}
		calls := map[string]bool{}
		for _, tc := range s.ToolCalls {
			calls[tc.ID] = true
		}
		for _, res := range s.Observation.Results {
			if res.SourceCallID != "" && !calls[res.SourceCallID] {
				return fmt.Errorf("%ssteps[%d]: source_call_id %q names no tool call of the step", path, i, res.SourceCallID)
			}
			for _, ref := range res.Refs {
				if ref.TrajectoryID != "" && len(r.Subagents) > 0 && !ids[ref.TrajectoryID] {
					return fmt.Errorf("%ssteps[%d]: a ref to trajectory %q, which is not embedded", path, i, ref.TrajectoryID)
				}
			}
		}
	}
	return nil
}

// The fixtures written from the RFC hold to the schema written from it,
// and the schema refuses what the RFC forbids: it is no vacuous check.
func TestSchemaFixtures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(fixtureDir, "atif-v*.json"))
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		if filepath.Ext(f) == ".json" && !bytes.Contains([]byte(f), []byte("schema")) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.NoError(t, validATIF(t, data), f)
			n++
		}
	}
	assert.Equal(t, 7, n)

	const ok = `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"}]}`
	require.NoError(t, validATIF(t, []byte(ok)))
	for name, bad := range map[string]string{
		"an unknown member":        `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi","mood":1}]}`,
		"metrics on a user step":   `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi","metrics":{}}]}`,
		"no steps":                 `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[]}`,
		"an unknown version":       `{"schema_version":"ATIF-v2.0","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"}]}`,
		"arguments not an object":  `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":"x"}]}]}`,
		"a ref with no id or path": `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"system","message":"","observation":{"results":[{"subagent_trajectory_ref":[{"session_id":"s"}]}]}}]}`,
		"an embedded trajectory without trajectory_id": `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"}],` +
			`"subagent_trajectories":[{"schema_version":"ATIF-v1.7","agent":{"name":"b","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"}]}]}`,
		"step ids out of order":      `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":2,"source":"user","message":"hi"}]}`,
		"a result of another step's": `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"","observation":{"results":[{"source_call_id":"c","content":"x"}]}}]}`,
		"a bad timestamp":            `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi","timestamp":"yesterday"}]}`,
	} {
		assert.Error(t, validATIF(t, []byte(bad)), name)
	}
}
