package converter

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// linkEvaluations gives each gen_ai.evaluation.result log record among
// orphans (no span id, or a span recs do not hold) to the span of recs
// whose response id (gen_ai.response.id and its dialect kin) it names:
// the conventions' way to say what was judged when the evaluator could
// not parent its result to the judged span. A result whose response id
// no span has, or names two spans' response, stays an orphan.
func linkEvaluations(recs []artifact.Record, orphans []artifact.LogRecord, bySpan map[int][]artifact.LogRecord) {
	var byID map[string]int
	for _, l := range orphans {
		id := evaluationResponseID(l)
		if id == "" {
			continue
		}
		if byID == nil {
			byID = responseIDs(recs)
		}
		if i, ok := byID[id]; ok && i >= 0 {
			bySpan[i] = append(bySpan[i], l)
		}
	}
}

// evaluationResponseID is the gen_ai.response.id of an evaluation result
// log record (attribute or body member); "" for any other record.
func evaluationResponseID(l artifact.LogRecord) string {
	attrs := l.Log.Attributes()
	name := l.Log.EventName()
	if name == "" {
		if v, ok := attrs.Get(semconv.LogEventName); ok {
			name = v.AsString()
		}
	}
	if name != semconv.EventEvaluationResult {
		return ""
	}
	if v, ok := attrs.Get(semconv.ResponseID); ok {
		return v.AsString()
	}
	if b := l.Log.Body(); b.Type() == pcommon.ValueTypeMap {
		if v, ok := b.Map().Get(semconv.ResponseID); ok {
			return v.AsString()
		}
	}
	return ""
}

// responseIDs maps each response id of recs to its record's index, -1
// when two records have it.
func responseIDs(recs []artifact.Record) map[string]int {
	out := map[string]int{}
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		if !rd.Has(semconv.FieldResponseID) {
			continue
		}
		id := rd.Value(semconv.FieldResponseID).AsString()
		if id == "" {
			continue
		}
		if _, dup := out[id]; dup {
			out[id] = -1
			continue
		}
		out[id] = i
	}
	return out
}
