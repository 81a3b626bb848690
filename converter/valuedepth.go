package converter

import "go.opentelemetry.io/collector/pdata/pcommon"

// ValueTooDeep reports whether v nests arrays or key-value lists deeper
// than an artifact line can hold, counted as GuardOTLP counts OTLP bytes
// (an array level one, a key-value list two): the check for values that
// reach the store without passing through OTLP bytes, such as a log
// record the OpenTelemetry Go SDK hands the bridge, whose body may be a
// map nested without limit. It walks v iteratively, so no nesting can
// exhaust the stack, and stops at the first level past the limit.
func ValueTooDeep(v pcommon.Value) bool {
	type level struct {
		v    pcommon.Value
		cost int
	}
	stack := []level{{v, 0}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch top.v.Type() {
		case pcommon.ValueTypeSlice:
			c := top.cost + costArray
			if c > maxValueCost {
				return true
			}
			sl := top.v.Slice()
			for i := range sl.Len() {
				stack = append(stack, level{sl.At(i), c})
			}
		case pcommon.ValueTypeMap:
			c := top.cost + costKVList
			if c > maxValueCost {
				return true
			}
			for _, e := range top.v.Map().All() {
				stack = append(stack, level{e, c})
			}
		}
	}
	return false
}

// MapTooDeep reports whether any value of m is too deep (ValueTooDeep).
func MapTooDeep(m pcommon.Map) bool {
	for _, v := range m.All() {
		if ValueTooDeep(v) {
			return true
		}
	}
	return false
}
