package converter_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestToolDispatchTraces reads the older tool-dispatch shape (no OTel
// identity; budget in the header; both the documented string times and the
// real plugin's epoch milliseconds, budget object and un-namespaced codes):
// every call becomes an execute_tool span with deterministic ids under one
// synthesized root, and the result converts to OTLP and back unchanged.
func TestToolDispatchTraces(t *testing.T) {
	cases := []struct {
		file      string
		tools     []string
		errors    int64
		codes     []string
		budget    int64
		threshold float64
		spent     int64 // no model usage: the calls' estimated tokens
		unknown   int64
	}{
		{"tool-dispatch.jsonl", []string{"navigate", "snapshot", "click", "click", "type"}, 2,
			[]string{"trace.REF_STALE", "trace.BUDGET_EXCEEDED"}, 4000, 0.8, 2430, 0},
		{"tool-dispatch-plugin.jsonl", []string{"read_file", "http_request", "read_file"}, 1,
			[]string{"REF_NOT_FOUND"}, 2500, 0.75, 2410, 1},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile("../testdata/legacy/" + tc.file)
			require.NoError(t, err)
			recs, r := artifacttest.ReadBytes(t, raw)
			require.Len(t, recs, len(tc.tools)+1, "one record per call plus the synthesized root")
			assert.Equal(t, tc.unknown, r.Stats().Unknown)
			require.NotNil(t, r.Meta().Budget)
			assert.Equal(t, tc.budget, r.Meta().Budget.Tokens)
			assert.InDelta(t, tc.threshold, r.Meta().Budget.Threshold(), 1e-9)

			root := recs[len(recs)-1].Span
			assert.Equal(t, "invoke_agent", root.Name())
			v, ok := root.Attributes().Get(semconv.Synthesized)
			require.True(t, ok)
			assert.True(t, v.Bool())

			var rd semconv.Reading
			var tally artifact.Tally
			var tools, codes []string
			for i := range recs[:len(recs)-1] {
				rec := &recs[i]
				rec.Read(&rd)
				tally.Add(rec)
				require.Equal(t, semconv.Call, rd.Kind)
				tools = append(tools, rd.Str(semconv.FieldTool))
				assert.Equal(t, root.SpanID(), rec.Span.ParentSpanID())
				assert.Equal(t, root.TraceID(), rec.Span.TraceID())
				assert.GreaterOrEqual(t, rec.Span.StartTimestamp(), root.StartTimestamp())
				assert.LessOrEqual(t, rec.Span.EndTimestamp(), root.EndTimestamp())
				if rec.Span.Status().Code() == ptrace.StatusCodeError {
					codes = append(codes, rd.Str(semconv.FieldCode))
				}
			}
			assert.Equal(t, tc.tools, tools)
			assert.Equal(t, tc.codes, codes)
			s := tally.Summary(r.Meta().Budget)
			assert.Equal(t, tc.errors, s.Errors)
			assert.Equal(t, tc.spent, s.Budget.Spent)

			// Same file, same ids.
			again, _ := artifacttest.ReadBytes(t, raw)
			assert.Equal(t, ptracecmp.Spans(artifact.ToTraces(recs)), ptracecmp.Spans(artifact.ToTraces(again)))

			// Converted once, the artifact is stable: JSONL -> OTLP -> JSONL,
			// budget included (it travels as resource attributes).
			recs2, _ := artifacttest.ReadBytes(t, raw)
			j1 := artifacttest.Encode(t, artifact.ToTraces(recs2))
			back, r1 := artifacttest.ReadBytes(t, j1)
			require.NotNil(t, r1.Meta().Budget, "the budget survives OTLP")
			assert.Equal(t, *r.Meta().Budget, *r1.Meta().Budget)
			assert.Equal(t, string(j1), string(artifacttest.Encode(t, artifact.ToTraces(back))))
			assert.True(t, bytes.Contains(j1, []byte(`"estimated_tokens"`)))
		})
	}
}
