package artifact

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// KindLog is the line kind of a log record in an artifact.
const KindLog = "log"

// A LogRecord is one OTLP log record of an artifact, whole, with the
// resource and scope it was reported under. The official GenAI
// instrumentations put message content in log records linked to the span
// of the model call, so an artifact keeps them next to their span rather
// than lose the prompt and the answer.
type LogRecord struct {
	Log               plog.LogRecord
	Resource          pcommon.Resource
	ResourceSchemaURL string
	Scope             pcommon.InstrumentationScope
	ScopeSchemaURL    string
}

// Key returns the span the record belongs to; its Span is empty when the
// record names none.
func (l *LogRecord) Key() SpanKey { return SpanKey{l.Log.TraceID(), l.Log.SpanID()} }

// AppendLog appends rec as one "log" line, newline included. A log line
// is never cut short: [Writer.WriteLog] refuses one longer than the line
// limit rather than write what a reader would skip.
func (e *Encoder) AppendLog(dst []byte, rec *LogRecord) []byte {
	lr := rec.Log
	dst = append(dst, `{"kind":"log"`...)
	if tid := lr.TraceID(); !tid.IsEmpty() {
		dst = append(dst, `,"trace_id":"`...)
		dst = appendHex(dst, tid[:])
		dst = append(dst, '"')
	}
	if sid := lr.SpanID(); !sid.IsEmpty() {
		dst = append(dst, `,"span_id":"`...)
		dst = appendHex(dst, sid[:])
		dst = append(dst, '"')
	}
	if t := lr.Timestamp(); t != 0 {
		dst = append(dst, `,"time":`...)
		dst = appendTimestamp(dst, uint64(t))
	}
	if t := lr.ObservedTimestamp(); t != 0 {
		dst = append(dst, `,"observed_time":`...)
		dst = appendTimestamp(dst, uint64(t))
	}
	if n := lr.SeverityNumber(); n != 0 {
		dst = append(dst, `,"severity_number":`...)
		dst = strconv.AppendInt(dst, int64(n), 10)
	}
	if s := lr.SeverityText(); s != "" {
		dst = append(dst, `,"severity_text":`...)
		dst = jsonlex.AppendString(dst, s)
	}
	if s := lr.EventName(); s != "" {
		dst = append(dst, `,"event_name":`...)
		dst = jsonlex.AppendString(dst, s)
	}
	if b := lr.Body(); b.Type() != pcommon.ValueTypeEmpty {
		dst = append(dst, `,"body":`...)
		dst = appendValue(dst, b)
	}
	if lr.Attributes().Len() > 0 {
		dst = append(dst, `,"attrs":`...)
		dst = appendMap(dst, lr.Attributes(), nil)
	}
	if fl := lr.Flags(); fl != 0 {
		dst = append(dst, `,"flags":`...)
		dst = strconv.AppendUint(dst, uint64(fl), 10)
	}
	dst = appendDropped(dst, lr.DroppedAttributesCount(), 0, 0)
	if !e.set || rec.ResourceSchemaURL != e.def.resSchema || !e.sameHeaderResource(rec.Resource) {
		dst = appendResource(dst, rec.Resource, rec.ResourceSchemaURL)
	}
	if !e.set || rec.ScopeSchemaURL != e.def.scSchema || !sameScope(rec.Scope, e.def.scope) {
		dst = append(dst, `,"scope":`...)
		dst = appendScope(dst, rec.Scope, rec.ScopeSchemaURL)
	}
	return append(dst, '}', '\n')
}

// decodeLog decodes a "log" line into rec, whose Log must be empty. def
// supplies the resource and scope of records that carry neither.
func (d *decoder) decodeLog(line []byte, rec *LogRecord, def *Meta) error {
	s := &d.sc
	s.Reset(line)
	d.viewable = false // strings are copied: a log record does not keep its line
	lr := rec.Log
	var own ownMeta
	if !s.Open('{') {
		return s.Err
	}
	for first := true; s.More(&first, '}'); {
		switch key := s.Key(); string(key) {
		case "trace_id":
			lr.SetTraceID(d.traceID())
		case "span_id":
			lr.SetSpanID(d.spanID())
		case "time":
			lr.SetTimestamp(pcommon.Timestamp(d.timestamp()))
		case "observed_time":
			lr.SetObservedTimestamp(pcommon.Timestamp(d.timestamp()))
		case "severity_number":
			n := s.Int()
			if n < -1<<31 || n > 1<<31-1 {
				s.Fail("severity_number %d out of range", n)
			}
			lr.SetSeverityNumber(plog.SeverityNumber(int32(n)))
		case "severity_text":
			lr.SetSeverityText(s.Str())
		case "event_name":
			lr.SetEventName(s.Str())
		case "body":
			d.value(lr.Body())
		case "attrs":
			d.attrs(lr.Attributes())
		case "flags":
			lr.SetFlags(plog.LogRecordFlags(d.uint32()))
		case "dropped":
			if s.Open('{') {
				for first := true; s.More(&first, '}'); {
					if string(s.Key()) == "attrs" {
						lr.SetDroppedAttributesCount(d.uint32())
					} else {
						s.SkipValue()
					}
				}
			}
		case "resource", "resource_dropped", "resource_schema_url", "scope":
			d.ownMetaField(key, &own)
		default:
			s.SkipValue() // "kind", and fields of later versions
		}
	}
	s.End()
	if s.Err != nil {
		return s.Err
	}
	res, resSchema, sc, scSchema, err := d.resourceAndScope(&own, def)
	if err != nil {
		return err
	}
	rec.Resource, rec.ResourceSchemaURL, rec.Scope, rec.ScopeSchemaURL = res, resSchema, sc, scSchema
	return nil
}

// WithLogs makes the Reader decode "log" lines and hand each to f, in
// file order, instead of counting them as lines of an unknown kind (what
// a reader that does not ask for them does, as format v1 allows).
func WithLogs(f func(*LogRecord)) ReaderOption {
	return readerOptionFunc(func(c *readerConfig) { c.onLog = f })
}

// handleLog decodes a log line and gives it to the handler.
func (r *Reader) handleLog(line []byte) error {
	if r.cfg.onLog == nil {
		r.stats.Unknown++
		return nil
	}
	rec := &LogRecord{Log: plog.NewLogRecord()}
	if err := r.dec.decodeLog(line, rec, r.meta); err != nil {
		return fmt.Errorf("%w: log: %w", ErrBadRecord, err)
	}
	r.stats.Logs++
	r.cfg.onLog(rec)
	return nil
}

// WriteLog writes one log record. Before any span record it writes the
// header, made from the log record when the Writer was given none. The
// trailer's counts are of spans: log records add nothing to them.
func (w *Writer) WriteLog(rec *LogRecord) error {
	if w.closed {
		return ErrClosed
	}
	if !w.wroteMeta && w.meta == nil {
		m := NewMeta(UnixNano(uint64(rec.Log.Timestamp())))
		m.Resource, m.ResourceSchemaURL = rec.Resource, rec.ResourceSchemaURL
		m.Scope, m.ScopeSchemaURL = rec.Scope, rec.ScopeSchemaURL
		fillService(m)
		w.meta = m
	}
	if err := w.WriteHeader(); err != nil {
		return err
	}
	w.buf = w.enc.AppendLog(w.buf[:0], rec)
	if max := w.enc.MaxLineSize(); max > 0 && len(w.buf)-1 > max {
		return fmt.Errorf("log record of span %s: %d bytes: %w", rec.Log.SpanID(), len(w.buf)-1, ErrLineTooLong)
	}
	err := w.writeLine(w.buf)
	if cap(w.buf) > maxKeptBuf {
		w.buf = nil
	}
	return err
}

// LogRecords returns every log record of ld with its resource and scope,
// in ld's order. The records share ld's memory.
func LogRecords(ld plog.Logs) []LogRecord {
	out := make([]LogRecord, 0, ld.LogRecordCount())
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				out = append(out, LogRecord{Log: lr, Resource: rl.Resource(), ResourceSchemaURL: rl.SchemaUrl(),
					Scope: sl.Scope(), ScopeSchemaURL: sl.SchemaUrl()})
			}
		}
	}
	return out
}

// ToLogs copies recs into OTLP logs: records with equal resources share
// one ResourceLogs and, under it, records with equal scopes one ScopeLogs,
// in the order they first appear.
func ToLogs(recs []LogRecord) plog.Logs {
	ld := plog.NewLogs()
	type group struct {
		res       pcommon.Resource
		resSchema string
		rl        plog.ResourceLogs
		scopes    []plog.ScopeLogs
	}
	var groups []*group
	for i := range recs {
		r := &recs[i]
		var g *group
		for _, c := range groups {
			if c.resSchema == r.ResourceSchemaURL && sameResource(c.res, r.Resource) {
				g = c
				break
			}
		}
		if g == nil {
			g = &group{res: r.Resource, resSchema: r.ResourceSchemaURL, rl: ld.ResourceLogs().AppendEmpty()}
			r.Resource.CopyTo(g.rl.Resource())
			g.rl.SetSchemaUrl(r.ResourceSchemaURL)
			groups = append(groups, g)
		}
		var sl plog.ScopeLogs
		found := false
		for _, c := range g.scopes {
			if c.SchemaUrl() == r.ScopeSchemaURL && sameScope(c.Scope(), r.Scope) {
				sl, found = c, true
				break
			}
		}
		if !found {
			sl = g.rl.ScopeLogs().AppendEmpty()
			r.Scope.CopyTo(sl.Scope())
			sl.SetSchemaUrl(r.ScopeSchemaURL)
			g.scopes = append(g.scopes, sl)
		}
		r.Log.CopyTo(sl.LogRecords().AppendEmpty())
	}
	return ld
}

// SortLogs orders recs by time (the observed time when a record has no
// time of its own), keeping the order of equal times.
func SortLogs(recs []LogRecord) {
	slices.SortStableFunc(recs, func(a, b LogRecord) int { return cmp.Compare(logTime(a.Log), logTime(b.Log)) })
}

func logTime(lr plog.LogRecord) pcommon.Timestamp {
	if t := lr.Timestamp(); t != 0 {
		return t
	}
	return lr.ObservedTimestamp()
}
