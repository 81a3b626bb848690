package artifact

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

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
			c := top.cost + CostArray
			if c > MaxValueCost {
				return true
			}
			sl := top.v.Slice()
			for i := range sl.Len() {
				stack = append(stack, level{sl.At(i), c})
			}
		case pcommon.ValueTypeMap:
			c := top.cost + CostKVList
			if c > MaxValueCost {
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

// lineOverhead is how deep in its artifact line an attribute value can
// start: a span line's object, its events array, an event object and its
// attrs object (a link's alike). Log bodies, resources and scopes start
// higher.
const lineOverhead = 4

// MaxValueCost is the most a value's containers may cost (see
// ValueTooDeep): with the line's overhead and a tagged innermost value the line
// stays within jsonlex.MaxDepth.
const MaxValueCost = jsonlex.MaxDepth - lineOverhead - 1

// CostArray and CostKVList are the costs of one level of an AnyValue container in the artifact.
const (
	CostArray  = 1
	CostKVList = 2
)
