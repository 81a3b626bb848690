package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// EvaluationSummary sums up the gen_ai.evaluation.result verdicts of one
// evaluation name (semconv.Evaluations): how many, the mean of their
// scores, and how often each label was given.
type EvaluationSummary struct {
	// Name is gen_ai.evaluation.name (semconv.UnnamedEvaluation when a
	// result lacks it).
	Name string `json:"name"`
	// Count counts the results.
	Count int64 `json:"count"`
	// Scored counts the results with a numeric score.
	Scored int64 `json:"scored"`
	// MeanScore is the mean of the scores; null when no result has one.
	MeanScore *float64 `json:"mean_score"`
	// Labels counts the results by gen_ai.evaluation.score.label; a result
	// without a label is not counted here.
	Labels map[string]int64 `json:"labels"`
	// Errors counts the results that say the evaluation itself failed
	// (error.type).
	Errors int64 `json:"errors"`
}

// WithLogs gives the report the log records of its input, so that the
// gen_ai.evaluation.result verdicts sent as log records (rather than as
// span events) are summarized too. Give either this or records whose
// spans carry their log records as events (converter.LogsAsEvents), not
// both: a verdict would count twice.
func WithLogs(logs []artifact.LogRecord) Option {
	return optionFunc(func(c *config) { c.logs = logs })
}

// evaluations summarizes the verdicts on recs' spans and among logs, by
// name in name order.
func evaluations(recs []artifact.Record, logs []artifact.LogRecord) []EvaluationSummary {
	type acc struct {
		EvaluationSummary
		sum float64
	}
	by := map[string]*acc{}
	add := func(e semconv.Evaluation) {
		a := by[e.Name]
		if a == nil {
			a = &acc{EvaluationSummary: EvaluationSummary{Name: e.Name, Labels: map[string]int64{}}}
			by[e.Name] = a
		}
		a.Count++
		if e.Score != nil {
			a.Scored++
			a.sum += *e.Score
		}
		if e.Label != "" {
			a.Labels[e.Label]++
		}
		if e.ErrorType != "" {
			a.Errors++
		}
	}
	for i := range recs {
		for _, e := range semconv.Evaluations(recs[i].Span) {
			add(e)
		}
	}
	if len(logs) > 0 {
		evs := ptrace.NewSpanEventSlice()
		for _, l := range logs {
			semconv.AppendLogEvent(evs, l.Log.EventName(), l.Log.Body(), l.Log.Attributes(), l.Log.Timestamp())
		}
		sp := ptrace.NewSpan()
		evs.MoveAndAppendTo(sp.Events())
		for _, e := range semconv.Evaluations(sp) {
			add(e)
		}
	}
	out := make([]EvaluationSummary, 0, len(by))
	for _, a := range by {
		if a.Scored > 0 {
			mean := a.sum / float64(a.Scored)
			a.MeanScore = &mean
		}
		out = append(out, a.EvaluationSummary)
	}
	slices.SortFunc(out, func(a, b EvaluationSummary) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// writeEvaluations writes the evaluations table, if any.
func (r *TokenReport) writeEvaluations(tw *tabwriter.Writer) {
	if len(r.Evaluations) == 0 {
		return
	}
	fmt.Fprintf(tw, "\nEvaluations\n")
	fmt.Fprintf(tw, "  NAME\tRESULTS\tMEAN SCORE\tLABELS\tERRORS\n")
	for _, e := range r.Evaluations {
		mean := "-"
		if e.MeanScore != nil {
			mean = fmt.Sprintf("%.3g (of %d)", *e.MeanScore, e.Scored)
		}
		labels := make([]string, 0, len(e.Labels))
		for _, l := range slices.Sorted(maps.Keys(e.Labels)) {
			labels = append(labels, fmt.Sprintf("%s %d", oneLine(l), e.Labels[l]))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", oneLine(e.Name), Thousands(e.Count), mean, orDash(strings.Join(labels, ", ")), Thousands(e.Errors))
	}
}
