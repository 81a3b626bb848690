package main

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// shiftToNow moves every timestamp of td (span starts and ends, event
// times) by one amount, so that the latest of them is now, and returns
// the amount. Times within the run keep their distances; unset (zero)
// times stay unset; links carry no time. A run with no time at all is
// left as it is.
//
// Trace search in Jaeger (and most backends) looks back over the last
// hour by default: a run recorded last month is stored but never found
// until its times are moved.
func shiftToNow(td ptrace.Traces, now time.Time) time.Duration {
	var last pcommon.Timestamp
	each(td, func(ts *pcommon.Timestamp) { last = max(last, *ts) })
	if last == 0 {
		return 0
	}
	delta := now.UnixNano() - int64(last)
	each(td, func(ts *pcommon.Timestamp) { *ts = pcommon.Timestamp(int64(*ts) + delta) })
	return time.Duration(delta)
}

// each calls fn with every set timestamp of td; what fn leaves in it is
// written back.
func each(td ptrace.Traces, fn func(*pcommon.Timestamp)) {
	visit := func(get func() pcommon.Timestamp, put func(pcommon.Timestamp)) {
		ts := get()
		if ts == 0 {
			return
		}
		fn(&ts)
		put(ts)
	}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				visit(sp.StartTimestamp, sp.SetStartTimestamp)
				visit(sp.EndTimestamp, sp.SetEndTimestamp)
				for _, ev := range sp.Events().All() {
					visit(ev.Timestamp, ev.SetTimestamp)
				}
			}
		}
	}
}
