package sdkspan

import (
	"math"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// OTLP span flag bits above the W3C trace flags byte (opentelemetry-proto
// SpanFlags). The otel-go exporter always sets HasIsRemote and sets IsRemote
// when the context on the other end (parent for spans, target for links) was
// propagated from another process; keeping the same bits keeps ToTraces
// byte-compatible with what a collector would have received.
const (
	flagContextHasIsRemote uint32 = 0x100
	flagContextIsRemote    uint32 = 0x200
)

// stackGroups is how many span-to-group assignments ToTraces keeps on the
// stack before it allocates; batches from a BatchSpanProcessor are usually
// larger, single-span calls from a SimpleSpanProcessor are not.
const stackGroups = 64

// resourceGroup is one ResourceSpans being built, keyed by the resource pointer
// it was first seen with.
type resourceGroup struct {
	res *resource.Resource
	rs  ptrace.ResourceSpans
	// alias is the index of the group this entry shares its ResourceSpans
	// with, or -1 when the entry owns it. Aliases let later spans that carry
	// another pointer to an equal resource hit the cheap pointer comparison.
	alias int
}

// scopeGroup is one ScopeSpans being built within a resource group.
type scopeGroup struct {
	resource int
	scope    instrumentation.Scope
	ss       ptrace.ScopeSpans
	n        int
}

// ToTraces converts SDK spans to pdata, the model the rest of agenttrace
// consumes, so that in-process spans and spans received over OTLP go through
// the same pipeline.
//
// Spans are grouped into ResourceSpans by resource (the same pointer, or an
// exactly equal attribute set with the same schema URL) and, within a
// resource, into ScopeSpans by instrumentation scope (name, version, schema URL
// and attributes). Groups appear in order of first use and spans keep their
// input order within a scope. Nil spans are skipped.
func ToTraces(spans []sdktrace.ReadOnlySpan) ptrace.Traces {
	td := ptrace.NewTraces()
	if len(spans) == 0 {
		return td
	}
	rss := td.ResourceSpans()

	var (
		resBuf   [4]resourceGroup
		scopeBuf [8]scopeGroup
		idxBuf   [stackGroups]int32
	)
	resources := resBuf[:0]
	scopes := scopeBuf[:0]
	var idx []int32
	if len(spans) <= stackGroups {
		idx = idxBuf[:len(spans)]
	} else {
		idx = make([]int32, len(spans))
	}

	// Pass 1: assign every span to a scope group, creating groups in order of
	// first use, and count the spans per group so pass 2 never grows a slice.
	last := -1
	var lastRes *resource.Resource
	for i, s := range spans {
		if s == nil {
			idx[i] = -1
			continue
		}
		res := s.Resource()
		scope := s.InstrumentationScope()
		if last >= 0 && res == lastRes && sameScope(scopes[last].scope, scope) {
			scopes[last].n++
			idx[i] = int32(last)
			continue
		}

		r := findResource(resources, res)
		if r < 0 {
			owner := findEqualResource(resources, res)
			if owner < 0 {
				rs := rss.AppendEmpty()
				rs.SetSchemaUrl(res.SchemaURL())
				putIterator(rs.Resource().Attributes(), res.Iter())
				resources = append(resources, resourceGroup{res: res, rs: rs, alias: -1})
			} else {
				resources = append(resources, resourceGroup{res: res, rs: resources[owner].rs, alias: owner})
			}
			r = len(resources) - 1
		}
		if resources[r].alias >= 0 {
			r = resources[r].alias
		}

		g := findScope(scopes, r, scope)
		if g < 0 {
			ss := resources[r].rs.ScopeSpans().AppendEmpty()
			ss.SetSchemaUrl(scope.SchemaURL)
			is := ss.Scope()
			is.SetName(scope.Name)
			is.SetVersion(scope.Version)
			putIterator(is.Attributes(), scope.Attributes.Iter())
			scopes = append(scopes, scopeGroup{resource: r, scope: scope, ss: ss})
			g = len(scopes) - 1
		}
		scopes[g].n++
		idx[i] = int32(g)
		last, lastRes = g, res
	}

	for i := range scopes {
		scopes[i].ss.Spans().EnsureCapacity(scopes[i].n)
	}

	// Pass 2: fill the spans.
	for i, s := range spans {
		if idx[i] < 0 {
			continue
		}
		AppendSpan(scopes[idx[i]].ss.Spans().AppendEmpty(), s)
	}
	return td
}

// findResource returns the index of the group first seen with exactly this
// resource pointer, or -1.
func findResource(groups []resourceGroup, res *resource.Resource) int {
	for i := range groups {
		if groups[i].res == res {
			return i
		}
	}
	return -1
}

// findEqualResource returns the index of the owning group whose resource has
// the same attributes (compared exactly, not by hash) and schema URL, or -1.
func findEqualResource(groups []resourceGroup, res *resource.Resource) int {
	for i := range groups {
		g := &groups[i]
		if g.alias < 0 && g.res.SchemaURL() == res.SchemaURL() && g.res.Set().Equals(res.Set()) {
			return i
		}
	}
	return -1
}

// findScope returns the index of the group for scope within resource group r,
// or -1.
func findScope(groups []scopeGroup, r int, scope instrumentation.Scope) int {
	for i := range groups {
		if groups[i].resource == r && sameScope(groups[i].scope, scope) {
			return i
		}
	}
	return -1
}

// sameScope compares scopes by value; attribute sets are compared with Equals
// so that a zero Set and an empty Set count as the same scope.
func sameScope(a, b instrumentation.Scope) bool {
	return a.Name == b.Name && a.Version == b.Version && a.SchemaURL == b.SchemaURL &&
		a.Attributes.Equals(&b.Attributes)
}

// AppendSpan fills dst, which should be empty (as returned by
// ptrace.SpanSlice.AppendEmpty), from s. It exists separately from ToTraces so
// that callers that manage their own ResourceSpans/ScopeSpans, such as the
// bridge processor, can convert one span at a time without regrouping.
//
// Scalar fields of dst are overwritten; attributes, events and links are
// appended.
func AppendSpan(dst ptrace.Span, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	dst.SetTraceID(pcommon.TraceID(sc.TraceID()))
	dst.SetSpanID(pcommon.SpanID(sc.SpanID()))
	setTraceState(dst.TraceState(), sc.TraceState())

	parent := s.Parent()
	// Like the exporter, keep the parent span ID whenever it is set, even if
	// the parent trace ID is not.
	if psid := parent.SpanID(); psid.IsValid() {
		dst.SetParentSpanID(pcommon.SpanID(psid))
	} else {
		dst.SetParentSpanID(pcommon.SpanID{})
	}
	dst.SetFlags(spanFlags(sc.TraceFlags(), parent.IsRemote()))

	dst.SetName(s.Name())
	dst.SetKind(spanKind(s.SpanKind()))
	dst.SetStartTimestamp(timestamp(s.StartTime()))
	dst.SetEndTimestamp(timestamp(s.EndTime()))

	st := s.Status()
	status := dst.Status()
	status.SetCode(statusCode(st.Code))
	status.SetMessage(st.Description)

	PutAttributes(dst.Attributes(), s.Attributes())
	dst.SetDroppedAttributesCount(clampUint32(s.DroppedAttributes()))

	if events := s.Events(); len(events) > 0 {
		des := dst.Events()
		des.EnsureCapacity(des.Len() + len(events))
		for i := range events {
			e := &events[i]
			de := des.AppendEmpty()
			de.SetName(e.Name)
			de.SetTimestamp(timestamp(e.Time))
			PutAttributes(de.Attributes(), e.Attributes)
			de.SetDroppedAttributesCount(clampUint32(e.DroppedAttributeCount))
		}
	}
	dst.SetDroppedEventsCount(clampUint32(s.DroppedEvents()))

	if links := s.Links(); len(links) > 0 {
		dls := dst.Links()
		dls.EnsureCapacity(dls.Len() + len(links))
		for i := range links {
			l := &links[i]
			lsc := l.SpanContext
			dl := dls.AppendEmpty()
			dl.SetTraceID(pcommon.TraceID(lsc.TraceID()))
			dl.SetSpanID(pcommon.SpanID(lsc.SpanID()))
			setTraceState(dl.TraceState(), lsc.TraceState())
			dl.SetFlags(spanFlags(lsc.TraceFlags(), lsc.IsRemote()))
			PutAttributes(dl.Attributes(), l.Attributes)
			dl.SetDroppedAttributesCount(clampUint32(l.DroppedAttributeCount))
		}
	}
	dst.SetDroppedLinksCount(clampUint32(s.DroppedLinks()))
}

// PutAttributes appends SDK attributes to dst, converting every
// attribute.Type to its OTLP AnyValue counterpart. It is exported so callers
// that build resources or scopes themselves convert attributes the same way.
//
// dst has map semantics: a key already present (or repeated in attrs) is
// overwritten in place. The SDK deduplicates span, event and link attributes,
// so this only matters for MAP values built with duplicate keys.
func PutAttributes(dst pcommon.Map, attrs []attribute.KeyValue) {
	if len(attrs) == 0 {
		return
	}
	dst.EnsureCapacity(dst.Len() + len(attrs))
	for _, kv := range attrs {
		putValue(dst, string(kv.Key), kv.Value)
	}
}

// putIterator is PutAttributes for attribute sets (resources and scopes),
// which are read through an iterator to avoid copying them.
func putIterator(dst pcommon.Map, it attribute.Iterator) {
	n := it.Len()
	if n == 0 {
		return
	}
	dst.EnsureCapacity(dst.Len() + n)
	for it.Next() {
		kv := it.Attribute()
		putValue(dst, string(kv.Key), kv.Value)
	}
}

// putValue stores v under k in m without an intermediate pcommon.Value for the
// scalar types, which are by far the most common.
func putValue(m pcommon.Map, k string, v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		m.PutBool(k, v.AsBool())
	case attribute.INT64:
		m.PutInt(k, v.AsInt64())
	case attribute.FLOAT64:
		m.PutDouble(k, v.AsFloat64())
	case attribute.STRING:
		m.PutStr(k, v.AsString())
	default:
		SetValue(m.PutEmpty(k), v)
	}
}

// SetValue sets dst to the OTLP form of v: scalars map to their AnyValue
// counterparts, typed slices and SLICE to arrayValue, BYTESLICE to
// bytesValue, MAP to kvlistValue, and EMPTY (and any type this package does
// not know) to an empty AnyValue. It is exported for callers that convert a
// single SDK value, such as a log body or a nested attribute.
func SetValue(dst pcommon.Value, v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		dst.SetBool(v.AsBool())
	case attribute.INT64:
		dst.SetInt(v.AsInt64())
	case attribute.FLOAT64:
		dst.SetDouble(v.AsFloat64())
	case attribute.STRING:
		dst.SetStr(v.AsString())
	case attribute.BOOLSLICE:
		vals := v.AsBoolSlice()
		s := dst.SetEmptySlice()
		s.EnsureCapacity(len(vals))
		for _, e := range vals {
			s.AppendEmpty().SetBool(e)
		}
	case attribute.INT64SLICE:
		vals := v.AsInt64Slice()
		s := dst.SetEmptySlice()
		s.EnsureCapacity(len(vals))
		for _, e := range vals {
			s.AppendEmpty().SetInt(e)
		}
	case attribute.FLOAT64SLICE:
		vals := v.AsFloat64Slice()
		s := dst.SetEmptySlice()
		s.EnsureCapacity(len(vals))
		for _, e := range vals {
			s.AppendEmpty().SetDouble(e)
		}
	case attribute.STRINGSLICE:
		vals := v.AsStringSlice()
		s := dst.SetEmptySlice()
		s.EnsureCapacity(len(vals))
		for _, e := range vals {
			s.AppendEmpty().SetStr(e)
		}
	case attribute.BYTESLICE:
		dst.SetEmptyBytes().FromRaw(v.AsByteSlice())
	case attribute.SLICE:
		vals := v.AsSlice()
		s := dst.SetEmptySlice()
		s.EnsureCapacity(len(vals))
		for _, e := range vals {
			SetValue(s.AppendEmpty(), e)
		}
	case attribute.MAP:
		PutAttributes(dst.SetEmptyMap(), v.AsMap())
	default:
		// attribute.EMPTY (which INVALID now aliases): an AnyValue with no
		// value set, as the exporter writes it.
		if dst.Type() != pcommon.ValueTypeEmpty {
			_ = dst.FromRaw(nil) // nil is always accepted.
		}
	}
}

// setTraceState copies a W3C tracestate, skipping the string building when it
// is empty (the common case).
func setTraceState(dst pcommon.TraceState, ts trace.TraceState) {
	if ts.Len() == 0 {
		dst.FromRaw("")
		return
	}
	dst.FromRaw(ts.String())
}

// spanFlags builds OTLP span flags exactly as the otel-go exporter does: the
// W3C flags in the low byte, HasIsRemote always, IsRemote when remote.
func spanFlags(tf trace.TraceFlags, remote bool) uint32 {
	f := uint32(tf) | flagContextHasIsRemote
	if remote {
		f |= flagContextIsRemote
	}
	return f
}

// timestamp converts a time to OTLP nanoseconds; the zero time and times
// before the Unix epoch become 0, as in the exporter.
func timestamp(t time.Time) pcommon.Timestamp {
	if t.IsZero() {
		return 0
	}
	n := t.UnixNano()
	if n < 0 {
		return 0
	}
	return pcommon.Timestamp(n)
}

func spanKind(k trace.SpanKind) ptrace.SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return ptrace.SpanKindInternal
	case trace.SpanKindServer:
		return ptrace.SpanKindServer
	case trace.SpanKindClient:
		return ptrace.SpanKindClient
	case trace.SpanKindProducer:
		return ptrace.SpanKindProducer
	case trace.SpanKindConsumer:
		return ptrace.SpanKindConsumer
	default:
		return ptrace.SpanKindUnspecified
	}
}

func statusCode(c codes.Code) ptrace.StatusCode {
	switch c {
	case codes.Ok:
		return ptrace.StatusCodeOk
	case codes.Error:
		return ptrace.StatusCodeError
	default:
		return ptrace.StatusCodeUnset
	}
}

// clampUint32 converts an SDK count to the OTLP uint32, saturating.
func clampUint32(v int) uint32 {
	if v < 0 {
		return 0
	}
	if int64(v) > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(v)
}
