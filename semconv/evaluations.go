package semconv

import (
	"math"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Attributes of the gen_ai.evaluation.result event (semantic conventions
// v1.38.0 and later): an evaluator's verdict on one GenAI operation.
const (
	EvaluationName        = "gen_ai.evaluation.name"
	EvaluationScoreValue  = "gen_ai.evaluation.score.value"
	EvaluationScoreLabel  = "gen_ai.evaluation.score.label"
	EvaluationExplanation = "gen_ai.evaluation.explanation"
)

// Evaluation is one gen_ai.evaluation.result: the verdict of an evaluator
// (a judge model, a metric, a person) on the operation of the span it is
// attached to. Score is nil when the event carries no numeric score (a
// label alone, or an evaluation that failed: ErrorType says why).
type Evaluation struct {
	Name        string   `json:"name"`
	Score       *float64 `json:"score,omitempty"`
	Label       string   `json:"label,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
	ResponseID  string   `json:"response_id,omitempty"`
	ErrorType   string   `json:"error_type,omitempty"`
}

// Evaluations returns the evaluation results attached to sp as span
// events named gen_ai.evaluation.result, in event order. Results sent
// as log records linked to the span read the same once
// [AppendLogEvent] has made them span events (converter.LogsAsEvents).
// An event without gen_ai.evaluation.name, which the conventions
// require, is kept under the name "(unnamed)": it is still a verdict.
func Evaluations(sp ptrace.Span) []Evaluation {
	var out []Evaluation
	for _, ev := range sp.Events().All() {
		if ev.Name() == EventEvaluationResult {
			out = append(out, EvaluationOf(ev.Attributes()))
		}
	}
	return out
}

// UnnamedEvaluation names an evaluation result whose event lacks
// gen_ai.evaluation.name.
const UnnamedEvaluation = "(unnamed)"

// EvaluationOf reads one gen_ai.evaluation.result event's attributes. A
// score written as a string or an integer (some evaluators do) is read
// as the number it spells; a score that is not a finite number is left
// out.
func EvaluationOf(attrs pcommon.Map) Evaluation {
	str := func(k string) string {
		if v, ok := attrs.Get(k); ok {
			return v.AsString()
		}
		return ""
	}
	e := Evaluation{
		Name: str(EvaluationName), Label: str(EvaluationScoreLabel), Explanation: str(EvaluationExplanation),
		ResponseID: str(ResponseID), ErrorType: str(ErrorType),
	}
	if e.Name == "" {
		e.Name = UnnamedEvaluation
	}
	if v, ok := attrs.Get(EvaluationScoreValue); ok {
		var f float64
		var err error
		switch v.Type() {
		case pcommon.ValueTypeDouble:
			f = v.Double()
		case pcommon.ValueTypeInt:
			f = float64(v.Int())
		case pcommon.ValueTypeStr:
			f, err = strconv.ParseFloat(v.Str(), 64)
		default:
			err = strconv.ErrSyntax
		}
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			e.Score = &f
		}
	}
	return e
}
