package store

import (
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// originCache shares the copies of a resource and a scope that headers
// keep: every artifact a batch starts (one per trace) has a header with the
// batch's resource and scope, and copying them is a dozen allocations per
// artifact. The copies are never changed once made, so any number of
// headers, on any goroutine, can hold the same ones.
type originCache struct {
	last atomic.Pointer[origins]
}

type origins struct {
	res   pcommon.Resource
	scope pcommon.InstrumentationScope
}

// copyOf returns copies of res and scope that outlive their batch: the last
// copies made, when they are equal, else new ones. A nil cache always
// copies.
func (c *originCache) copyOf(res pcommon.Resource, scope pcommon.InstrumentationScope) (pcommon.Resource, pcommon.InstrumentationScope) {
	if c != nil {
		if o := c.last.Load(); o != nil && sameOrigin(o, res, scope) {
			return o.res, o.scope
		}
	}
	o := &origins{pcommon.NewResource(), pcommon.NewInstrumentationScope()}
	res.CopyTo(o.res)
	scope.CopyTo(o.scope)
	if c != nil {
		c.last.Store(o)
	}
	return o.res, o.scope
}

func sameOrigin(o *origins, res pcommon.Resource, scope pcommon.InstrumentationScope) bool {
	return o.res.DroppedAttributesCount() == res.DroppedAttributesCount() &&
		o.scope.Name() == scope.Name() && o.scope.Version() == scope.Version() &&
		o.scope.DroppedAttributesCount() == scope.DroppedAttributesCount() &&
		o.res.Attributes().Equal(res.Attributes()) && o.scope.Attributes().Equal(scope.Attributes())
}
