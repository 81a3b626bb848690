package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestLargestListsEveryLibrarysAnswer: in every captured tool loop whose
// spans hold the model's final answer (the text expected.json says the
// scripted server sent), the model call that carries it is among the
// largest responses, whichever dialect keeps its output (an output
// attribute, flattened per-message keys, choice events), all ranked on one
// scale: the output messages in the conventions' JSON shape.
func TestLargestListsEveryLibrarysAnswer(t *testing.T) {
	traces, err := filepath.Glob("../testdata/real/*/payloads/tool-loop.traces.pb")
	require.NoError(t, err)
	checked := 0
	for _, tp := range traces {
		lib := filepath.Base(filepath.Dir(filepath.Dir(tp)))
		t.Run(lib, func(t *testing.T) {
			answer := expectedAnswer(t, filepath.Join(filepath.Dir(filepath.Dir(tp)), "expected.json"))
			raw, err := os.ReadFile(tp)
			require.NoError(t, err)
			td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
			require.NoError(t, err)
			recs := artifact.Records(td)
			var carriers []string // model calls whose output holds the answer
			var rd semconv.Reading
			for i := range recs {
				if recs[i].Read(&rd); rd.Kind != semconv.Inference {
					continue
				}
				for _, m := range semconv.Messages(recs[i].Span).Output {
					if strings.Contains(m.Text(), answer) {
						carriers = append(carriers, recs[i].Span.SpanID().String())
					}
				}
			}
			if len(carriers) == 0 {
				t.Skipf("%s: no model call's output holds the answer (content not in span data)", lib)
			}
			checked++
			rep := report.Tokens(recs, artifact.MetaFor(recs), report.WithTop(len(recs)))
			listed := map[string]int64{}
			for _, r := range rep.Largest {
				if r.Kind == "inference" {
					listed[r.SpanID] = r.Bytes
				}
			}
			for _, id := range carriers {
				require.Contains(t, listed, id, "the call that answered is listed")
				assert.Greater(t, listed[id], int64(len(answer)), "its size counts at least the answer")
			}
		})
	}
	assert.GreaterOrEqual(t, checked, 12, "libraries whose spans hold the answer")
}

// expectedAnswer is the tool loop's final answer in a capture's
// expected.json: what the scripted model server answered.
func expectedAnswer(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]struct {
			Answer string `json:"answer"`
		} `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(b, &exp))
	a := exp.Scenarios["tool-loop"].Answer
	require.NotEmpty(t, a, path)
	return a
}
