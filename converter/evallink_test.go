package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestLogsAsEventsLinksEvaluationsByResponseID: an evaluation result log
// record of no span goes to the span whose gen_ai.response.id it names;
// one naming a response two spans share, or none has, stays apart, and
// so does any other record naming a response.
func TestLogsAsEventsLinksEvaluationsByResponseID(t *testing.T) {
	t.Parallel()
	span := func(id byte, resp string) artifact.Record {
		sp := ptrace.NewSpan()
		sp.SetTraceID(pcommon.TraceID{1})
		sp.SetSpanID(pcommon.SpanID{id})
		sp.SetName("chat m")
		sp.Attributes().PutStr(semconv.OperationName, semconv.OpChat)
		sp.Attributes().PutStr(semconv.ResponseID, resp)
		return artifact.Record{Span: sp, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()}
	}
	recs := []artifact.Record{span(1, "resp-a"), span(2, "resp-b"), span(3, "resp-b")}
	log := func(event, name, resp string) artifact.LogRecord {
		l := plog.NewLogRecord()
		l.SetEventName(event)
		l.Attributes().PutStr(semconv.EvaluationName, name)
		l.Attributes().PutStr(semconv.ResponseID, resp)
		return artifact.LogRecord{Log: l, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()}
	}
	logs := []artifact.LogRecord{
		log(semconv.EventEvaluationResult, "judges a", "resp-a"),
		log(semconv.EventEvaluationResult, "judges b, which two spans answered", "resp-b"),
		log(semconv.EventEvaluationResult, "judges nothing here", "resp-c"),
		log(semconv.EventChoice, "not a verdict", "resp-a"),
	}
	view := converter.LogsAsEvents(recs, logs)
	var got [][]string
	for _, r := range view {
		var names []string
		for _, e := range semconv.Evaluations(r.Span) {
			names = append(names, e.Name)
		}
		got = append(got, names)
	}
	assert.Equal(t, [][]string{{"judges a"}, nil, nil}, got)
	assert.Equal(t, 0, recs[0].Span.Events().Len(), "recs are not changed")
}
