package semconv

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestEvaluationOf reads the attributes of gen_ai.evaluation.result as
// the conventions define them (v1.38.0 events.yaml: name required; score
// value a double; label, explanation, gen_ai.response.id, error.type).
func TestEvaluationOf(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name  string
		attrs func(m pcommon.Map)
		want  Evaluation
	}{
		{"every attribute", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "Relevance")
			m.PutDouble(EvaluationScoreValue, 0.85)
			m.PutStr(EvaluationScoreLabel, "relevant")
			m.PutStr(EvaluationExplanation, "The answer names the city asked about.")
			m.PutStr(ResponseID, "chatcmpl-123")
		}, Evaluation{Name: "Relevance", Score: f(0.85), Label: "relevant",
			Explanation: "The answer names the city asked about.", ResponseID: "chatcmpl-123"}},
		{"integer score", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "stars")
			m.PutInt(EvaluationScoreValue, 4)
		}, Evaluation{Name: "stars", Score: f(4)}},
		{"score in a string", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "faithfulness")
			m.PutStr(EvaluationScoreValue, "0.5")
		}, Evaluation{Name: "faithfulness", Score: f(0.5)}},
		{"label only", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "toxicity")
			m.PutStr(EvaluationScoreLabel, "pass")
		}, Evaluation{Name: "toxicity", Label: "pass"}},
		{"a failed evaluation", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "Relevance")
			m.PutStr(ErrorType, "timeout")
		}, Evaluation{Name: "Relevance", ErrorType: "timeout"}},
		{"no name", func(m pcommon.Map) { m.PutDouble(EvaluationScoreValue, 1) }, Evaluation{Name: UnnamedEvaluation, Score: f(1)}},
		{"score not a number", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "x")
			m.PutStr(EvaluationScoreValue, "high")
		}, Evaluation{Name: "x"}},
		{"score NaN", func(m pcommon.Map) {
			m.PutStr(EvaluationName, "x")
			m.PutStr(EvaluationScoreValue, "NaN")
		}, Evaluation{Name: "x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := pcommon.NewMap()
			tc.attrs(m)
			assert.Equal(t, tc.want, EvaluationOf(m))
		})
	}
}

// TestEvaluationsFromLogs: a result sent as a log record linked to the
// span (event_name or the event.name attribute) reads as the span event
// does; two results are two verdicts.
func TestEvaluationsFromLogs(t *testing.T) {
	t.Parallel()
	sp := ptrace.NewSpan()
	ev := sp.Events().AppendEmpty()
	ev.SetName(EventEvaluationResult)
	ev.Attributes().PutStr(EvaluationName, "on the span")
	ev.Attributes().PutDouble(EvaluationScoreValue, 1)

	attrs := pcommon.NewMap()
	attrs.PutStr(EvaluationName, "as a log")
	attrs.PutStr(EvaluationScoreLabel, "good")
	require.True(t, AppendLogEvent(sp.Events(), EventEvaluationResult, pcommon.NewValueEmpty(), attrs, 0))
	old := pcommon.NewMap()
	old.PutStr(LogEventName, EventEvaluationResult)
	body := pcommon.NewValueMap()
	body.Map().PutStr(EvaluationName, "in the body")
	require.True(t, AppendLogEvent(sp.Events(), "", body, old, 0))

	one := 1.0
	assert.Equal(t, []Evaluation{
		{Name: "on the span", Score: &one},
		{Name: "as a log", Label: "good"},
		{Name: "in the body"},
	}, Evaluations(sp))
}

// FuzzEvaluationOf: any attribute values give an evaluation with a name
// and a finite score or none, never a panic.
func FuzzEvaluationOf(f *testing.F) {
	f.Add("Relevance", "0.85", "relevant", 0.85)
	f.Add("", "Inf", "", 0.0)
	f.Add("x", "-1e400", "\x00", -3.5)
	f.Fuzz(func(t *testing.T, name, score, label string, d float64) {
		for _, put := range []func(pcommon.Map){
			func(m pcommon.Map) { m.PutStr(EvaluationScoreValue, score) },
			func(m pcommon.Map) { m.PutDouble(EvaluationScoreValue, d) },
		} {
			m := pcommon.NewMap()
			m.PutStr(EvaluationName, name)
			m.PutStr(EvaluationScoreLabel, label)
			put(m)
			e := EvaluationOf(m)
			if e.Name == "" {
				t.Fatal("an evaluation without a name")
			}
			if e.Score != nil && (math.IsNaN(*e.Score) || math.IsInf(*e.Score, 0)) {
				t.Fatalf("score %v is not finite", *e.Score)
			}
		}
	})
}
