package store

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// HeaderOptions are what a header takes from its writer rather than from
// its records.
type HeaderOptions struct {
	// Budget is the writer's budget (WithBudget, budget.tokens, the input
	// header of convert): used when neither a root span nor the resource
	// names one.
	Budget *artifact.Budget
	// Redacted tells that the writer redacted named keys.
	Redacted bool
	// SecretsScanned tells that the writer scanned every string for
	// secrets (package redact) before writing: the CLI does not scan such
	// an artifact again.
	SecretsScanned bool
	// Whole tells that the records are all the artifact will ever hold
	// (convert): the header then names the trace, and the conversation,
	// when every record shares it.
	Whole bool
	// RootTokens and RootUSD are a local root span's budget known before
	// the span itself is written (the SDK processor reads it when the root
	// starts; see Store.RootBudget): used when recs hold no local root that
	// names one, so a trace's header does not depend on whether its root
	// ended in the first batch written (FsyncTurn writes before it does).
	RootTokens int64
	RootUSD    float64
}

// Header is the one header policy: the header of an artifact of key k (a
// KindRun key for a single artifact) whose first records are recs.
//
//   - started_at is the earliest start of recs; resource and scope are the
//     first record's, copied (the header outlives the batch);
//   - trace_id names the trace of a KindTrace artifact, or of a whole
//     artifact whose records are one trace; conversation_id names the
//     conversation of a KindConversation artifact, or the one conversation
//     the records of a whole artifact name (a trace's artifact does not:
//     written live, its first records may not name it yet); an artifact
//     that may hold several (an attribute's, a live run's) names neither;
//   - the budget is, first found: a local root span's
//     agenttrace.budget.tokens, the resource's, the writer's (opts.Budget);
//     and the cost budget the same way from agenttrace.budget.usd;
//   - redacted when the resource says so or opts.Redacted.
func Header(k Key, recs []artifact.Record, opts HeaderOptions) *artifact.Meta {
	return header(k, recs, opts, nil)
}

// header is Header, its resource and scope shared with other headers
// through origins (nil: copied).
func header(k Key, recs []artifact.Record, opts HeaderOptions, origins *originCache) *artifact.Meta {
	return headerWithID(k, "", recs, opts, origins)
}

// headerWithID is header with the trace id of a trace's key already in hex
// (the artifact's file name has it): "" when not at hand.
func headerWithID(k Key, traceID string, recs []artifact.Record, opts HeaderOptions, origins *originCache) *artifact.Meta {
	// Only a whole run's header names a conversation it reads off the
	// records: any other artifact's header need not read them (a third of
	// the cost of starting a trace's artifact).
	h := headerBuilder{skipConv: k.Kind != KindRun || !opts.Whole, origins: origins, traceID: traceID}
	for i := range recs {
		h.add(&recs[i])
	}
	return h.meta(k, opts)
}

// headerBuilder gathers a header's facts record by record, so that a
// streamed artifact gets the same header as one written whole.
type headerBuilder struct {
	n         int
	res       pcommon.Resource
	resSchema string
	scope     pcommon.InstrumentationScope
	scSchema  string
	start     uint64
	trace     pcommon.TraceID
	oneTrace  bool
	conv      string
	oneConv   bool
	budget    int64            // a local root's
	usd       float64          // a local root's cost budget
	skipConv  bool             // the header names no conversation read off records
	rd        *semconv.Reading // made on first use: some kilobytes to zero
	origins   *originCache     // shares resource and scope copies; nil: copy
	traceID   string           // a trace's key in hex, when the caller has it ("": made)
}

// metaBudget is a header and the budget it points to, allocated together.
type metaBudget struct {
	m artifact.Meta
	b artifact.Budget
}

func (h *headerBuilder) add(rec *artifact.Record) {
	sp := rec.Span
	if h.n == 0 {
		h.res, h.scope = h.origins.copyOf(rec.Resource, rec.Scope)
		h.resSchema, h.scSchema = rec.ResourceSchemaURL, rec.ScopeSchemaURL
		h.start = uint64(sp.StartTimestamp())
		h.trace, h.oneTrace, h.oneConv = sp.TraceID(), true, true
	}
	h.n++
	h.start = min(h.start, uint64(sp.StartTimestamp()))
	if sp.TraceID() != h.trace {
		h.oneTrace = false
	}
	if !h.skipConv {
		if h.rd == nil {
			h.rd = new(semconv.Reading)
		}
		rec.Read(h.rd)
		if c := h.rd.Str(semconv.FieldConversationID); c != "" {
			if h.conv == "" {
				h.conv = c
			} else if c != h.conv {
				h.oneConv = false
			}
		}
	}
	if (h.budget == 0 || h.usd == 0) && artifact.IsLocalRoot(sp) {
		b, u := artifact.BudgetAttrs(sp.Attributes())
		if h.budget == 0 {
			h.budget = b
		}
		if h.usd == 0 {
			h.usd = u
		}
	}
}

func (h *headerBuilder) meta(k Key, opts HeaderOptions) *artifact.Meta {
	// The header and its budget in one allocation, and a resource and
	// scope made only for a header with no records (artifact.NewMeta
	// makes both, for the records' to replace): a new artifact per trace
	// makes a header per trace.
	mb := new(metaBudget)
	m := &mb.m
	m.Version, m.Producer = artifact.Version, artifact.Producer
	if h.n > 0 {
		m.StartedAt = artifact.UnixNano(h.start)
		m.Resource, m.ResourceSchemaURL = h.res, h.resSchema
		m.Scope, m.ScopeSchemaURL = h.scope, h.scSchema
	} else {
		m.StartedAt = time.Now().UTC()
		m.Resource, m.Scope = pcommon.NewResource(), pcommon.NewInstrumentationScope()
	}
	conv := ""
	if h.oneConv {
		conv = h.conv
	}
	switch k.Kind {
	case KindTrace:
		m.TraceID = h.traceID
		if m.TraceID == "" {
			m.TraceID = k.Trace.String()
		}
	case KindConversation:
		m.ConversationID = k.Value
	case KindRun:
		if opts.Whole && h.n > 0 {
			if h.oneTrace {
				m.TraceID = h.trace.String()
			}
			m.ConversationID = conv
		}
	}
	attrs := m.Resource.Attributes()
	if v, ok := attrs.Get("service.name"); ok {
		m.Service = v.AsString()
	}
	budget, usd := h.budget, h.usd
	if budget == 0 {
		budget = opts.RootTokens
	}
	if usd == 0 {
		usd = opts.RootUSD
	}
	if budgetInto(&mb.b, budget, usd, attrs, opts.Budget) {
		m.Budget = &mb.b
	}
	if v, ok := attrs.Get(semconv.Redacted); ok && v.Type() == pcommon.ValueTypeBool && v.Bool() {
		m.Redacted = true
	}
	m.Redacted = m.Redacted || opts.Redacted
	m.SecretsScanned = opts.SecretsScanned
	return m
}

// warnOf is the warn threshold the resource names, else the writer's.
func warnOf(attrs pcommon.Map, def *artifact.Budget) float64 {
	if w, ok := attrs.Get(semconv.BudgetWarnThreshold); ok && w.Type() == pcommon.ValueTypeDouble {
		return w.Double()
	}
	if def != nil {
		return def.WarnThreshold
	}
	return 0
}

// budgetInto sets *b to the one budget rule's budget: the token budget
// and the cost budget each from the first that sets it: a local root
// span's attribute (rootTokens, rootUSD; 0 for none), the resource's
// (attrs), the writer's (def). The warn threshold goes with the token
// budget (the resource's, else the writer's). It reports false when there
// is neither budget.
func budgetInto(b *artifact.Budget, rootTokens int64, rootUSD float64, attrs pcommon.Map, def *artifact.Budget) bool {
	resTokens, resUSD := artifact.BudgetAttrs(attrs)
	switch res := resTokens; {
	case rootTokens > 0:
		b.Tokens, b.WarnThreshold = rootTokens, warnOf(attrs, def)
	case res > 0:
		b.Tokens, b.WarnThreshold = res, warnOf(attrs, nil)
	case def != nil && def.Tokens > 0:
		b.Tokens, b.WarnThreshold = def.Tokens, def.WarnThreshold
	default:
		b.WarnThreshold = warnOf(attrs, def)
	}
	switch res := resUSD; {
	case rootUSD > 0:
		b.USD = rootUSD
	case res > 0:
		b.USD = res
	case def != nil && def.USD > 0:
		b.USD = def.USD
	}
	return b.Tokens != 0 || b.USD != 0
}

// rootAttrs are the budgets a local root span's attributes set (0: none),
// which hold from the trailer on when the root arrives after the header
// was written.
type rootAttrs struct {
	tokens int64
	usd    float64
}

// read takes the budgets attrs set, keeping the others.
func (r *rootAttrs) read(attrs pcommon.Map) {
	b, u := artifact.BudgetAttrs(attrs)
	if b > 0 {
		r.tokens = b
	}
	if u > 0 {
		r.usd = u
	}
}
