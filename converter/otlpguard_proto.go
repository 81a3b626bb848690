package converter

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// msgKind is an OTLP message the protobuf guard walks into: only the ones
// on a path from an export request down to AnyValue. Every other field is
// skipped by its length, as pdata skips what it does not nest into.
type msgKind uint8

const (
	kindSkip      msgKind = iota
	kindTracesReq         // ExportTraceServiceRequest, TracesData
	kindLogsReq           // ExportLogsServiceRequest, LogsData
	kindResSpans
	kindResLogs
	kindResource
	kindScopeSpans
	kindScopeLogs
	kindScope
	kindSpan
	kindEvent
	kindLink
	kindLog
	kindKV
	kindAny
	kindArray
	kindKVList
	// Metrics: agenttrace reads none, but the collector's otlp receiver
	// decodes them with the same recursive AnyValue code.
	kindMetricsReq
	kindResMetrics
	kindScopeMetrics
	kindMetric
	kindNumberPoints  // Gauge, Sum
	kindHistPoints    // Histogram
	kindExpHistPoints // ExponentialHistogram
	kindSummaryPoints // Summary
	kindNumberDP
	kindHistDP
	kindExpHistDP
	kindSummaryDP
	kindExemplar
)

// metricsChild is protoChild for the metrics messages.
func metricsChild(k msgKind, num protowire.Number) msgKind {
	switch k {
	case kindMetricsReq:
		if num == 1 {
			return kindResMetrics
		}
	case kindResMetrics:
		switch num {
		case 1:
			return kindResource
		case 2, 1000:
			return kindScopeMetrics
		}
	case kindScopeMetrics:
		switch num {
		case 1:
			return kindScope
		case 2:
			return kindMetric
		}
	case kindMetric:
		switch num {
		case 5, 7:
			return kindNumberPoints
		case 9:
			return kindHistPoints
		case 10:
			return kindExpHistPoints
		case 11:
			return kindSummaryPoints
		case 12: // metadata
			return kindKV
		}
	case kindNumberPoints, kindHistPoints, kindExpHistPoints, kindSummaryPoints:
		if num == 1 {
			return kindNumberDP + (k - kindNumberPoints) // the point kinds are in the same order
		}
	case kindNumberDP, kindSummaryDP, kindExemplar:
		switch {
		case num == 7:
			return kindKV
		case num == 5 && k == kindNumberDP:
			return kindExemplar
		}
	case kindHistDP:
		switch num {
		case 9:
			return kindKV
		case 8:
			return kindExemplar
		}
	case kindExpHistDP:
		switch num {
		case 1:
			return kindKV
		case 11:
			return kindExemplar
		}
	}
	return kindSkip
}

// protoChild returns the kind of message field num of a kind-k message
// holds, kindSkip for a field that holds none on the way to a value. The
// numbers are opentelemetry-proto's (checked against pdata's generated
// UnmarshalProto).
func protoChild(k msgKind, num protowire.Number) msgKind {
	switch k {
	case kindTracesReq:
		if num == 1 {
			return kindResSpans
		}
	case kindLogsReq:
		if num == 1 {
			return kindResLogs
		}
	case kindResSpans, kindResLogs:
		switch num {
		case 1:
			return kindResource
		case 2, 1000: // scope_spans / scope_logs, and the deprecated field
			if k == kindResSpans {
				return kindScopeSpans
			}
			return kindScopeLogs
		}
	case kindResource:
		if num == 1 {
			return kindKV
		}
	case kindScopeSpans, kindScopeLogs:
		switch num {
		case 1:
			return kindScope
		case 2:
			if k == kindScopeSpans {
				return kindSpan
			}
			return kindLog
		}
	case kindScope, kindEvent:
		if num == 3 {
			return kindKV
		}
	case kindSpan:
		switch num {
		case 9:
			return kindKV
		case 11:
			return kindEvent
		case 13:
			return kindLink
		}
	case kindLink:
		if num == 5 {
			return kindKV
		}
	case kindLog:
		switch num {
		case 5:
			return kindAny
		case 6:
			return kindKV
		}
	case kindKV:
		if num == 2 {
			return kindAny
		}
	case kindAny:
		switch num {
		case 5:
			return kindArray
		case 6:
			return kindKVList
		}
	case kindArray:
		if num == 1 {
			return kindAny
		}
	case kindKVList:
		if num == 1 {
			return kindKV
		}
	default:
		return metricsChild(k, num)
	}
	return kindSkip
}

// protoFrame is an open message: where it ends and what its values'
// containers cost so far.
type protoFrame struct {
	end  int
	cost int32
	kind msgKind
}

// maxProtoFrames bounds the walk's stack: the request's levels down to a
// KeyValue (at most nine, a metric's exemplar), then per cost unit at most two frames (AnyValue, ArrayValue)
// or, for a key-value list's two, three (AnyValue, KeyValueList,
// KeyValue).
const maxProtoFrames = 12 + 2*maxValueCost + 2

// guardProto walks b as a message of kind root without recursion, and
// refuses a value that nests too deep. The stack lives in the call's
// frame, so a valid request costs no allocation.
func guardProto(b []byte, root msgKind) error {
	var stack [maxProtoFrames]protoFrame
	stack[0] = protoFrame{end: len(b), kind: root}
	top := 0
	i := 0
	for {
		for i >= stack[top].end {
			if i > stack[top].end {
				return fmt.Errorf("%w: field overruns its message at offset %d", ErrBadProto, stack[top].end)
			}
			if top == 0 {
				return nil
			}
			top--
		}
		num, typ, n := protowire.ConsumeTag(b[i:stack[top].end])
		if n < 0 {
			return fmt.Errorf("%w: bad tag at offset %d", ErrBadProto, i)
		}
		i += n
		child := kindSkip
		if typ == protowire.BytesType {
			child = protoChild(stack[top].kind, num)
		}
		if child == kindSkip {
			m := protowire.ConsumeFieldValue(num, typ, b[i:stack[top].end])
			if m < 0 {
				return fmt.Errorf("%w: bad field %d at offset %d", ErrBadProto, num, i)
			}
			i += m
			continue
		}
		l, m := protowire.ConsumeVarint(b[i:stack[top].end])
		if m < 0 || l > uint64(stack[top].end-i-m) {
			return fmt.Errorf("%w: bad length of field %d at offset %d", ErrBadProto, num, i)
		}
		i += m
		cost := stack[top].cost
		switch child {
		case kindArray:
			cost += costArray
		case kindKVList:
			cost += costKVList
		}
		if cost > maxValueCost {
			return fmt.Errorf("%w: more than %d levels at offset %d (the artifact reader's limit)", ErrTooDeep, maxValueCost, i)
		}
		if l == 0 {
			continue // an empty message opens nothing
		}
		if top+1 >= len(stack) { // cannot happen within maxValueCost; never index out of range on input
			return fmt.Errorf("%w: at offset %d", ErrTooDeep, i)
		}
		top++
		stack[top] = protoFrame{end: i + int(l), cost: cost, kind: child}
	}
}
