package artifact

import (
	"bytes"
	"cmp"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// Records returns every span of td as a record, in artifact order (see
// [SortRecords]). The records share td's memory.
func Records(td ptrace.Traces) []Record {
	return AppendRecords(make([]Record, 0, td.SpanCount()), td)
}

// AppendRecords is [Records] appended to recs, for a caller that reuses
// one slice batch after batch (the collector exporter).
func AppendRecords(recs []Record, td ptrace.Traces) []Record {
	start := len(recs)
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				recs = append(recs, Record{
					Span: sp, Resource: rs.Resource(), ResourceSchemaURL: rs.SchemaUrl(),
					Scope: ss.Scope(), ScopeSchemaURL: ss.SchemaUrl(),
				})
			}
		}
	}
	SortRecords(recs[start:])
	return recs
}

// SortRecords puts records in the order an artifact lists them: by end
// time (the order spans end in), ties broken by start time and ids, so the
// order is the same however the spans were grouped or read.
func SortRecords(recs []Record) {
	slices.SortStableFunc(recs, func(a, b Record) int {
		x, y := a.Span, b.Span
		if c := cmp.Compare(x.EndTimestamp(), y.EndTimestamp()); c != 0 {
			return c
		}
		if c := cmp.Compare(x.StartTimestamp(), y.StartTimestamp()); c != 0 {
			return c
		}
		xt, yt := x.TraceID(), y.TraceID()
		if c := bytes.Compare(xt[:], yt[:]); c != 0 {
			return c
		}
		xs, ys := x.SpanID(), y.SpanID()
		return bytes.Compare(xs[:], ys[:])
	})
}

type originKey struct {
	res       pcommon.Resource
	resSchema string
	scope     pcommon.InstrumentationScope
	scSchema  string
}

// ToTraces builds OTLP from records, one ResourceSpans per distinct
// resource and one ScopeSpans per distinct scope under it, in first-seen
// order. The spans are moved, not copied: recs' spans are empty afterwards.
func ToTraces(recs []Record) ptrace.Traces {
	b := newTracesBuilder()
	for i := range recs {
		b.add(&recs[i])
	}
	return b.td
}

// tracesBuilder groups records into a ptrace.Traces as they come.
type tracesBuilder struct {
	td     ptrace.Traces
	groups []originGroup
	byKey  map[originKey]ptrace.SpanSlice
	resOf  map[pcommon.Resource]ptrace.ResourceSpans
}

func newTracesBuilder() *tracesBuilder {
	return &tracesBuilder{
		td:    ptrace.NewTraces(),
		byKey: make(map[originKey]ptrace.SpanSlice),
		resOf: make(map[pcommon.Resource]ptrace.ResourceSpans),
	}
}

// add moves r's span into the group of its resource and scope.
func (b *tracesBuilder) add(r *Record) {
	k := originKey{r.Resource, r.ResourceSchemaURL, r.Scope, r.ScopeSchemaURL}
	spans, ok := b.byKey[k]
	if !ok {
		spans, ok = findEqual(b.groups, k)
	}
	if !ok {
		rs, ok := b.resOf[r.Resource]
		if !ok || rs.SchemaUrl() != r.ResourceSchemaURL {
			rs = b.td.ResourceSpans().AppendEmpty()
			r.Resource.CopyTo(rs.Resource())
			rs.SetSchemaUrl(r.ResourceSchemaURL)
			b.resOf[r.Resource] = rs
		}
		ss := rs.ScopeSpans().AppendEmpty()
		r.Scope.CopyTo(ss.Scope())
		ss.SetSchemaUrl(r.ScopeSchemaURL)
		spans = ss.Spans()
		b.groups = append(b.groups, originGroup{k, spans})
	}
	b.byKey[k] = spans
	r.Span.MoveTo(spans.AppendEmpty())
}

type originGroup struct {
	key   originKey
	spans ptrace.SpanSlice
}

// findEqual finds a group whose resource and scope equal k's by value, so
// that records decoded with separate copies of one resource share a
// ResourceSpans.
func findEqual(groups []originGroup, k originKey) (ptrace.SpanSlice, bool) {
	for _, g := range groups {
		if g.key.resSchema == k.resSchema && g.key.scSchema == k.scSchema &&
			sameResource(g.key.res, k.res) && sameScope(g.key.scope, k.scope) {
			return g.spans, true
		}
	}
	return ptrace.SpanSlice{}, false
}

// MetaFor returns the header for an artifact holding recs: it starts at
// the earliest span start; names the trace, the conversation and the
// service when there is one of each; takes its resource and scope from the
// first record; and picks up a budget and the redacted flag from the
// resource attributes agenttrace writes them to.
func MetaFor(recs []Record) *Meta {
	m := NewMeta(time.Time{})
	if len(recs) == 0 {
		return m
	}
	var rd semconv.Reading
	first := recs[0]
	m.Resource, m.ResourceSchemaURL = first.Resource, first.ResourceSchemaURL
	m.Scope, m.ScopeSchemaURL = first.Scope, first.ScopeSchemaURL
	start := uint64(first.Span.StartTimestamp())
	trace := first.Span.TraceID()
	oneTrace := true
	conv, oneConv := "", true
	for i := range recs {
		sp := recs[i].Span
		start = min(start, uint64(sp.StartTimestamp()))
		if sp.TraceID() != trace {
			oneTrace = false
		}
		recs[i].Read(&rd)
		if c := rd.Str(semconv.FieldConversationID); c != "" {
			if conv == "" {
				conv = c
			} else if c != conv {
				oneConv = false
			}
		}
	}
	m.StartedAt = UnixNano(uint64(start))
	if oneTrace {
		m.TraceID = trace.String()
	}
	if oneConv {
		m.ConversationID = conv
	}
	fillService(m)
	return m
}

// BudgetAttrs returns the budgets an attribute map (a resource's, a root
// span's) sets: agenttrace.budget.tokens, an integer above 0, and
// agenttrace.budget.usd, a finite number of dollars above 0 (a double, or
// an integer); each 0 when the map sets none. Writers and validate take a
// trace's budgets through it, so they read the same attribute the same way.
func BudgetAttrs(attrs pcommon.Map) (tokens int64, usd float64) {
	if v, ok := attrs.Get(semconv.BudgetTokens); ok && v.Type() == pcommon.ValueTypeInt && v.Int() > 0 {
		tokens = v.Int()
	}
	if v, ok := attrs.Get(semconv.BudgetUSD); ok {
		switch v.Type() {
		case pcommon.ValueTypeDouble:
			usd = v.Double()
		case pcommon.ValueTypeInt:
			usd = float64(v.Int())
		}
		if !(usd > 0 && ValidUSD(usd)) {
			usd = 0
		}
	}
	return tokens, usd
}

// fillService sets the header's service, and its budget and redaction
// from the resource attributes that carry them (see [Meta]).
func fillService(m *Meta) {
	attrs := m.Resource.Attributes()
	if v, ok := attrs.Get("service.name"); ok {
		m.Service = v.AsString()
	}
	if m.Budget == nil {
		var b Budget
		has := false
		if v, ok := attrs.Get(semconv.BudgetTokens); ok && v.Type() == pcommon.ValueTypeInt {
			b.Tokens, has = v.Int(), true
		}
		if _, usd := BudgetAttrs(attrs); usd > 0 {
			// (tokens are read apart: a budget of 0 tokens is a header's
			// budget object too, and must come back from OTLP.)
			b.USD, has = usd, true
		}
		if has {
			if w, ok := attrs.Get(semconv.BudgetWarnThreshold); ok && w.Type() == pcommon.ValueTypeDouble {
				b.WarnThreshold = w.Double()
			}
			m.Budget = &b
		}
	}
	if v, ok := attrs.Get(semconv.Redacted); ok && v.Type() == pcommon.ValueTypeBool && v.Bool() {
		m.Redacted = true
	}
}

// headerOwned reports whether the header's resource attribute k (with
// value v) is said by the header's budget or redacted field, and so is left
// out of the header's resource when written and put back when read.
func headerOwned(m *Meta, k string, v pcommon.Value) bool {
	switch k {
	case semconv.BudgetTokens:
		return m.Budget != nil && v.Type() == pcommon.ValueTypeInt && v.Int() == m.Budget.Tokens
	case semconv.BudgetUSD:
		return m.Budget != nil && m.Budget.USD > 0 && v.Type() == pcommon.ValueTypeDouble && v.Double() == m.Budget.USD
	case semconv.BudgetWarnThreshold:
		return m.Budget != nil && v.Type() == pcommon.ValueTypeDouble && v.Double() == m.Budget.Threshold()
	case semconv.Redacted:
		return m.Redacted && v.Type() == pcommon.ValueTypeBool && v.Bool()
	}
	return false
}

// putHeaderOwned writes the header's budget and redaction into its
// resource, where OTLP carries them, unless the resource says otherwise.
func putHeaderOwned(m *Meta) {
	attrs := m.Resource.Attributes()
	if b := m.Budget; b != nil {
		// A cost budget alone says no token budget: no tokens attribute.
		if _, ok := attrs.Get(semconv.BudgetTokens); !ok && (b.Tokens != 0 || !(b.USD > 0)) {
			attrs.PutInt(semconv.BudgetTokens, b.Tokens)
		}
		if _, ok := attrs.Get(semconv.BudgetUSD); !ok && b.USD > 0 {
			attrs.PutDouble(semconv.BudgetUSD, b.USD)
		}
		if _, ok := attrs.Get(semconv.BudgetWarnThreshold); !ok {
			attrs.PutDouble(semconv.BudgetWarnThreshold, b.Threshold())
		}
	}
	if m.Redacted {
		if _, ok := attrs.Get(semconv.Redacted); !ok {
			attrs.PutBool(semconv.Redacted, true)
		}
	}
}
