// Package ptracecmp compares traces the way the lossless-conversion
// promise is stated: every span with its resource and scope, every field and
// attribute with its type, bit for bit (NaN equals NaN), ignoring the order
// of spans and of attributes within a map, which OTLP does not define.
package ptracecmp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Spans returns one canonical line per span of td, sorted. Two traces hold
// the same spans exactly when their Spans are equal, and a test diff of
// two slices points at the span and field that differ.
func Spans(td ptrace.Traces) []string {
	var out []string
	for _, rs := range td.ResourceSpans().All() {
		res := fmt.Sprintf("resource{schema=%q dropped=%d attrs=%s}", rs.SchemaUrl(),
			rs.Resource().DroppedAttributesCount(), Map(rs.Resource().Attributes()))
		for _, ss := range rs.ScopeSpans().All() {
			sc := ss.Scope()
			scope := fmt.Sprintf("scope{schema=%q name=%q version=%q dropped=%d attrs=%s}", ss.SchemaUrl(),
				sc.Name(), sc.Version(), sc.DroppedAttributesCount(), Map(sc.Attributes()))
			for _, sp := range ss.Spans().All() {
				out = append(out, Span(sp)+" "+res+" "+scope)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Span returns the canonical form of one span.
func Span(sp ptrace.Span) string {
	var b strings.Builder
	fmt.Fprintf(&b, "span{trace=%s id=%s parent=%s name=%q kind=%d start=%d end=%d status=%d/%q state=%q flags=%d dropped=%d/%d/%d attrs=%s events=[",
		sp.TraceID(), sp.SpanID(), sp.ParentSpanID(), sp.Name(), sp.Kind(), sp.StartTimestamp(), sp.EndTimestamp(),
		sp.Status().Code(), sp.Status().Message(), sp.TraceState().AsRaw(), sp.Flags(),
		sp.DroppedAttributesCount(), sp.DroppedEventsCount(), sp.DroppedLinksCount(), Map(sp.Attributes()))
	for _, ev := range sp.Events().All() {
		fmt.Fprintf(&b, "{%q t=%d dropped=%d attrs=%s}", ev.Name(), ev.Timestamp(), ev.DroppedAttributesCount(), Map(ev.Attributes()))
	}
	b.WriteString("] links=[")
	for _, l := range sp.Links().All() {
		fmt.Fprintf(&b, "{%s/%s state=%q flags=%d dropped=%d attrs=%s}", l.TraceID(), l.SpanID(), l.TraceState().AsRaw(),
			l.Flags(), l.DroppedAttributesCount(), Map(l.Attributes()))
	}
	b.WriteString("]}")
	return b.String()
}

// Map returns the canonical form of an attribute map: keys sorted, values
// typed.
func Map(m pcommon.Map) string {
	kv := make([]string, 0, m.Len())
	for k, v := range m.All() {
		kv = append(kv, fmt.Sprintf("%q:%s", k, Value(v)))
	}
	slices.Sort(kv)
	return "{" + strings.Join(kv, ",") + "}"
}

// Value returns the canonical, typed form of one value.
func Value(v pcommon.Value) string {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return fmt.Sprintf("str(%q)", v.Str())
	case pcommon.ValueTypeInt:
		return fmt.Sprintf("int(%d)", v.Int())
	case pcommon.ValueTypeDouble:
		return fmt.Sprintf("double(%#x)", math.Float64bits(v.Double()))
	case pcommon.ValueTypeBool:
		return fmt.Sprintf("bool(%t)", v.Bool())
	case pcommon.ValueTypeBytes:
		return fmt.Sprintf("bytes(%x)", v.Bytes().AsRaw())
	case pcommon.ValueTypeSlice:
		parts := make([]string, 0, v.Slice().Len())
		for _, e := range v.Slice().All() {
			parts = append(parts, Value(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case pcommon.ValueTypeMap:
		return "map" + Map(v.Map())
	}
	return "empty"
}
