package store

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// dropTable counts spans dropped before the store saw them (a full queue
// in front of it), by trace, with the usage read from them as they
// dropped, until the artifact of their trace takes them into its trailer.
type dropTable struct {
	size atomic.Int64 // entries in m: the write path looks without the lock
	mu   sync.Mutex
	m    map[pcommon.TraceID]*dropCount
}

type dropCount struct {
	n     int64
	usage dropUsage
}

// dropUsage is what dropped spans spent: their model usage and its cost.
type dropUsage struct {
	usage semconv.Usage
	cost  pricing.Total
}

// Add counts o in u as well.
func (u *dropUsage) Add(o dropUsage) {
	u.usage.Add(o.usage)
	u.cost.Merge(o.cost)
}

// into adds u to a trailer's tally.
func (u *dropUsage) into(t *artifact.Tally) {
	t.AddUsage(u.usage)
	t.AddCost(u.cost)
}

func (d *dropTable) add(tid pcommon.TraceID, n int64, u dropUsage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[pcommon.TraceID]*dropCount)
	}
	c := d.m[tid]
	if c == nil {
		c = &dropCount{}
		d.m[tid] = c
		d.size.Add(1)
	}
	c.n += n
	c.usage.Add(u)
}

// take removes and returns the drops of the given traces.
func (d *dropTable) take(traces map[pcommon.TraceID]struct{}) (int64, dropUsage) {
	if d.size.Load() == 0 {
		return 0, dropUsage{}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	var u dropUsage
	if len(d.m) == 0 {
		return 0, u
	}
	if len(traces) < len(d.m) {
		for tid := range traces {
			if c, ok := d.m[tid]; ok {
				n += c.n
				u.Add(c.usage)
				delete(d.m, tid)
				d.size.Add(-1)
			}
		}
		return n, u
	}
	for tid, c := range d.m {
		if _, ok := traces[tid]; ok {
			n += c.n
			u.Add(c.usage)
			delete(d.m, tid)
			d.size.Add(-1)
		}
	}
	return n, u
}

// takeOf removes and returns the drops of a's traces. Most writes find no
// drops at all, and then a trace's artifact makes no set of its one trace.
func (d *dropTable) takeOf(a *runFile) (int64, dropUsage) {
	if d.size.Load() == 0 {
		return 0, dropUsage{}
	}
	return d.take(a.traceSet())
}

// takeAll removes and returns every drop, for the one artifact of a run.
func (d *dropTable) takeAll() (int64, dropUsage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var n int64
	var u dropUsage
	for _, c := range d.m {
		n += c.n
		u.Add(c.usage)
	}
	clear(d.m)
	d.size.Store(0)
	return n, u
}

func (d *dropTable) traces() []pcommon.TraceID {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]pcommon.TraceID, 0, len(d.m))
	for tid := range d.m {
		out = append(out, tid)
	}
	return out
}

// giveBack returns drops taken for a's trailer when that trailer could
// not be written, so a later one counts them.
func (d *dropTable) giveBack(a *runFile, n int64, u dropUsage) {
	var tid pcommon.TraceID
	for t := range a.traceSet() {
		tid = t
		break
	}
	d.add(tid, n, u)
}
