package viewer

import (
	"bytes"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// appLogs gives each record of recs the application's own log records
// linked to its span: the log records that are not GenAI content (those
// are the span's events already: converter.LogsAsEvents). An application
// that logs through an OTel log bridge (pino, slog, logback…) inside a
// span gets its lines carried with the span's ids; a person debugging the
// run wants them beside the call they were written in.
func appLogs(recs []artifact.Record, logs []artifact.LogRecord) map[int][]artifact.LogRecord {
	var app []artifact.LogRecord
	for _, l := range logs {
		if !semconv.IsGenAILog(l.Log.EventName(), l.Log.Attributes()) {
			app = append(app, l)
		}
	}
	if len(app) == 0 {
		return nil
	}
	bySpan, _ := converter.LogsBySpan(recs, app)
	return bySpan
}

// appendAppLogs writes a record's application logs into its view object:
// "logs": [{"t": ms, "severity": "WARN", …the log line as converter writes
// it…}, …], in time order.
func appendAppLogs(dst []byte, enc *artifact.Encoder, logs []artifact.LogRecord) []byte {
	if len(logs) == 0 {
		return dst
	}
	dst = append(dst, `,"logs":[`...)
	for i := range logs {
		if i > 0 {
			dst = append(dst, ',')
		}
		lr := logs[i].Log
		t := lr.Timestamp()
		if t == 0 {
			t = lr.ObservedTimestamp()
		}
		dst = append(dst, `{"t":`...)
		dst = appendMillis(dst, uint64(t))
		if s := severityLabel(lr); s != "" {
			dst = append(dst, `,"severity":`...)
			dst = artifact.AppendJSONString(dst, s)
		}
		line := bytes.TrimSuffix(enc.AppendLog(nil, &logs[i]), []byte{'\n'})
		dst = append(dst, ',')
		dst = append(dst, line[1:]...)
	}
	return append(dst, ']')
}

// severityLabel names a log record's severity as the OTel log data model's
// short names (severity numbers 1–24 in six ranges), else as its source
// wrote it.
func severityLabel(lr plog.LogRecord) string {
	n := lr.SeverityNumber()
	if n >= plog.SeverityNumberTrace && n <= plog.SeverityNumberFatal4 {
		return [...]string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}[(n-1)/4]
	}
	return lr.SeverityText()
}
