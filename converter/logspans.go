package converter

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// LogsBySpan gives each span record of recs its log records: the result
// holds, for each index of recs, the log records linked to that span
// (sorted by time), and then the log records of no span in recs (no span
// id, or a span that is not there), sorted by time. Nothing is dropped:
// every record of logs is in exactly one of the two.
func LogsBySpan(recs []artifact.Record, logs []artifact.LogRecord) (bySpan map[int][]artifact.LogRecord, orphans []artifact.LogRecord) {
	index := make(map[artifact.SpanKey]int, len(recs))
	for i := range recs {
		sp := recs[i].Span
		index[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = i
	}
	bySpan = map[int][]artifact.LogRecord{}
	for _, l := range logs {
		if i, ok := index[l.Key()]; ok && !l.Log.SpanID().IsEmpty() {
			bySpan[i] = append(bySpan[i], l)
		} else {
			orphans = append(orphans, l)
		}
	}
	for _, ls := range bySpan {
		artifact.SortLogs(ls)
	}
	artifact.SortLogs(orphans)
	return bySpan, orphans
}

// ModelCallsWithLogs is [ModelCalls] for spans whose content came as log
// records (the official OpenTelemetry GenAI instrumentations): see
// [LogsAsEvents]. recs are not changed.
func ModelCallsWithLogs(recs []artifact.Record, logs []artifact.LogRecord) []ModelCall {
	return ModelCalls(LogsAsEvents(recs, logs))
}

// LogsAsEvents returns a view of recs in which each span that has GenAI
// content in log records also has that content as the span events the log
// records stand for (see [semconv.AppendLogEvent]), so that everything
// that reads a conversation off a span ([semconv.Messages]: messages, the
// viewer, audit) reads content from logs exactly as content from span
// attributes or events. It is a view for reading: recs and logs are not
// changed, and a span with new events is a copy; it must not be written
// as the artifact's own record, which would add events the span never
// had. When no log record adds anything, recs itself is returned. An
// evaluation result linked to no span of recs goes to the span whose
// response it names (gen_ai.response.id), when one has it.
func LogsAsEvents(recs []artifact.Record, logs []artifact.LogRecord) []artifact.Record {
	if len(logs) == 0 {
		return recs
	}
	bySpan, orphans := LogsBySpan(recs, logs)
	linkEvaluations(recs, orphans, bySpan)
	var view []artifact.Record
	for i, ls := range bySpan {
		sp := ptrace.NewSpan()
		recs[i].Span.CopyTo(sp)
		added := false
		for _, l := range ls {
			if semconv.AppendLogEvent(sp.Events(), l.Log.EventName(), l.Log.Body(), l.Log.Attributes(), l.Log.Timestamp()) {
				added = true
			}
		}
		if added {
			if view == nil {
				view = slices.Clone(recs)
			}
			view[i].Span = sp
		}
	}
	if view == nil {
		return recs
	}
	return view
}
