package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/converter/sdkspan"
	"github.com/agenttrace/agenttrace/store"
)

// genAIEventPrefix starts the event names of the GenAI semantic
// conventions' log events: gen_ai.system.message, gen_ai.user.message,
// gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice,
// gen_ai.client.inference.operation.details.
const genAIEventPrefix = "gen_ai."

// LogProcessor is an sdklog.Processor that writes GenAI log events into
// the artifacts of the span Processor it came from (Processor.LogProcessor):
// the official GenAI instrumentations put the prompt and the answer in log
// records, not on spans, and an artifact without them has no conversation.
// Each record goes to its trace's artifact, after its spans (package store,
// Store.WriteLogs): a record emitted before its span ended (the usual
// case) is held in memory until the span is written. Other log records
// (an application's own logging) are left to the provider's other
// processors.
//
// OnEmit converts and hands the record over on the caller's goroutine: it
// does not block on the disk for a held record, and the artifacts' files
// stay the span Processor's, which writes them and closes them at its
// Shutdown (writing what is still held).
type LogProcessor struct {
	p       *Processor
	closed  atomic.Bool
	dropped atomic.Int64
}

var _ sdklog.Processor = (*LogProcessor)(nil)

// LogProcessor returns the log processor that writes into p's artifacts.
// Register it with sdklog.WithProcessor on the LoggerProvider the GenAI
// instrumentation logs to. Shut the LoggerProvider down before the
// TracerProvider: a log record emitted after p's Shutdown is not written.
func (p *Processor) LogProcessor() *LogProcessor { return &LogProcessor{p: p} }

// Enabled reports whether a record of param would be written: GenAI events
// only. A record whose event name is unknown yet (a bridge that sets it
// only as the event.name attribute) is decided at OnEmit.
func (l *LogProcessor) Enabled(_ context.Context, param sdklog.EnabledParameters) bool {
	if l.closed.Load() {
		return false
	}
	return param.EventName == "" || strings.HasPrefix(param.EventName, genAIEventPrefix)
}

// OnEmit writes rec when it is a GenAI event (its event name, or its
// event.name attribute, starts with "gen_ai."). Redaction is the span
// Processor's (WithRedactKeys, the secret scan), over body and
// attributes. A record the store could not take is counted (Dropped) and
// reported through otel.Handle; the returned error is nil, as the SDK
// expects of a processor that handled the record.
func (l *LogProcessor) OnEmit(_ context.Context, rec *sdklog.Record) error {
	if l.closed.Load() || l.p.closing.Load() || !isGenAIEvent(rec) {
		return nil
	}
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	if res := rec.Resource(); res != nil {
		rl.SetSchemaUrl(res.SchemaURL())
		sdkspan.PutAttributes(rl.Resource().Attributes(), res.Attributes())
	}
	sl := rl.ScopeLogs().AppendEmpty()
	sc := rec.InstrumentationScope()
	sl.SetSchemaUrl(sc.SchemaURL)
	sl.Scope().SetName(sc.Name)
	sl.Scope().SetVersion(sc.Version)
	sdkspan.PutAttributes(sl.Scope().Attributes(), sc.Attributes.ToSlice())
	lr := sl.LogRecords().AppendEmpty()
	appendRecord(lr, rec)
	if artifact.ValueTooDeep(lr.Body()) || artifact.MapTooDeep(lr.Attributes()) {
		// The log API takes maps and lists nested without limit; an
		// artifact line cannot hold them (its reader would refuse the
		// line), so the record is dropped, counted and said, as an
		// OTLP request so deep is refused.
		l.dropped.Add(1)
		otel.Handle(fmt.Errorf("agenttrace: log record %q dropped: %w", rec.EventName(), converter.ErrTooDeep))
		return nil
	}
	if err := l.p.sink.st.WriteLogs(artifact.LogRecords(ld)); err != nil {
		l.dropped.Add(int64(ld.LogRecordCount()))
		if !errors.Is(err, store.ErrClosed) {
			otel.Handle(err)
		}
	}
	return nil
}

// isGenAIEvent reports whether rec is a GenAI semantic-conventions event.
func isGenAIEvent(rec *sdklog.Record) bool {
	if n := rec.EventName(); n != "" {
		return strings.HasPrefix(n, genAIEventPrefix)
	}
	found := false
	rec.WalkAttributes(func(kv attribute.KeyValue) bool {
		if kv.Key == "event.name" {
			found = strings.HasPrefix(kv.Value.AsString(), genAIEventPrefix)
			return false
		}
		return true
	})
	return found
}

// appendRecord copies rec into dst, as the OTLP log exporter would.
func appendRecord(dst plog.LogRecord, rec *sdklog.Record) {
	if t := rec.Timestamp(); !t.IsZero() {
		dst.SetTimestamp(pcommon.NewTimestampFromTime(t))
	}
	if t := rec.ObservedTimestamp(); !t.IsZero() {
		dst.SetObservedTimestamp(pcommon.NewTimestampFromTime(t))
	}
	dst.SetSeverityNumber(plog.SeverityNumber(rec.Severity()))
	dst.SetSeverityText(rec.SeverityText())
	dst.SetEventName(rec.EventName())
	sdkspan.SetValue(dst.Body(), rec.Body())
	attrs := dst.Attributes()
	attrs.EnsureCapacity(rec.AttributesLen())
	rec.WalkAttributes(func(kv attribute.KeyValue) bool {
		sdkspan.SetValue(attrs.PutEmpty(string(kv.Key)), kv.Value)
		return true
	})
	dst.SetDroppedAttributesCount(uint32(max(rec.DroppedAttributes(), 0)))
	dst.SetTraceID(pcommon.TraceID(rec.TraceID()))
	dst.SetSpanID(pcommon.SpanID(rec.SpanID()))
	dst.SetFlags(plog.LogRecordFlags(rec.TraceFlags()))
}

// ForceFlush writes and syncs every span ended before the call, which
// writes the log records held for their traces, or returns ctx's error.
func (l *LogProcessor) ForceFlush(ctx context.Context) error {
	if l.closed.Load() {
		return nil
	}
	return l.p.ForceFlush(ctx)
}

// Shutdown flushes (honouring ctx) and stops taking records. The files
// are the span Processor's, closed at its Shutdown. It is idempotent.
func (l *LogProcessor) Shutdown(ctx context.Context) error {
	if l.closed.Load() {
		return nil
	}
	err := l.ForceFlush(ctx)
	l.closed.Store(true)
	return err
}

// Dropped returns the number of log records the store could not take (the
// span Processor shut down first, or a write failed).
func (l *LogProcessor) Dropped() int64 { return l.dropped.Load() }
