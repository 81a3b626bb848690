package converter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// jsonGuard walks an OTLP/JSON document with the scanner, following
// OTLP's schema down to AnyValue: it counts value nesting where pdata
// recurses, skips everything else with skipValue (whose own limit bounds
// any nesting pdata only skips), and, when strict, refuses members OTLP
// does not define and spans without ids. It validates only: pdata stays
// the one decoder of OTLP/JSON.
//
// Its recursion follows the schema, and value levels stop at
// maxValueCost, so the walk's own stack is bounded.
type jsonGuard struct {
	s      jsonlex.Scanner
	strict bool
	err    error // the first error found by the walk itself, positioned
}

// guardJSON checks an OTLP/JSON document of traces or logs.
func guardJSON(b []byte, logs, strict bool) error {
	sig := sigTraces
	if logs {
		sig = sigLogs
	}
	return runJSONGuard(b, sig, strict)
}

// guardJSONAny checks an OTLP/JSON document of either signal, leniently.
func guardJSONAny(b []byte) error { return runJSONGuard(b, sigAny, false) }

// signal says which top-level members the walk follows.
type signal uint8

const (
	sigTraces signal = 1 << iota
	sigLogs
	sigAny = sigTraces | sigLogs
)

func runJSONGuard(b []byte, sig signal, strict bool) error {
	b = bytes.TrimPrefix(b, bom)
	g := jsonGuard{strict: strict}
	g.s.Reset(b)
	found := g.request(sig)
	g.s.End()
	if g.err != nil {
		return g.err
	}
	if se := (*jsonlex.SyntaxError)(nil); errors.As(g.s.Err, &se) {
		line, col := position(b, se.At)
		return &InputError{Line: line, Column: col, Err: fmt.Errorf("%w: %s", ErrOTLPSyntax, se.Msg)}
	}
	if !found {
		switch {
		case sig == sigLogs:
			return ErrNotOTLPLogs
		case sig == sigTraces:
			// The check that says what the document looks like instead
			// (an artifact line); it passes {} (no spans, said so).
			return CheckOTLPJSON(b)
		}
	}
	return nil
}

// failAt records the walk's first error at offset at and stops the scan.
func (g *jsonGuard) failAt(at int, err error) {
	if g.err == nil {
		line, col := position(g.s.Data, at)
		g.err = &InputError{Line: line, Column: col, Err: err}
	}
	if g.s.Err == nil {
		g.s.Err = err
	}
	g.s.Pos = len(g.s.Data)
}

// object calls member for each member of the object ahead, with the
// key's offset. Anything but an object is skipped for pdata to judge.
func (g *jsonGuard) object(member func(key []byte, at int)) {
	s := &g.s
	if s.Peek() != '{' {
		s.SkipValue()
		return
	}
	s.Pos++
	for first := true; s.Step(&first, '}'); {
		s.WS()
		at := s.Pos
		k := s.Key()
		if s.Err != nil {
			return
		}
		member(k, at)
	}
}

// array calls elem for each element of the array ahead.
func (g *jsonGuard) array(elem func()) {
	s := &g.s
	if s.Peek() != '[' {
		s.SkipValue()
		return
	}
	s.Pos++
	for first := true; s.Step(&first, ']'); {
		elem()
	}
}

// unknown handles a member the schema does not define: an error when
// strict, naming the nearest defined member; skipped otherwise.
func (g *jsonGuard) unknown(k []byte, at int, in string, known []string) {
	if !g.strict {
		g.s.SkipValue()
		return
	}
	msg := fmt.Sprintf("%q in %s", k, in)
	if m := nearest(string(k), known); m != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", m)
	}
	g.failAt(at, fmt.Errorf("%w %s", ErrUnknownField, msg))
}

// nearest returns the known member k differs from only in case or
// underscores, "" if none.
func nearest(k string, known []string) string {
	fold := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	fk := fold(k)
	for _, m := range known {
		if fold(m) == fk {
			return m
		}
	}
	return ""
}

// request walks the top-level object and reports whether it held the
// signal's member. Its other members are skipped even when strict: the
// document's kind is CheckOTLPJSON's to tell.
func (g *jsonGuard) request(sig signal) (found bool) {
	g.object(func(k []byte, _ int) {
		switch string(k) {
		case "resourceSpans", "resource_spans":
			if sig&sigTraces != 0 {
				found = true
				g.array(func() { g.resource(false) })
				return
			}
		case "resourceLogs", "resource_logs":
			if sig&sigLogs != 0 {
				found = true
				g.array(func() { g.resource(true) })
				return
			}
		}
		g.s.SkipValue()
	})
	return found
}

var (
	resSpansKeys   = []string{"resource", "scopeSpans", "schemaUrl"}
	resLogsKeys    = []string{"resource", "scopeLogs", "schemaUrl"}
	resourceKeys   = []string{"attributes", "droppedAttributesCount", "entityRefs"}
	scopeSpansKeys = []string{"scope", "spans", "schemaUrl"}
	scopeLogsKeys  = []string{"scope", "logRecords", "schemaUrl"}
	scopeKeys      = []string{"name", "version", "attributes", "droppedAttributesCount"}
	spanKeys       = []string{"traceId", "spanId", "traceState", "parentSpanId", "flags", "name", "kind",
		"startTimeUnixNano", "endTimeUnixNano", "attributes", "droppedAttributesCount", "events",
		"droppedEventsCount", "links", "droppedLinksCount", "status"}
	eventKeys = []string{"timeUnixNano", "name", "attributes", "droppedAttributesCount"}
	linkKeys  = []string{"traceId", "spanId", "traceState", "attributes", "droppedAttributesCount", "flags"}
	logKeys   = []string{"timeUnixNano", "observedTimeUnixNano", "severityNumber", "severityText", "body",
		"attributes", "droppedAttributesCount", "flags", "traceId", "spanId", "eventName"}
	kvKeys    = []string{"key", "value"}
	anyKeys   = []string{"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"}
	valueKeys = []string{"values"}
)

// resource walks a ResourceSpans or ResourceLogs object.
func (g *jsonGuard) resource(logs bool) {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "resource":
			g.object(func(k []byte, at int) {
				switch string(k) {
				case "attributes":
					g.attributes(0)
				case "droppedAttributesCount", "dropped_attributes_count", "entityRefs", "entity_refs":
					g.s.SkipValue()
				default:
					g.unknown(k, at, "a resource", resourceKeys)
				}
			})
		case "schemaUrl", "schema_url":
			g.s.SkipValue()
		case "scopeSpans", "scope_spans", "deprecatedScopeSpans", "deprecated_scope_spans":
			if logs {
				g.unknown(k, at, "a resourceLogs entry", resLogsKeys)
				return
			}
			g.array(func() { g.scope(false) })
		case "scopeLogs", "scope_logs", "deprecatedScopeLogs", "deprecated_scope_logs":
			if !logs {
				g.unknown(k, at, "a resourceSpans entry", resSpansKeys)
				return
			}
			g.array(func() { g.scope(true) })
		default:
			if logs {
				g.unknown(k, at, "a resourceLogs entry", resLogsKeys)
			} else {
				g.unknown(k, at, "a resourceSpans entry", resSpansKeys)
			}
		}
	})
}

// scope walks a ScopeSpans or ScopeLogs object.
func (g *jsonGuard) scope(logs bool) {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "scope":
			g.object(func(k []byte, at int) {
				switch string(k) {
				case "attributes":
					g.attributes(0)
				case "name", "version", "droppedAttributesCount", "dropped_attributes_count":
					g.s.SkipValue()
				default:
					g.unknown(k, at, "a scope", scopeKeys)
				}
			})
		case "schemaUrl", "schema_url":
			g.s.SkipValue()
		case "spans":
			if logs {
				g.unknown(k, at, "a scopeLogs entry", scopeLogsKeys)
				return
			}
			g.array(g.span)
		case "logRecords", "log_records":
			if !logs {
				g.unknown(k, at, "a scopeSpans entry", scopeSpansKeys)
				return
			}
			g.array(g.logRecord)
		default:
			if logs {
				g.unknown(k, at, "a scopeLogs entry", scopeLogsKeys)
			} else {
				g.unknown(k, at, "a scopeSpans entry", scopeSpansKeys)
			}
		}
	})
}

// span walks a span; when strict, its trace and span ids must be there
// and not all zeros.
func (g *jsonGuard) span() {
	g.s.Peek() // past spaces: the span's '{' is where a missing id is told
	start := g.s.Pos
	traceOK, spanOK := false, false
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "traceId", "trace_id":
			traceOK = g.nonZeroID()
		case "spanId", "span_id":
			spanOK = g.nonZeroID()
		case "attributes":
			g.attributes(0)
		case "events":
			g.array(g.event)
		case "links":
			g.array(g.link)
		case "traceState", "trace_state", "parentSpanId", "parent_span_id", "flags", "name", "kind",
			"startTimeUnixNano", "start_time_unix_nano", "endTimeUnixNano", "end_time_unix_nano",
			"droppedAttributesCount", "dropped_attributes_count", "droppedEventsCount", "dropped_events_count",
			"droppedLinksCount", "dropped_links_count", "status":
			g.s.SkipValue()
		default:
			g.unknown(k, at, "a span", spanKeys)
		}
	})
	if g.strict && g.s.Err == nil {
		switch {
		case !traceOK:
			g.failAt(start, fmt.Errorf("%w: a span's traceId", ErrZeroID))
		case !spanOK:
			g.failAt(start, fmt.Errorf("%w: a span's spanId", ErrZeroID))
		}
	}
}

// nonZeroID reads an id's string and reports whether it has a digit other
// than 0 (whether it is hex at all is pdata's to say).
func (g *jsonGuard) nonZeroID() bool {
	if g.s.Peek() != '"' {
		g.s.SkipValue()
		return false
	}
	for _, c := range g.s.StrBytes() {
		if c != '0' {
			return true
		}
	}
	return false
}

func (g *jsonGuard) event() {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "attributes":
			g.attributes(0)
		case "timeUnixNano", "time_unix_nano", "name", "droppedAttributesCount", "dropped_attributes_count":
			g.s.SkipValue()
		default:
			g.unknown(k, at, "a span event", eventKeys)
		}
	})
}

func (g *jsonGuard) link() {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "attributes":
			g.attributes(0)
		case "traceId", "trace_id", "spanId", "span_id", "traceState", "trace_state",
			"droppedAttributesCount", "dropped_attributes_count", "flags":
			g.s.SkipValue()
		default:
			g.unknown(k, at, "a span link", linkKeys)
		}
	})
}

func (g *jsonGuard) logRecord() {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "body":
			g.anyValue(0)
		case "attributes":
			g.attributes(0)
		case "timeUnixNano", "time_unix_nano", "observedTimeUnixNano", "observed_time_unix_nano",
			"severityNumber", "severity_number", "severityText", "severity_text",
			"droppedAttributesCount", "dropped_attributes_count", "flags", "traceId", "trace_id",
			"spanId", "span_id", "eventName", "event_name":
			g.s.SkipValue()
		default:
			g.unknown(k, at, "a log record", logKeys)
		}
	})
}

// attributes walks a list of KeyValue whose values' containers already
// cost cost.
func (g *jsonGuard) attributes(cost int) {
	g.array(func() { g.attributesOne(cost) })
}

// anyValue walks an AnyValue, counting its containers' cost.
func (g *jsonGuard) anyValue(cost int) {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "arrayValue", "array_value":
			if g.deeper(cost+costArray, at) {
				g.values(func() { g.anyValue(cost + costArray) })
			}
		case "kvlistValue", "kvlist_value":
			if g.deeper(cost+costKVList, at) {
				g.values(func() { g.attributesOne(cost + costKVList) })
			}
		case "stringValue", "string_value", "boolValue", "bool_value", "intValue", "int_value",
			"doubleValue", "double_value", "bytesValue", "bytes_value", "stringValueStrindex", "string_value_strindex":
			g.s.SkipValue()
		default:
			g.unknown(k, at, "a value", anyKeys)
		}
	})
}

// deeper reports whether a container of cost may open, failing the walk
// if not.
func (g *jsonGuard) deeper(cost, at int) bool {
	if cost > maxValueCost {
		g.failAt(at, fmt.Errorf("%w: more than %d levels (the artifact reader's limit)", ErrTooDeep, maxValueCost))
		return false
	}
	return true
}

// values walks an ArrayValue or KeyValueList object: {"values":[...]}.
func (g *jsonGuard) values(elem func()) {
	g.object(func(k []byte, at int) {
		if string(k) == "values" {
			g.array(elem)
			return
		}
		g.unknown(k, at, "a list value", valueKeys)
	})
}

// attributesOne walks one KeyValue of a key-value list.
func (g *jsonGuard) attributesOne(cost int) {
	g.object(func(k []byte, at int) {
		switch string(k) {
		case "value":
			g.anyValue(cost)
		case "key", "keyStrindex", "key_strindex":
			g.s.SkipValue()
		default:
			g.unknown(k, at, "an attribute", kvKeys)
		}
	})
}
