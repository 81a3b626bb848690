package artifact

import (
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
	"github.com/agenttrace/agenttrace/semconv"
)

// An Encoder turns records into artifact lines. It keeps the header's
// resource and scope so that records reported under them do not repeat
// them. An Encoder is not safe for concurrent use; its zero value encodes
// every record with its own resource and scope.
type Encoder struct {
	rd  semconv.Reading
	ext *semconv.Reading // AppendRecordReading's, in place of rd while it runs
	def origin
	set bool
	// meta is the header SetDefaults took: its budget and redaction
	// decide which resource attributes it owns (headerOwned).
	meta *Meta
	lim  lineLimit
	day  dayCache
	// embedded is, for each of jsonFields, the last string value that
	// was embedded as it is (see appendJSONField).
	embedded [len(jsonFields)]string
	red      SpanRedactor // see SetRedactor
	// held: the records' resources do not change until the next
	// SetDefaults (SetDefaultsHeld); sameRes is then the last resource
	// found to read back as the header's, told by identity after.
	held    bool
	sameRes pcommon.Resource
}

// A SpanRedactor redacts each span an Encoder encodes, inside the
// encoder's own walk of its attributes (redact.SpanWalk is one): Begin
// redacts what of the span is not an attribute (its name, status
// message, events and links) before anything of it is read, Attr each
// attribute in the reading's walk before the reading keeps it, End
// follows the span. What is encoded, and read, is the redacted span.
type SpanRedactor interface {
	Begin(sp ptrace.Span)
	Attr(key string, v pcommon.Value)
	End()
}

// SetRedactor makes the encoder redact every record's span in place as it
// encodes it, in the walk of its attributes that reads them (nil: no
// redaction). A writer that redacted its spans before
// encoding them must not set one as well: each span is redacted once.
func (e *Encoder) SetRedactor(r SpanRedactor) { e.red = r }

// origin is where a span was reported: resource and scope with their
// schema URLs.
type origin struct {
	res       pcommon.Resource
	resSchema string
	scope     pcommon.InstrumentationScope
	scSchema  string
}

// SetDefaults makes m's resource and scope the ones records may omit.
func (e *Encoder) SetDefaults(m *Meta) {
	e.def = origin{m.Resource, m.ResourceSchemaURL, m.Scope, m.ScopeSchemaURL}
	e.set, e.meta = true, m
	e.held, e.sameRes = false, pcommon.Resource{}
}

// SetDefaultsHeld is SetDefaults for a writer that holds the records it
// encodes until the next SetDefaults, their resources unchanged meanwhile
// (a store encoding a batch): a resource is then compared with the
// header's once, and the records reported under it after are told by
// identity. Records of a batch share their resource, which is a copy of
// the header's, not the header's own: otherwise each record compares
// every attribute.
func (e *Encoder) SetDefaultsHeld(m *Meta) {
	e.SetDefaults(m)
	e.held = true
}

// Reading returns the reading of the record last encoded, for callers that
// tally what they write without reading each span twice.
func (e *Encoder) Reading() *semconv.Reading { return e.reading() }

func (e *Encoder) reading() *semconv.Reading {
	if e.ext != nil {
		return e.ext
	}
	return &e.rd
}

// AppendRecordReading is AppendRecord reading the span into rd, which the
// caller keeps: a writer that encodes many records before it tallies them
// keeps one reading per record without copying the encoder's.
func (e *Encoder) AppendRecordReading(dst []byte, rec *Record, rd *semconv.Reading) []byte {
	e.ext = rd
	defer func() { e.ext = nil }()
	return e.AppendRecord(dst, rec)
}

// sameResource and sameScope compare by content; a record reported
// under the very resource (scope) the header took, the usual case, is
// told by identity without walking the attributes.
func sameResource(a, b pcommon.Resource) bool {
	if a == b {
		return true
	}
	return a.DroppedAttributesCount() == b.DroppedAttributesCount() && a.Attributes().Equal(b.Attributes())
}

// sameHeaderResource reports whether a record's resource res reads back
// as the header's, so the record may omit it: equal, or equal but for the
// attributes the header owns (its budget and redaction, which the header
// line states as fields and a reader puts back into the resource). A
// header read back from an artifact (a store adopting a file) has those
// attributes moved last, and the warn threshold added: the records that
// follow must still omit the resource a header made from them omits, or
// the artifact depends on whether its writer was restarted, or finalized
// and reopened it between batches.
func (e *Encoder) sameHeaderResource(res pcommon.Resource) bool {
	if e.held && res == e.sameRes && res != (pcommon.Resource{}) {
		return true
	}
	same := e.sameHeaderResourceAttrs(res)
	if same && e.held {
		e.sameRes = res
	}
	return same
}

// sameHeaderResourceAttrs is sameHeaderResource by content.
func (e *Encoder) sameHeaderResourceAttrs(res pcommon.Resource) bool {
	def := e.def.res
	if sameResource(res, def) {
		return true
	}
	m := e.meta
	if m == nil || res.DroppedAttributesCount() != def.DroppedAttributesCount() {
		return false
	}
	own, defOwn := res.Attributes(), def.Attributes()
	n := 0
	for k, v := range own.All() {
		if headerOwned(m, k, v) {
			continue
		}
		n++
		w, ok := defOwn.Get(k)
		if !ok || headerOwned(m, k, w) || !v.Equal(w) {
			return false
		}
	}
	for k, v := range defOwn.All() {
		if !headerOwned(m, k, v) {
			n--
		}
	}
	return n == 0
}

func sameScope(a, b pcommon.InstrumentationScope) bool {
	if a == b {
		return true
	}
	return a.Name() == b.Name() && a.Version() == b.Version() &&
		a.DroppedAttributesCount() == b.DroppedAttributesCount() && a.Attributes().Equal(b.Attributes())
}

var spanKinds = [...]string{"unspecified", "internal", "server", "client", "producer", "consumer"}

// usageFields are the members of a record's usage object, in order.
var usageFields = [...]semconv.Field{
	semconv.FieldInputTokens, semconv.FieldOutputTokens, semconv.FieldCacheReadTokens,
	semconv.FieldCacheCreationTokens, semconv.FieldReasoningTokens,
}

// stringFields are promoted string fields in the order a record lists them.
var stringFields = [...]semconv.Field{
	semconv.FieldConversationID, semconv.FieldAgent, semconv.FieldAgentID,
	semconv.FieldTool, semconv.FieldToolCallID, semconv.FieldToolType,
	semconv.FieldProvider, semconv.FieldModel, semconv.FieldRequestModel, semconv.FieldResponseID,
}

// jsonFields are the JSON-valued fields, small ones first.
var jsonFields = [...]semconv.Field{
	semconv.FieldArgs, semconv.FieldResult, semconv.FieldSystem, semconv.FieldTools,
	semconv.FieldInput, semconv.FieldOutput,
}

// appendRecord appends rec as one line, newline included, however long.
// The reading's walk of the span's attributes redacts each one first
// (red, nil: none); the attributes no field took are encoded after the
// fields, in the map's order, by a second pass over the map. That pass
// once rode the first walk, which buffered each attribute's encoding
// until the fields were out and copied it again: 9% on Encode
// (docs/benchmarks.md, issue 27), against a pass that costs a loop.
func (e *Encoder) appendRecord(dst []byte, rec *Record, red SpanRedactor) []byte {
	sp := rec.Span
	st := sp.Status()
	isErr := st.Code() == ptrace.StatusCodeError
	rd := e.reading()
	// A nil red is no hook: ReadWith is then Read.
	semconv.ReadWith(rd, sp.Name(), sp.Attributes(), isErr, red)
	rd.SetScope(rec.Scope.Name(), rec.Scope.Version()) // for TokenUsage, when the writer tallies

	dst = append(dst, `{"kind":"`...)
	dst = append(dst, rd.Kind.String()...)
	dst = append(dst, `","name":`...)
	dst = jsonlex.AppendString(dst, sp.Name())
	dst = appendIDs(dst, sp)
	if rd.Has(semconv.FieldOp) {
		dst = append(dst, `,"op":`...)
		dst = jsonlex.AppendString(dst, rd.Str(semconv.FieldOp))
	}
	start, end := sp.StartTimestamp(), sp.EndTimestamp()
	dst = append(dst, `,"started_at":`...)
	dst = appendTimestampOn(dst, uint64(start), &e.day)
	if rec.InFlight {
		// A start record: no end yet (docs/format.md, In-flight records).
		dst = append(dst, `,"in_flight":true`...)
	} else {
		dst = append(dst, `,"finished_at":`...)
		dst = appendTimestampOn(dst, uint64(end), &e.day)
		dst = append(dst, `,"elapsed_ms":`...)
		dst = appendMillis(dst, int64(end)-int64(start))
	}
	dst = appendStatus(dst, st, rd, isErr)
	for _, f := range stringFields {
		if rd.Has(f) {
			dst = appendField(dst, f.Name())
			dst = jsonlex.AppendString(dst, rd.Str(f))
		}
	}
	if rd.Has(semconv.FieldFinishReasons) {
		dst = append(dst, `,"finish_reasons":`...)
		v := rd.Value(semconv.FieldFinishReasons)
		if v.Type() == pcommon.ValueTypeStr {
			dst = append(dst, '[')
			dst = jsonlex.AppendString(dst, v.Str())
			dst = append(dst, ']')
		} else {
			dst = appendValue(dst, v)
		}
	}
	dst = appendUsage(dst, rd)
	if rd.Has(semconv.FieldCost) {
		dst = append(dst, `,"cost":`...)
		dst = appendDouble(dst, rd.Value(semconv.FieldCost).Double())
	}
	var structured [len(jsonFields)]bool
	for i, f := range jsonFields {
		if !rd.Has(f) {
			continue
		}
		dst = appendField(dst, f.Name())
		dst, structured[i] = e.appendJSONField(dst, i, rd.Value(f))
	}
	if est := estimatedTokens(rd, sp.Attributes()); est > 0 {
		dst = append(dst, `,"estimated_tokens":`...)
		dst = appendInt(dst, est)
	}
	dst = appendAliases(dst, rd)
	dst = appendStructured(dst, &structured)
	if sp.Attributes().Len() > len(rd.Consumed()) {
		dst = append(dst, `,"attrs":`...)
		dst = appendMap(dst, sp.Attributes(), rd.Consumed())
	}
	dst = appendEvents(dst, sp.Events(), &e.day)
	dst = appendLinks(dst, sp.Links())
	if ts := sp.TraceState().AsRaw(); ts != "" {
		dst = append(dst, `,"trace_state":`...)
		dst = jsonlex.AppendString(dst, ts)
	}
	if fl := sp.Flags(); fl != 0 {
		dst = append(dst, `,"flags":`...)
		dst = strconv.AppendUint(dst, uint64(fl), 10)
	}
	dst = appendDropped(dst, sp.DroppedAttributesCount(), sp.DroppedEventsCount(), sp.DroppedLinksCount())
	if !e.set || rec.ResourceSchemaURL != e.def.resSchema || !e.sameHeaderResource(rec.Resource) {
		dst = appendResource(dst, rec.Resource, rec.ResourceSchemaURL)
	}
	if !e.set || rec.ScopeSchemaURL != e.def.scSchema || !sameScope(rec.Scope, e.def.scope) {
		dst = append(dst, `,"scope":`...)
		dst = appendScope(dst, rec.Scope, rec.ScopeSchemaURL)
	}
	return append(dst, '}', '\n')
}

// appendIDs appends a span's trace, span and parent ids and its kind.
func appendIDs(dst []byte, sp ptrace.Span) []byte {
	dst = append(dst, `,"trace_id":"`...)
	tid := sp.TraceID()
	dst = appendHex16(dst, (*[16]byte)(&tid))
	dst = append(dst, `","span_id":"`...)
	sid := sp.SpanID()
	dst = appendHex8(dst, (*[8]byte)(&sid))
	dst = append(dst, '"')
	if p := sp.ParentSpanID(); !p.IsEmpty() {
		dst = append(dst, `,"parent_span_id":"`...)
		dst = appendHex8(dst, (*[8]byte)(&p))
		dst = append(dst, '"')
	}
	if k := sp.Kind(); k != ptrace.SpanKindInternal {
		dst = append(dst, `,"span_kind":`...)
		if int(k) >= 0 && int(k) < len(spanKinds) {
			dst = append(dst, '"')
			dst = append(dst, spanKinds[k]...)
			dst = append(dst, '"')
		} else {
			dst = strconv.AppendInt(dst, int64(k), 10)
		}
	}
	return dst
}

// appendStatus appends a span's outcome: ok or the error's code, the
// status message, and a status code OTLP does not define.
func appendStatus(dst []byte, st ptrace.Status, rd *semconv.Reading, isErr bool) []byte {
	if isErr {
		dst = append(dst, `,"ok":false,"code":`...)
		if rd.Has(semconv.FieldCode) {
			dst = jsonlex.AppendString(dst, rd.Str(semconv.FieldCode))
		} else {
			dst = append(dst, `"error"`...)
		}
	} else {
		dst = append(dst, `,"ok":true`...)
		if st.Code() == ptrace.StatusCodeOk {
			dst = append(dst, `,"status":"ok"`...)
		}
	}
	if msg := st.Message(); msg != "" {
		dst = append(dst, `,"message":`...)
		dst = jsonlex.AppendString(dst, msg)
	}
	if c := int32(st.Code()); c < 0 || c > 2 {
		// Not a code OTLP defines; kept so the span round-trips.
		dst = append(dst, `,"status_code":`...)
		dst = strconv.AppendInt(dst, int64(c), 10)
	}
	return dst
}

// appendUsage appends the usage object of the token classes rd read.
func appendUsage(dst []byte, rd *semconv.Reading) []byte {
	hasUsage := false
	for _, f := range usageFields {
		if !rd.Has(f) {
			continue
		}
		if !hasUsage {
			dst = append(dst, `,"usage":{`...)
			hasUsage = true
		}
		dst = appendField(dst, f.Name()[len("usage."):])
		dst = appendInt(dst, rd.Int(f))
	}
	if hasUsage {
		dst = append(dst, '}')
	}
	return dst
}

// appendAliases appends, for each field read from another key than its
// own, that key: the field goes back under it.
func appendAliases(dst []byte, rd *semconv.Reading) []byte {
	first := true
	for f := range semconv.NumFields {
		if !rd.Aliased(f) {
			continue
		}
		if first {
			dst = append(dst, `,"aliases":{`...)
			first = false
		} else {
			dst = append(dst, ',')
		}
		dst = appendKey(dst, f.Name())
		dst = jsonlex.AppendString(dst, rd.Source(f))
	}
	if !first {
		dst = append(dst, '}')
	}
	return dst
}

// appendStructured appends the JSON fields that were structured values
// at their source (not JSON text), so they go back as such.
func appendStructured(dst []byte, structured *[len(jsonFields)]bool) []byte {
	first := true
	for i, f := range jsonFields {
		if !structured[i] {
			continue
		}
		if first {
			dst = append(dst, `,"structured":[`...)
			first = false
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, f.Name()...)
		dst = append(dst, '"')
	}
	if !first {
		dst = append(dst, ']')
	}
	return dst
}

// maxRemembered bounds the JSON text an Encoder keeps to compare with
// (appendJSONField): a larger value is checked every time rather than
// kept alive past its span.
const maxRemembered = 256 << 10

// appendJSONField is appendJSONValue for jsonFields[i], remembering the
// last string the field embedded: a value the same as that one is
// copied without being checked again. Tool definitions and system
// instructions (kilobytes each) are sent unchanged with every model call
// of an agent, and checking JSON is most of what the encoder costs per
// byte; comparing costs a length compare on a miss and a memory compare,
// several times faster than the check, on a hit. A Go string does not
// change, so the verdict kept with it stays true.
func (e *Encoder) appendJSONField(dst []byte, i int, v pcommon.Value) ([]byte, bool) {
	if v.Type() == pcommon.ValueTypeStr {
		// Only embedded values are kept, and they are at least "{}" long:
		// the zero Encoder's empty strings match nothing.
		if s := v.Str(); len(s) >= 2 && s == e.embedded[i] {
			return append(dst, s...), false
		}
	}
	n := len(dst)
	dst, structured := appendJSONValue(dst, v)
	if !structured && dst[n] != '"' && len(dst)-n <= maxRemembered {
		e.embedded[i] = v.Str() // embedded: written as it is, not as a string
	}
	return dst, structured
}

// estimatedTokens is what a record adds to a model's context: the billed
// input + output of a model call, or a tool call's [CallEstimate].
func estimatedTokens(rd *semconv.Reading, attrs pcommon.Map) int64 {
	switch rd.Kind {
	case semconv.Inference:
		// Usage().Total(), without the three counts it leaves out.
		return rd.Int(semconv.FieldInputTokens) + rd.Int(semconv.FieldOutputTokens)
	case semconv.Call:
		return CallEstimate(rd, attrs)
	}
	return 0
}

func appendEvents(dst []byte, evs ptrace.SpanEventSlice, day *dayCache) []byte {
	if evs.Len() == 0 {
		return dst
	}
	dst = append(dst, `,"events":[`...)
	for i := range evs.Len() {
		ev := evs.At(i)
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = jsonlex.AppendString(dst, ev.Name())
		dst = append(dst, `,"time":`...)
		dst = appendTimestampOn(dst, uint64(ev.Timestamp()), day)
		if ev.Attributes().Len() > 0 {
			dst = append(dst, `,"attrs":`...)
			dst = appendMap(dst, ev.Attributes(), nil)
		}
		if n := ev.DroppedAttributesCount(); n > 0 {
			dst = append(dst, `,"dropped":`...)
			dst = strconv.AppendUint(dst, uint64(n), 10)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendLinks(dst []byte, links ptrace.SpanLinkSlice) []byte {
	if links.Len() == 0 {
		return dst
	}
	dst = append(dst, `,"links":[`...)
	for i := range links.Len() {
		l := links.At(i)
		if i > 0 {
			dst = append(dst, ',')
		}
		tid, sid := l.TraceID(), l.SpanID()
		dst = append(dst, `{"trace_id":"`...)
		dst = appendHex(dst, tid[:])
		dst = append(dst, `","span_id":"`...)
		dst = appendHex(dst, sid[:])
		dst = append(dst, '"')
		if ts := l.TraceState().AsRaw(); ts != "" {
			dst = append(dst, `,"trace_state":`...)
			dst = jsonlex.AppendString(dst, ts)
		}
		if fl := l.Flags(); fl != 0 {
			dst = append(dst, `,"flags":`...)
			dst = strconv.AppendUint(dst, uint64(fl), 10)
		}
		if l.Attributes().Len() > 0 {
			dst = append(dst, `,"attrs":`...)
			dst = appendMap(dst, l.Attributes(), nil)
		}
		if n := l.DroppedAttributesCount(); n > 0 {
			dst = append(dst, `,"dropped":`...)
			dst = strconv.AppendUint(dst, uint64(n), 10)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendDropped(dst []byte, attrs, events, links uint32) []byte {
	if attrs == 0 && events == 0 && links == 0 {
		return dst
	}
	dst = append(dst, `,"dropped":{`...)
	if attrs > 0 {
		dst = appendField(dst, "attrs")
		dst = strconv.AppendUint(dst, uint64(attrs), 10)
	}
	if events > 0 {
		dst = appendField(dst, "events")
		dst = strconv.AppendUint(dst, uint64(events), 10)
	}
	if links > 0 {
		dst = appendField(dst, "links")
		dst = strconv.AppendUint(dst, uint64(links), 10)
	}
	return append(dst, '}')
}

// appendResource appends ,"resource":{attrs} and, when set, its dropped
// count and schema URL.
func appendResource(dst []byte, res pcommon.Resource, schemaURL string) []byte {
	dst = append(dst, `,"resource":`...)
	dst = appendMap(dst, res.Attributes(), nil)
	if n := res.DroppedAttributesCount(); n > 0 {
		dst = append(dst, `,"resource_dropped":`...)
		dst = strconv.AppendUint(dst, uint64(n), 10)
	}
	if schemaURL != "" {
		dst = append(dst, `,"resource_schema_url":`...)
		dst = jsonlex.AppendString(dst, schemaURL)
	}
	return dst
}

func appendScope(dst []byte, sc pcommon.InstrumentationScope, schemaURL string) []byte {
	dst = append(dst, '{')
	if sc.Name() != "" {
		dst = appendField(dst, "name")
		dst = jsonlex.AppendString(dst, sc.Name())
	}
	if sc.Version() != "" {
		dst = appendField(dst, "version")
		dst = jsonlex.AppendString(dst, sc.Version())
	}
	if sc.Attributes().Len() > 0 {
		dst = appendField(dst, "attrs")
		dst = appendMap(dst, sc.Attributes(), nil)
	}
	if n := sc.DroppedAttributesCount(); n > 0 {
		dst = appendField(dst, "dropped")
		dst = strconv.AppendUint(dst, uint64(n), 10)
	}
	if schemaURL != "" {
		dst = appendField(dst, "schema_url")
		dst = jsonlex.AppendString(dst, schemaURL)
	}
	return append(dst, '}')
}

func appendTime(dst []byte, t time.Time) []byte {
	ns := t.UnixNano()
	if ns < 0 {
		ns = 0
	}
	return appendTimestamp(dst, uint64(ns))
}
