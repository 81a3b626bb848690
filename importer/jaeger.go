package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Jaeger JSON (the query API's /api/traces answer, the UI's download): the
// model of jaeger's internal/uimodel.
type jaegerSpan struct {
	TraceID       string         `json:"traceID"`
	SpanID        string         `json:"spanID"`
	ParentSpanID  string         `json:"parentSpanID"`
	Flags         json.Number    `json:"flags"`
	OperationName string         `json:"operationName"`
	References    []jaegerRef    `json:"references"`
	StartTime     json.Number    `json:"startTime"`
	Duration      json.Number    `json:"duration"`
	Tags          []jaegerKV     `json:"tags"`
	Logs          []jaegerLog    `json:"logs"`
	ProcessID     string         `json:"processID"`
	Process       *jaegerProcess `json:"process"`
	Warnings      []string       `json:"warnings"`
}

type jaegerRef struct {
	RefType string `json:"refType"`
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
}

type jaegerKV struct {
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

type jaegerLog struct {
	Timestamp json.Number `json:"timestamp"`
	Fields    []jaegerKV  `json:"fields"`
}

type jaegerProcess struct {
	ServiceName string     `json:"serviceName"`
	Tags        []jaegerKV `json:"tags"`
}

// Tags the OTLP -> Jaeger translation adds for span fields Jaeger lacks;
// read back into those fields.
const (
	jaegerSpanKind       = "span.kind"
	jaegerStatusCode     = "otel.status_code"
	jaegerStatusDesc     = "otel.status_description"
	jaegerError          = "error"
	jaegerScopeName      = "otel.scope.name"
	jaegerScopeVersion   = "otel.scope.version"
	jaegerLibraryName    = "otel.library.name"
	jaegerLibraryVersion = "otel.library.version"
	jaegerTraceState     = "w3c.tracestate"
	jaegerRefTypeAttr    = "opentracing.ref_type"
	jaegerWarningsAttr   = "jaeger.warnings"
)

// jaegerMaxDepth bounds how deep {"data": …} answers and arrays of traces
// may nest.
const jaegerMaxDepth = 4

// ReadJaeger reads Jaeger JSON: the query API's {"data":[trace…]} answer,
// a bare trace object, an array of traces, or several of these one after
// another (JSON Lines). It is a [Func].
//
// Trace and span ids stay Jaeger's (64-bit trace ids left-padded to 128).
// The first CHILD_OF reference is the parent (else the first FOLLOWS_FROM);
// other references are links whose opentracing.ref_type tells their type,
// as the collector's Jaeger receiver writes them. Tags keep their types
// (string, bool, int64, float64, binary as bytes); the tags the OTLP ->
// Jaeger translation adds become span fields again: span.kind the kind,
// otel.status_code and error=true the status, otel.status_description its
// message, otel.scope.name and .version the scope, w3c.tracestate the trace
// state. GenAI tags stay as they are, so the gen_ai.* dialect applies,
// except that a finish-reasons tag the translation wrote as JSON text is a
// string array again (stringList). A
// process is a resource (service.name and its tags), shared by its spans;
// logs are events named by their "event" field, else "log"; span warnings
// are kept in jaeger.warnings. A span without usable ids is reported (with
// its line) and skipped. The input is read whole; each trace's records are
// emitted in the order their spans end.
func ReadJaeger(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, byteOrderMark)
	j := &jaegerReader{out: sink{name: name, emit: emit}, lines: newOffsetLines(data)}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		off := jsonValueStart(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if !errors.Is(err, io.EOF) {
				j.problem(off, fmt.Errorf("jaeger JSON: %w", err))
			}
			break
		}
		if err := j.value(raw, off, 0); err != nil {
			return j.out.done(), err
		}
	}
	return j.out.done(), nil
}

type jaegerReader struct {
	out   sink
	lines *offsetLines
	// scopes shares one scope per (name, version) across the input.
	scopes map[[2]string]pcommon.InstrumentationScope
}

// problem reports a problem at offset off of the input.
func (j *jaegerReader) problem(off int, err error) { j.out.problem(j.lines.at(off), err) }

// value reads one JSON value at offset off: an array of traces, a
// {"data": …} answer or a trace.
func (j *jaegerReader) value(raw []byte, off, depth int) error {
	if depth > jaegerMaxDepth {
		j.problem(off, errors.New("jaeger JSON nested too deep"))
		return nil
	}
	switch firstByte(raw) {
	case '[':
		return walkArray(raw, off, func(v []byte, voff int) error { return j.value(v, voff, depth+1) },
			func(voff int, err error) { j.problem(voff, err) })
	case '{':
		return j.object(raw, off, depth)
	case 'n': // null, as "data": null
		return nil
	}
	j.problem(off, errors.New("not Jaeger JSON: want an object or an array of traces"))
	return nil
}

// jaegerTrace is a trace being read; its spans wait for its processes,
// which may come after them.
type jaegerTrace struct {
	traceID   string
	spans     []offsetValue
	processes map[string]jaegerProcess
	isTrace   bool
}

type offsetValue struct {
	raw []byte
	off int
}

func (j *jaegerReader) object(raw []byte, off, depth int) error {
	var tr jaegerTrace
	var inner []offsetValue
	err := walkObject(raw, off, func(key string, v []byte, voff int) error {
		switch key {
		case "data":
			inner = append(inner, offsetValue{v, voff})
		case "errors":
			j.answerErrors(v, voff)
		case "traceID":
			tr.isTrace = true
			if json.Unmarshal(v, &tr.traceID) != nil {
				j.problem(voff, errors.New("traceID is not a string"))
			}
		case "spans":
			tr.isTrace = true
			return walkArray(v, voff, func(sv []byte, soff int) error {
				tr.spans = append(tr.spans, offsetValue{sv, soff})
				return nil
			}, func(soff int, err error) { j.problem(soff, err) })
		case "processes":
			tr.isTrace = true
			if err := json.Unmarshal(v, &tr.processes); err != nil {
				j.problem(voff, fmt.Errorf("processes: %w", err))
			}
		}
		return nil
	}, func(eoff int, err error) { j.problem(eoff, err) })
	if err != nil {
		return err
	}
	for _, in := range inner {
		if err := j.value(in.raw, in.off, depth+1); err != nil {
			return err
		}
	}
	if tr.isTrace {
		return j.trace(&tr)
	}
	if len(inner) == 0 {
		j.problem(off, errors.New("not a Jaeger trace: no traceID, spans or data"))
	}
	return nil
}

// answerErrors reports the query API's errors ("trace not found").
func (j *jaegerReader) answerErrors(v []byte, off int) {
	var errs []struct {
		Code    int    `json:"code"`
		Msg     string `json:"msg"`
		TraceID string `json:"traceID"`
	}
	if json.Unmarshal(v, &errs) != nil {
		return
	}
	for _, e := range errs {
		j.problem(off, fmt.Errorf("jaeger query error %d: %s (trace %s)", e.Code, e.Msg, e.TraceID))
	}
}

func (j *jaegerReader) trace(tr *jaegerTrace) error {
	resources := make(map[string]pcommon.Resource)
	resourceFor := func(pid string, inline *jaegerProcess, off int) pcommon.Resource {
		if inline != nil {
			return j.resource(*inline, off)
		}
		if res, ok := resources[pid]; ok {
			return res
		}
		p, ok := tr.processes[pid]
		if !ok && pid != "" {
			j.problem(off, fmt.Errorf("span's process %q is not in the trace's processes", pid))
		}
		res := j.resource(p, off)
		resources[pid] = res
		return res
	}
	recs := make([]artifact.Record, 0, len(tr.spans))
	for _, sv := range tr.spans {
		var js jaegerSpan
		if err := json.Unmarshal(sv.raw, &js); err != nil {
			j.problem(sv.off, fmt.Errorf("span: %w", err))
			continue
		}
		rec, ok := j.span(&js, tr.traceID, sv.off)
		if !ok {
			continue
		}
		rec.Resource = resourceFor(js.ProcessID, js.Process, sv.off)
		recs = append(recs, rec)
	}
	artifact.SortRecords(recs)
	return j.out.putAll(recs)
}

func (j *jaegerReader) resource(p jaegerProcess, off int) pcommon.Resource {
	res := pcommon.NewResource()
	if p.ServiceName != "" {
		res.Attributes().PutStr("service.name", p.ServiceName)
	}
	for _, kv := range p.Tags {
		if err := putJaegerKV(res.Attributes(), kv); err != nil {
			j.problem(off, fmt.Errorf("process tag %q: %w", kv.Key, err))
		}
	}
	return res
}

func (j *jaegerReader) scope(name, version string) pcommon.InstrumentationScope {
	k := [2]string{name, version}
	if sc, ok := j.scopes[k]; ok {
		return sc
	}
	if j.scopes == nil {
		j.scopes = make(map[[2]string]pcommon.InstrumentationScope)
	}
	sc := pcommon.NewInstrumentationScope()
	sc.SetName(name)
	sc.SetVersion(version)
	j.scopes[k] = sc
	return sc
}

// span converts one Jaeger span; false when it has no usable identity.
func (j *jaegerReader) span(js *jaegerSpan, traceID string, off int) (artifact.Record, bool) {
	if js.TraceID != "" {
		traceID = js.TraceID
	}
	tid, err := jaegerTraceID(traceID)
	if err != nil {
		j.problem(off, fmt.Errorf("span %q: traceID: %w", js.SpanID, err))
		return artifact.Record{}, false
	}
	sid, err := jaegerSpanID(js.SpanID)
	if err != nil {
		j.problem(off, fmt.Errorf("span %q: spanID: %w", js.SpanID, err))
		return artifact.Record{}, false
	}
	sp := ptrace.NewSpan()
	sp.SetTraceID(tid)
	sp.SetSpanID(sid)
	sp.SetName(js.OperationName)
	if js.Flags != "" {
		if f, err := strconv.ParseUint(js.Flags.String(), 10, 32); err == nil {
			sp.SetFlags(uint32(f))
		} else {
			j.problem(off, fmt.Errorf("span %s: flags: %w", js.SpanID, err))
		}
	}
	start, err := micros(js.StartTime)
	if err != nil {
		j.problem(off, fmt.Errorf("span %s: startTime: %w", js.SpanID, err))
	}
	dur, err := micros(js.Duration)
	if err != nil {
		j.problem(off, fmt.Errorf("span %s: duration: %w", js.SpanID, err))
	}
	sp.SetStartTimestamp(pcommon.Timestamp(start))
	sp.SetEndTimestamp(pcommon.Timestamp(satAdd(start, dur)))
	j.references(sp, js, off)

	scopeName, scopeVersion := j.tags(sp, js, off)
	if len(js.Warnings) > 0 {
		ws := sp.Attributes().PutEmptySlice(jaegerWarningsAttr)
		for _, w := range js.Warnings {
			ws.AppendEmpty().SetStr(w)
		}
	}
	j.logs(sp, js, off)
	return artifact.Record{Span: sp, Scope: j.scope(scopeName, scopeVersion)}, true
}

// tags sets sp's kind, status, trace state and attributes from js's tags,
// and returns the instrumentation scope they name.
func (j *jaegerReader) tags(sp ptrace.Span, js *jaegerSpan, off int) (scopeName, scopeVersion string) {
	var statusCode, statusDesc string
	var errorTag bool
	attrs := sp.Attributes()
	for _, kv := range js.Tags {
		if s, ok := jaegerStr(kv); ok {
			switch kv.Key {
			case jaegerSpanKind:
				if k, ok := spanKinds[strings.ToLower(s)]; ok {
					sp.SetKind(k)
					continue
				}
			case jaegerStatusCode:
				statusCode = strings.ToUpper(s)
				continue
			case jaegerStatusDesc:
				statusDesc = s
				continue
			case jaegerScopeName, jaegerLibraryName:
				scopeName = s
				continue
			case jaegerScopeVersion, jaegerLibraryVersion:
				scopeVersion = s
				continue
			case jaegerTraceState:
				sp.TraceState().FromRaw(s)
				continue
			}
		}
		if kv.Key == jaegerError {
			if b, ok := lenientBool(kv.Value); ok {
				errorTag = b
				continue
			}
		}
		if err := putJaegerKV(attrs, kv); err != nil {
			j.problem(off, fmt.Errorf("span %s: tag %q: %w", js.SpanID, kv.Key, err))
		}
		if _, ok := stringListKeys[kv.Key]; ok {
			stringList(attrs, kv.Key)
		}
	}
	switch statusCode {
	case "OK":
		sp.Status().SetCode(ptrace.StatusCodeOk)
	case "ERROR":
		sp.Status().SetCode(ptrace.StatusCodeError)
	case "", "UNSET":
		if errorTag {
			sp.Status().SetCode(ptrace.StatusCodeError)
		}
	default:
		attrs.PutStr(jaegerStatusCode, statusCode)
	}
	sp.Status().SetMessage(statusDesc)
	return scopeName, scopeVersion
}

// logs adds js's logs to sp as span events.
func (j *jaegerReader) logs(sp ptrace.Span, js *jaegerSpan, off int) {
	for _, l := range js.Logs {
		ev := sp.Events().AppendEmpty()
		ts, err := micros(l.Timestamp)
		if err != nil {
			j.problem(off, fmt.Errorf("span %s: log timestamp: %w", js.SpanID, err))
		}
		ev.SetTimestamp(pcommon.Timestamp(ts))
		ev.SetName("log")
		for _, f := range l.Fields {
			if f.Key == "event" {
				if s, ok := jaegerStr(f); ok {
					ev.SetName(s)
					continue
				}
			}
			if err := putJaegerKV(ev.Attributes(), f); err != nil {
				j.problem(off, fmt.Errorf("span %s: log field %q: %w", js.SpanID, f.Key, err))
			}
		}
	}
}

// stringListKeys are the attributes the dialect table reads as a list of
// strings (gen_ai.response.finish_reasons and its dialect spellings).
var stringListKeys = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, f := range semconv.Table() {
		for _, src := range f.Sources {
			if src.Type == semconv.TypeStrings.String() {
				m[src.Key] = struct{}{}
			}
		}
	}
	return m
}()

// stringList turns the tag key of m back into the string array it was:
// the OTLP -> Jaeger translation writes arrays as JSON text
// ("[\"tool_calls\"]"), and the record would otherwise lose its finish
// reasons. Any other string stays as it is.
func stringList(m pcommon.Map, key string) {
	v, ok := m.Get(key)
	if !ok || v.Type() != pcommon.ValueTypeStr || !strings.HasPrefix(v.Str(), "[") {
		return
	}
	var list []any
	if json.Unmarshal([]byte(v.Str()), &list) != nil {
		return
	}
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return // not a list of strings: not what the translation wrote
		}
	}
	s := m.PutEmptySlice(key)
	s.EnsureCapacity(len(list))
	for _, e := range list {
		s.AppendEmpty().SetStr(e.(string))
	}
}

var spanKinds = map[string]ptrace.SpanKind{
	"client":   ptrace.SpanKindClient,
	"server":   ptrace.SpanKindServer,
	"producer": ptrace.SpanKindProducer,
	"consumer": ptrace.SpanKindConsumer,
	"internal": ptrace.SpanKindInternal,
}

// references sets the parent (the first CHILD_OF, else the first
// FOLLOWS_FROM) and turns the other references into links that keep their
// type in opentracing.ref_type, as the collector's Jaeger receiver does.
func (j *jaegerReader) references(sp ptrace.Span, js *jaegerSpan, off int) {
	parent := -1
	for i, ref := range js.References {
		if strings.EqualFold(ref.RefType, "CHILD_OF") {
			parent = i
			break
		}
	}
	if parent < 0 {
		for i, ref := range js.References {
			if strings.EqualFold(ref.RefType, "FOLLOWS_FROM") {
				parent = i
				break
			}
		}
	}
	for i, ref := range js.References {
		tid, err := jaegerTraceID(ref.TraceID)
		if ref.TraceID == "" {
			tid, err = sp.TraceID(), nil
		}
		if err != nil {
			j.problem(off, fmt.Errorf("span %s: reference traceID: %w", js.SpanID, err))
			continue
		}
		sid, err := jaegerSpanID(ref.SpanID)
		if err != nil {
			j.problem(off, fmt.Errorf("span %s: reference spanID: %w", js.SpanID, err))
			continue
		}
		if i == parent && tid == sp.TraceID() {
			sp.SetParentSpanID(sid)
			continue
		}
		l := sp.Links().AppendEmpty()
		l.SetTraceID(tid)
		l.SetSpanID(sid)
		l.Attributes().PutStr(jaegerRefTypeAttr, strings.ToLower(ref.RefType))
	}
	if sp.ParentSpanID().IsEmpty() && js.ParentSpanID != "" && len(js.References) == 0 {
		if sid, err := jaegerSpanID(js.ParentSpanID); err == nil {
			sp.SetParentSpanID(sid)
		} else {
			j.problem(off, fmt.Errorf("span %s: parentSpanID: %w", js.SpanID, err))
		}
	}
}
