package converter_test

import (
	"math"
	"math/rand/v2"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// gen makes random traces that cover everything the lossless promise
// names: ids, parents, names, kinds, nanosecond timestamps, status codes and
// messages, every attribute type (string, bool, int, double incl. NaN/Inf,
// bytes, arrays, maps, empty), JSON-valued attributes, events, links, trace
// state, flags, dropped counts, several resources and scopes. Attribute keys
// are drawn partly from the GenAI table with random types, so the promotion
// rules meet values they must leave alone as well as ones they take.
type gen struct {
	r    *rand.Rand
	keys []string
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), keys: append(semconv.KnownKeys(), semconv.BudgetTokens, semconv.BudgetUSD, semconv.BudgetWarnThreshold, semconv.Redacted)}
}

func (g *gen) traces() ptrace.Traces {
	td := ptrace.NewTraces()
	for range 1 + g.r.IntN(3) {
		rs := td.ResourceSpans().AppendEmpty()
		g.attrs(rs.Resource().Attributes(), 4)
		if g.r.IntN(4) == 0 {
			rs.Resource().SetDroppedAttributesCount(g.r.Uint32())
		}
		if g.r.IntN(3) == 0 {
			rs.SetSchemaUrl("https://opentelemetry.io/schemas/1." + strconv.Itoa(g.r.IntN(40)) + ".0")
		}
		for range 1 + g.r.IntN(3) {
			ss := rs.ScopeSpans().AppendEmpty()
			if g.r.IntN(5) > 0 {
				ss.Scope().SetName(g.str())
			}
			if g.r.IntN(2) == 0 {
				ss.Scope().SetVersion(g.str())
			}
			if g.r.IntN(3) == 0 {
				g.attrs(ss.Scope().Attributes(), 3)
			}
			if g.r.IntN(5) == 0 {
				ss.Scope().SetDroppedAttributesCount(g.r.Uint32N(100))
			}
			if g.r.IntN(4) == 0 {
				ss.SetSchemaUrl(g.str())
			}
			for range 1 + g.r.IntN(6) {
				g.span(ss.Spans().AppendEmpty())
			}
		}
	}
	return td
}

func (g *gen) span(sp ptrace.Span) {
	var tid pcommon.TraceID
	var sid, pid pcommon.SpanID
	g.fill(tid[:])
	g.fill(sid[:])
	sp.SetTraceID(tid)
	sp.SetSpanID(sid)
	if g.r.IntN(3) > 0 {
		g.fill(pid[:])
		sp.SetParentSpanID(pid)
	}
	sp.SetName(g.str())
	sp.SetKind(ptrace.SpanKind(g.r.IntN(6)))
	start := g.r.Uint64N(1 << 62)
	if g.r.IntN(10) == 0 {
		start = 0
	}
	sp.SetStartTimestamp(pcommon.Timestamp(start))
	sp.SetEndTimestamp(pcommon.Timestamp(start + g.r.Uint64N(1e12)))
	switch g.r.IntN(4) {
	case 0:
		sp.Status().SetCode(ptrace.StatusCodeError)
		if g.r.IntN(2) == 0 {
			sp.Attributes().PutStr(semconv.ErrorType, []string{"error", "TimeoutError", "500", g.str()}[g.r.IntN(4)])
		}
	case 1:
		sp.Status().SetCode(ptrace.StatusCodeOk)
	}
	if g.r.IntN(3) == 0 {
		sp.Status().SetMessage(g.str())
	}
	g.attrs(sp.Attributes(), 12)
	for range g.r.IntN(3) {
		ev := sp.Events().AppendEmpty()
		ev.SetName(g.str())
		ev.SetTimestamp(pcommon.Timestamp(start + g.r.Uint64N(1e9)))
		g.attrs(ev.Attributes(), 3)
		if g.r.IntN(4) == 0 {
			ev.SetDroppedAttributesCount(g.r.Uint32N(9))
		}
	}
	for range g.r.IntN(3) {
		l := sp.Links().AppendEmpty()
		var lt pcommon.TraceID
		var ls pcommon.SpanID
		g.fill(lt[:])
		g.fill(ls[:])
		l.SetTraceID(lt)
		l.SetSpanID(ls)
		if g.r.IntN(2) == 0 {
			l.TraceState().FromRaw("vendor=" + strconv.Itoa(g.r.IntN(1000)))
		}
		if g.r.IntN(2) == 0 {
			l.SetFlags(g.r.Uint32())
		}
		g.attrs(l.Attributes(), 3)
		if g.r.IntN(4) == 0 {
			l.SetDroppedAttributesCount(g.r.Uint32N(9))
		}
	}
	if g.r.IntN(3) == 0 {
		sp.TraceState().FromRaw("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
	}
	if g.r.IntN(2) == 0 {
		sp.SetFlags(g.r.Uint32())
	}
	if g.r.IntN(4) == 0 {
		sp.SetDroppedAttributesCount(g.r.Uint32N(50))
		sp.SetDroppedEventsCount(g.r.Uint32N(50))
		sp.SetDroppedLinksCount(g.r.Uint32N(50))
	}
}

func (g *gen) fill(b []byte) {
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	if g.r.IntN(50) == 0 {
		clear(b) // an all-zero id is still an id to round-trip
	}
}

var samples = []string{
	"", "plain", "quote \" and backslash \\", "tab\tnewline\nreturn\r", "ünïcødé ✓ 日本語 🚀",
	"\u2028line sep\u2029", "\x00\x01\x1f control", "<script>alert(1)</script>",
	`{"role":"user","parts":[{"type":"text","content":"hi"}]}`,
	`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"f","arguments":{"x":1.0,"y":[true,null]}}]}]`,
	`{ "spaced" : [ 1 , 2 ] }`, " {\"lead\":1}", "{\"trail\":1} ", "{\"nl\":\n1}", `{"bad":}`, `"just a string"`, `42`, `null`, `[]`, `{}`,
	`{"esc":"\u00e9\n"}`, "@bytes", "@map",
}

func (g *gen) str() string {
	if g.r.IntN(3) == 0 {
		return samples[g.r.IntN(len(samples))]
	}
	b := make([]byte, g.r.IntN(12))
	for i := range b {
		b[i] = byte('a' + g.r.IntN(26))
	}
	return string(b)
}

func (g *gen) key() string {
	switch g.r.IntN(4) {
	case 0, 1:
		return g.keys[g.r.IntN(len(g.keys))]
	case 2:
		return []string{"@bytes", "@map", "@double", "@x"}[g.r.IntN(4)]
	}
	return g.str()
}

func (g *gen) attrs(m pcommon.Map, n int) {
	for range g.r.IntN(n + 1) {
		g.value(m.PutEmpty(g.key()), 0)
	}
}

func (g *gen) value(v pcommon.Value, depth int) {
	choices := 9
	if depth > 2 {
		choices = 7
	}
	switch g.r.IntN(choices) {
	case 0:
		v.SetStr(g.str())
	case 1:
		v.SetBool(g.r.IntN(2) == 0)
	case 2:
		ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, g.r.Int64()}
		v.SetInt(ints[g.r.IntN(len(ints))])
	case 3:
		fs := []float64{0, math.Copysign(0, -1), 1, 0.1, -2.5e-300, 1e21, math.MaxFloat64, math.SmallestNonzeroFloat64,
			math.NaN(), math.Inf(1), math.Inf(-1), g.r.NormFloat64()}
		v.SetDouble(fs[g.r.IntN(len(fs))])
	case 4:
		b := make([]byte, g.r.IntN(9))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}
		v.SetEmptyBytes().FromRaw(b)
	case 5:
		// empty value: leave as is
	case 6:
		v.SetStr(samples[8+g.r.IntN(len(samples)-8)])
	case 7:
		sl := v.SetEmptySlice()
		for range g.r.IntN(4) {
			g.value(sl.AppendEmpty(), depth+1)
		}
	case 8:
		m := v.SetEmptyMap()
		for range g.r.IntN(4) {
			g.value(m.PutEmpty(g.key()), depth+1)
		}
	}
}
