package report

import (
	"bytes"
	"sort"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ranked is an entry of the largest responses with its span's ids, which
// order ties.
type ranked struct {
	Response
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// before tells whether a is listed before c: more bytes first, then by
// trace and span id (their hex, as the list shows them, sorts as their
// bytes do).
func (a *ranked) before(c *ranked) bool {
	if a.Bytes != c.Bytes {
		return a.Bytes > c.Bytes
	}
	if k := bytes.Compare(a.trace[:], c.trace[:]); k != 0 {
		return k < 0
	}
	return bytes.Compare(a.span[:], c.span[:]) < 0
}

// offer puts r, the response of sp, among the largest when it is one of
// the top (WithTop): the list holds that many, in order, never every
// response of a run (100,000 of them, each with its ids as text, cost a
// tenth of a page's time: docs/benchmarks.md); ids are written as text
// only for the entries kept.
func (b *builder) offer(sp ptrace.Span, r Response) {
	if b.top <= 0 {
		return
	}
	c := ranked{Response: r, trace: sp.TraceID(), span: sp.SpanID()}
	n := len(b.largest)
	if n == b.top && !c.before(&b.largest[n-1]) {
		return
	}
	i := sort.Search(n, func(i int) bool { return c.before(&b.largest[i]) })
	c.TraceID, c.SpanID = c.trace.String(), c.span.String()
	if n < b.top {
		b.largest = append(b.largest, ranked{})
	}
	l := len(b.largest)
	copy(b.largest[i+1:l], b.largest[i:l-1])
	b.largest[i] = c
}
