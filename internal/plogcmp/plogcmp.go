// Package plogcmp compares OTLP logs the way the lossless-conversion
// promise is stated for log records, as ptracecmp does for spans: every
// log record with its resource and scope, every field and attribute with
// its type, bit for bit, ignoring the order of records and of attributes
// within a map, which OTLP does not define.
package plogcmp

import (
	"fmt"
	"slices"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// Records returns one canonical line per log record of ld, sorted. Two
// payloads hold the same log records exactly when their Records are equal.
func Records(ld plog.Logs) []string {
	var out []string
	for _, rl := range ld.ResourceLogs().All() {
		res := fmt.Sprintf("resource{schema=%q dropped=%d attrs=%s}", rl.SchemaUrl(),
			rl.Resource().DroppedAttributesCount(), ptracecmp.Map(rl.Resource().Attributes()))
		for _, sl := range rl.ScopeLogs().All() {
			sc := sl.Scope()
			scope := fmt.Sprintf("scope{schema=%q name=%q version=%q dropped=%d attrs=%s}", sl.SchemaUrl(),
				sc.Name(), sc.Version(), sc.DroppedAttributesCount(), ptracecmp.Map(sc.Attributes()))
			for _, lr := range sl.LogRecords().All() {
				out = append(out, Record(lr)+" "+res+" "+scope)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Record returns the canonical form of one log record.
func Record(lr plog.LogRecord) string {
	return fmt.Sprintf("log{trace=%s span=%s time=%d observed=%d sev=%d sevtext=%q event=%q flags=%d dropped=%d body=%s attrs=%s}",
		lr.TraceID(), lr.SpanID(), lr.Timestamp(), lr.ObservedTimestamp(), lr.SeverityNumber(), lr.SeverityText(),
		lr.EventName(), lr.Flags(), lr.DroppedAttributesCount(), ptracecmp.Value(lr.Body()), ptracecmp.Map(lr.Attributes()))
}
