package semconv

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// LogEventName is the attribute that names an event carried as a log
// record before OTLP had a field for it (event_name): the official
// @opentelemetry/instrumentation-openai sets only this.
const LogEventName = "event.name"

// AppendLogEvent reads one log record of GenAI content as the span event
// it stands for, appending that event to evs, so that [Messages] of a span
// with such events reads content from logs exactly as content from span
// events. It reports whether the record was GenAI content; other records
// are left out.
//
// The official OpenTelemetry GenAI instrumentations put the content of a
// model call in log records linked to its span rather than on the span:
// the per-message events gen_ai.system/user/assistant/tool.message and
// gen_ai.choice (their body, a map, is the event's attributes), and
// gen_ai.client.inference.operation.details (attributes
// gen_ai.input.messages, gen_ai.output.messages, ...), which an
// instrumentation may split over several records (one for the input, one
// for the output): those are merged into one event, the first record's
// attribute winning where two carry the same one. A
// gen_ai.evaluation.result record, an evaluator's verdict on the span,
// becomes that event too (see [Evaluations]). The event's name comes
// from eventName (OTLP's event_name field) or else from the event.name
// attribute.
func AppendLogEvent(evs ptrace.SpanEventSlice, eventName string, body pcommon.Value, attrs pcommon.Map, ts pcommon.Timestamp) bool {
	name := logEventName(eventName, attrs)
	// Which names are content is the dialect table's (its content
	// section's events and details events): a user's file adds its own.
	switch {
	case isContentEvent(name) && !isDetailsEvent(name):
		ev := evs.AppendEmpty()
		ev.SetName(name)
		ev.SetTimestamp(ts)
		switch body.Type() {
		case pcommon.ValueTypeMap:
			body.Map().CopyTo(ev.Attributes())
		case pcommon.ValueTypeEmpty:
			copyExcept(attrs, ev.Attributes(), LogEventName)
		default:
			body.CopyTo(ev.Attributes().PutEmpty(EventContent))
		}
		return true
	case name == EventEvaluationResult:
		// A verdict on the span (see [Evaluations]): one event per record,
		// since two results of one evaluator are two verdicts.
		ev := evs.AppendEmpty()
		ev.SetName(name)
		ev.SetTimestamp(ts)
		copyExcept(attrs, ev.Attributes(), LogEventName)
		if body.Type() == pcommon.ValueTypeMap {
			for k, v := range body.Map().All() {
				if _, ok := ev.Attributes().Get(k); !ok {
					v.CopyTo(ev.Attributes().PutEmpty(k))
				}
			}
		}
		return true
	case isDetailsEvent(name):
		var ev ptrace.SpanEvent
		found := false
		for _, e := range evs.All() {
			if e.Name() == name {
				ev, found = e, true
				break
			}
		}
		if !found {
			ev = evs.AppendEmpty()
			ev.SetName(name)
			ev.SetTimestamp(ts)
		}
		merge := func(k string, v pcommon.Value) {
			if k == LogEventName {
				return
			}
			if _, ok := ev.Attributes().Get(k); !ok {
				v.CopyTo(ev.Attributes().PutEmpty(k))
			}
		}
		for k, v := range attrs.All() {
			merge(k, v)
		}
		if body.Type() == pcommon.ValueTypeMap {
			for k, v := range body.Map().All() {
				merge(k, v)
			}
		}
		return true
	}
	return false
}

// IsGenAILog reports whether a log record is one [AppendLogEvent] reads
// as a span event (GenAI content or an evaluation result). The others are
// the application's own logs, which a reader shows on their span as logs.
func IsGenAILog(eventName string, attrs pcommon.Map) bool {
	name := logEventName(eventName, attrs)
	return isContentEvent(name) || isDetailsEvent(name) || name == EventEvaluationResult
}

// logEventName is a log record's event name: OTLP's event_name field, or
// else the event.name attribute instrumentations wrote before the field.
func logEventName(eventName string, attrs pcommon.Map) string {
	if eventName != "" {
		return eventName
	}
	if v, ok := attrs.Get(LogEventName); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

func copyExcept(src, dst pcommon.Map, skip string) {
	for k, v := range src.All() {
		if k != skip {
			v.CopyTo(dst.PutEmpty(k))
		}
	}
}
