package artifact

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// nested builds a value of n levels of arrays (or maps) around a string.
func nested(n int, maps bool) pcommon.Value {
	v := pcommon.NewValueEmpty()
	cur := v
	for range n {
		if maps {
			cur = cur.SetEmptyMap().PutEmpty("k")
		} else {
			cur = cur.SetEmptySlice().AppendEmpty()
		}
	}
	cur.SetStr("bottom")
	return v
}

// TestValueTooDeep: the limit is GuardOTLP's, in the same costs (an array
// level one, a map two), so a value the bridge passes is one the guard
// would pass in OTLP bytes; a million levels are refused without
// exhausting the stack.
func TestValueTooDeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    pcommon.Value
		want bool
	}{
		{"flat string", pcommon.NewValueStr("x"), false},
		{"arrays at the limit", nested(MaxValueCost/CostArray, false), false},
		{"arrays past the limit", nested(MaxValueCost/CostArray+1, false), true},
		{"maps at the limit", nested(MaxValueCost/CostKVList, true), false},
		{"maps past the limit", nested(MaxValueCost/CostKVList+1, true), true},
		{"a million levels", nested(1_000_000, false), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ValueTooDeep(tc.v))
			m := pcommon.NewMap()
			m.PutStr("flat", "x")
			tc.v.CopyTo(m.PutEmpty("v"))
			assert.Equal(t, tc.want, MapTooDeep(m))
		})
	}
}
