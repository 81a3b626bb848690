package viewer

import (
	"encoding/json"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// appendEvaluations writes `,"evaluations":[…]` into a record of the view
// model when its span carries gen_ai.evaluation.result verdicts (as span
// events, or as log records made its events by converter.LogsAsEvents):
// each {"name","score","label","explanation","response_id","error_type"}
// as semconv.Evaluations reads it, so the page shows them beside the call
// they judge without reading the events itself.
func appendEvaluations(b []byte, sp ptrace.Span) []byte {
	evs := semconv.Evaluations(sp)
	if len(evs) == 0 {
		return b
	}
	js, err := json.Marshal(evs)
	if err != nil {
		// Strings and finite numbers always marshal; leave the verdicts to
		// the record's events rather than fail the page.
		return b
	}
	b = append(b, `,"evaluations":`...)
	return append(b, js...)
}
