package report

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// recInfo is what the agent attribution needs of each record.
type recInfo struct {
	kind   semconv.Kind
	agent  string // the agent's name, for agent records
	parent pcommon.SpanID
	trace  pcommon.TraceID
	model  *group // the model row, for inference records
	// under is set on a span with an inference among its descendants: an
	// inference so marked is a wrapper, whose usage and cost repeat its
	// children's (see converter.Wrappers).
	under bool
}

type modelKey struct{ provider, model string }

// toolAcc sums a tool's durations in integer nanoseconds, converted to
// milliseconds once, so the report shows no float noise.
type toolAcc struct {
	ToolUsage
	ns int64
}

// Tokens builds the token report of recs. meta supplies the budget; nil,
// or a header without one, gives a report without a budget, unless the
// one artifact's trailer (WithTrailer) has one: a trailer's budget is the
// one the run was judged against (artifact.JudgedBudget). recs are only
// read.
func Tokens(recs []artifact.Record, meta *artifact.Meta, opts ...Option) *TokenReport {
	cfg := newConfig(opts)
	b := builder{
		models: map[modelKey]*group{},
		tools:  map[string]*toolAcc{},
		agents: map[string]*group{},
		prices: cfg.prices,
		top:    cfg.top,
		batch:  cfg.batch,
		rep: &TokenReport{
			ByModel: []ModelUsage{}, ByTool: []ToolUsage{}, ByAgent: []AgentUsage{},
			FinishReasons: map[string]int64{}, Largest: []Response{}, Failures: []Failure{},
			CostUnknownModels: []string{}, Inferences: []InferenceCost{}, UsageLevels: []UsageLevel{},
		},
	}
	if b.prices == nil {
		// The vendored data is tested to load; should it not, costs are
		// unknown rather than the report failing.
		b.prices, _ = pricing.Default()
	}
	if b.prices != nil {
		b.rep.PriceData = "genai-prices " + b.prices.Version
	}
	b.pricer.Table = b.prices
	if b.batch == nil {
		b.batch = converter.NewBatch(recs)
	}
	b.scan(recs)
	b.openAgents(cfg.open)
	b.markWrappers()
	b.attribute(recs)
	var budget *artifact.Budget
	if meta != nil {
		budget = meta.Budget
	}
	if len(cfg.trailers) == 1 {
		// One artifact: the budget its trailer judged against, which a
		// root's budget that came after the header changed.
		budget = artifact.JudgedBudget(budget, cfg.trailers[0].sum)
	}
	b.finish(budget)
	b.trailers(cfg.trailers, budget)
	b.reportedTotal()
	b.usageLevels(recs)
	b.rep.Evaluations = evaluations(recs, cfg.logs)
	return b.rep
}

// group accumulates one row of a breakdown through its own Tally, so that
// rows are computed exactly as totals are.
type group struct {
	name, provider string
	runs           int64
	tally          artifact.Tally
	cost           costAcc
	pricedAs       string
}

// costAcc sums the costs of a row's model calls, as the artifact's tally
// sums its trailer's spent_usd (pricing.Total).
type costAcc struct{ pricing.Total }

func (c *costAcc) add(pc pricing.Cost) { c.Add(pc) }

// cost is the row's Cost: null only when it has model calls and none has
// a known cost, so an unknown price never reads as $0.
func (c *costAcc) cost() Cost { return costOf(c.Total) }

// CostOf is the Cost of a total, as a report's rows give it: for a reader
// that sums a run with its own artifact.Tally (Tally.Cost), such as the
// viewer's runs list, so that it says what the report says.
func CostOf(t pricing.Total) Cost { return costOf(t) }

// costOf is the Cost of a total.
func costOf(t pricing.Total) Cost {
	out := Cost{CostUnknown: t.Unknown, CostFromSpans: t.FromSpan}
	if t.Known > 0 || t.Unknown == 0 {
		usd := t.USD()
		out.CostUSD = &usd
	}
	return out
}

type builder struct {
	rep     *TokenReport
	tally   artifact.Tally
	rd      semconv.Reading
	info    []recInfo
	index   map[artifact.SpanKey]int
	models  map[modelKey]*group
	tools   map[string]*toolAcc
	agents  map[string]*group
	largest []ranked // the largest responses, in order (offer)
	top     int      // how many of largest the report lists (WithTop)
	prices  *pricing.Table
	pricer  pricing.Pricer // prices with prices, the last model remembered
	cost    costAcc
	// truncated counts the values records mark as cut short when written.
	truncated int64
	// stated is the run total the roots state themselves (FinalTotalTokens).
	stated int64
	// failed is, per record, whether it failed (converter.CarryFailures);
	// carried counts the model calls that failed with the span around
	// them, which the tally, reading spans one by one, does not count.
	failed  []bool
	carried int64
	// batch is the records' batch, the caller's (WithBatch) or made
	// here: the failures carry with it.
	batch *converter.Batch
	// inherit is the models of the model calls that name none
	// (converter.InheritModels), once inheritDone.
	inherit     map[int]converter.InheritedModel
	inheritDone bool
	// toolNames is the names of the tool calls that name none
	// (converter.InheritToolNames), once toolsDone.
	toolNames map[int]converter.InheritedName
	toolsDone bool
}

// scan reads every record once: totals, models, tools, finish reasons,
// failures, response sizes, and what the agent attribution needs.
func (b *builder) scan(recs []artifact.Record) {
	b.info = make([]recInfo, len(recs))
	b.failed = make([]bool, len(recs))
	b.index = make(map[artifact.SpanKey]int, len(recs))
	rd := &b.rd
	for i := range recs {
		rec := &recs[i]
		sp := rec.Span
		rec.Read(rd)
		b.tally.AddReading(sp, rd)
		b.statedTotal(sp)
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}
		if _, dup := b.index[k]; !dup {
			b.index[k] = i
		}
		b.info[i] = recInfo{kind: rd.Kind, parent: sp.ParentSpanID(), trace: sp.TraceID()}
		artifact.Truncated(sp, func(string, string, int64) { b.truncated++ })
		failed := artifact.Failed(sp, rd)
		b.failed[i] = failed
		switch rd.Kind {
		case semconv.Inference:
			model, provider := b.inheritedModel(recs, i, rd)
			b.info[i].model = b.inference(sp, rd, model, provider)
		case semconv.Call:
			b.call(sp, rd, failed, b.toolName(recs, i, rd))
		case semconv.Agent:
			name := agentName(sp, rd)
			b.info[i].agent = name
			b.agent(name).runs++
		}
	}
	b.failures(recs)
}

// openAgents adds the agents among open (spans not ended) to the span
// index, after every record's own, for enclosingAgent alone: they are no
// record of the report, so nothing else reads them and no total counts
// them.
func (b *builder) openAgents(open []artifact.Record) {
	rd := &b.rd
	for i := range open {
		sp := open[i].Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}
		if _, ended := b.index[k]; ended {
			continue
		}
		open[i].Read(rd)
		if rd.Kind != semconv.Agent {
			continue
		}
		b.index[k] = len(b.info)
		b.info = append(b.info, recInfo{kind: semconv.Agent, agent: agentName(sp, rd), parent: sp.ParentSpanID(), trace: sp.TraceID()})
	}
}

// inheritedModel is the model and provider of inference record i: its
// own, else the ones its call chain names (converter.InheritModels,
// worked out for the batch when the first call without a model is met).
func (b *builder) inheritedModel(recs []artifact.Record, i int, rd *semconv.Reading) (model, provider string) {
	if m := rd.Model(); m != "" {
		return m, rd.Str(semconv.FieldProvider)
	}
	if !b.inheritDone {
		b.inherit, b.inheritDone = converter.InheritModels(recs), true
	}
	if m, ok := b.inherit[i]; ok {
		return m.Model, m.Provider
	}
	return "", rd.Str(semconv.FieldProvider)
}

// failures lists the records that failed, with the model calls that
// failed with the span around them (converter.CarryFailures): the
// report's errors count each once, as the page's red rows show them.
func (b *builder) failures(recs []artifact.Record) {
	own := slices.Clone(b.failed)
	b.batch.CarryFailures(b.failed)
	rd := &b.rd
	for i, failed := range b.failed {
		if !failed {
			continue
		}
		recs[i].Read(rd)
		f := failure(recs[i].Span, rd)
		if !own[i] {
			b.carried++ // the tally counted the span's own failures only
			f.Message = b.aroundMessage(recs, i, own)
		}
		b.rep.Failures = append(b.rep.Failures, f)
		if IsBudgetStop(rd.Str(semconv.FieldCode)) {
			b.rep.BudgetStopped++
		}
	}
}

// aroundMessage is the status message of the nearest span above record
// i that failed itself (own): the failure a model call failed with.
func (b *builder) aroundMessage(recs []artifact.Record, i int, own []bool) string {
	k := artifact.SpanKey{Trace: b.info[i].trace, Span: b.info[i].parent}
	// The bound stops a malformed trace whose parents form a cycle.
	for range len(recs) {
		j, ok := b.index[k]
		if !ok || k.Span.IsEmpty() {
			break
		}
		if own[j] {
			return recs[j].Span.Status().Message()
		}
		k.Span = b.info[j].parent
	}
	return ""
}

func (b *builder) inference(sp ptrace.Span, rd *semconv.Reading, model, provider string) *group {
	k := modelKey{semconv.NormalizeProvider(provider), model}
	if k.model == "" {
		k.model = Unknown
	}
	g := b.models[k]
	if g == nil {
		g = &group{name: k.model, provider: k.provider}
		b.models[k] = g
	}
	g.tally.AddReading(sp, rd)
	for _, r := range finishReasons(rd) {
		b.rep.FinishReasons[semconv.NormalizeFinishReason(r)]++
	}
	if n, ok := b.outputSize(sp, rd); ok {
		b.offer(sp, Response{Kind: semconv.Inference.String(), Name: sp.Name(), Model: rd.Model(), Bytes: n, Tokens: rd.Usage().Output})
	}
	return g
}

// outputSize is the size of a model call's output as recorded: its output
// field (gen_ai.output.messages or a dialect's one-key output), else, for
// dialects that keep the output elsewhere (flattened per-message keys,
// gen_ai.choice events, log records made events), the output messages
// semconv.Messages reads, in the conventions' JSON shape, so every
// library's calls are ranked on one scale. Reading messages costs a parse,
// done only when the report lists any (WithTop above 0).
func (b *builder) outputSize(sp ptrace.Span, rd *semconv.Reading) (int64, bool) {
	if rd.Has(semconv.FieldOutput) {
		return int64(artifact.ContentSize(rd.Value(semconv.FieldOutput))), true
	}
	if b.top <= 0 {
		return 0, false
	}
	out := semconv.Messages(sp).Output
	if len(out) == 0 {
		return 0, false
	}
	js, err := json.Marshal(out)
	if err != nil {
		return 0, false // a part decoded from JSON always marshals
	}
	return int64(len(js)), true
}

// toolName is the tool call record i ran: the one its keys or span name
// give, else the one the messages of its call give
// (converter.InheritToolNames, worked out for the batch when the first
// call without a name is met).
func (b *builder) toolName(recs []artifact.Record, i int, rd *semconv.Reading) string {
	if n := rd.ToolName(recs[i].Span.Name()); n != "" {
		return n
	}
	if !b.toolsDone {
		b.toolNames, b.toolsDone = converter.InheritToolNames(recs), true
	}
	return b.toolNames[i].Name
}

func (b *builder) call(sp ptrace.Span, rd *semconv.Reading, failed bool, name string) {
	if name == "" {
		name = Unknown
	}
	acc := b.tools[name]
	if acc == nil {
		acc = &toolAcc{ToolUsage: ToolUsage{Tool: name}}
		b.tools[name] = acc
	}
	est := artifact.CallEstimate(rd, sp.Attributes())
	acc.Calls++
	if failed {
		acc.Errors++
	}
	acc.EstimatedTokens += est
	acc.ns += duration(sp)
	if rd.Has(semconv.FieldResult) {
		b.offer(sp, Response{
			Kind: semconv.Call.String(), Name: sp.Name(), Tool: rd.Str(semconv.FieldTool),
			Bytes: int64(artifact.ContentSize(rd.Value(semconv.FieldResult))), Tokens: est,
		})
	}
}

func (b *builder) agent(name string) *group {
	g := b.agents[name]
	if g == nil {
		g = &group{name: name}
		b.agents[name] = g
	}
	return g
}

// markWrappers marks the spans with an inference below them, walking up
// from every inference record once, as converter.Wrappers does, with the
// parents scan already found.
func (b *builder) markWrappers() {
	for i := range b.info {
		if b.info[i].kind != semconv.Inference {
			continue
		}
		k := artifact.SpanKey{Trace: b.info[i].trace, Span: b.info[i].parent}
		// The bound stops a malformed trace whose parents form a cycle.
		for range len(b.info) {
			j, ok := b.index[k]
			if k.Span.IsEmpty() || !ok || b.info[j].under {
				break
			}
			b.info[j].under = true
			k.Span = b.info[j].parent
		}
	}
}

// attribute adds each inference's usage to its nearest ancestor agent,
// found through parent_span_id, or to NoAgent, and prices each model
// call that is not a wrapper.
func (b *builder) attribute(recs []artifact.Record) {
	rd := &b.rd
	for i := range recs {
		if b.info[i].kind != semconv.Inference {
			continue
		}
		rec := &recs[i]
		rec.Read(rd)
		ag := b.agent(b.enclosingAgent(rec.Span))
		ag.tally.AddReading(rec.Span, rd)
		if b.info[i].under {
			continue // a wrapper: its children are priced
		}
		pc := b.pricer.SpanCost(rec.Span, rd, rd.TokenUsage())
		if m, ok := b.inherit[i]; ok && pc.Source == pricing.Unknown && !rd.TokenUsage().IsZero() {
			// A call priced by the model its chain names, as by_model
			// groups it (a span's own cost would have a source).
			pc = b.pricer.UsageCost(m.Provider, m.Model, rec.Span.StartTimestamp().AsTime(), rd.TokenUsage())
		}
		b.cost.add(pc)
		ag.cost.add(pc)
		if g := b.info[i].model; g != nil {
			g.cost.add(pc)
			if pc.Model != nil {
				if g.pricedAs == "" {
					g.pricedAs = pc.Model.ID
				}
			}
		}
		b.rep.Inferences = append(b.rep.Inferences, InferenceCost{
			TraceID: rec.Span.TraceID(), SpanID: rec.Span.SpanID(), USD: pc.USD, Source: pc.Source, PricedAs: pc.Model,
		})
	}
}

func (b *builder) enclosingAgent(sp ptrace.Span) string {
	k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
	// The bound stops a malformed trace whose parents form a cycle.
	for range len(b.info) {
		if k.Span.IsEmpty() {
			break
		}
		i, ok := b.index[k]
		if !ok {
			break
		}
		if b.info[i].kind == semconv.Agent {
			return b.info[i].agent
		}
		k.Span = b.info[i].parent
	}
	return NoAgent
}

// finish fills the totals and the sorted breakdowns.
func (b *builder) finish(budget *artifact.Budget) {
	s := b.tally.Summary(budget)
	r := b.rep
	r.Records = RecordCounts{Call: s.Calls, Inference: s.Inferences, Agent: s.Agents, Span: s.Spans}
	r.Errors = s.Errors + b.carried
	r.Tokens = s.Tokens
	r.Budget = s.Budget

	for _, g := range b.models {
		gs := g.tally.Summary(nil)
		r.ByModel = append(r.ByModel, ModelUsage{Model: g.name, Provider: g.provider, Count: gs.Inferences, Tokens: gs.Tokens,
			Cost: g.cost.cost(), PricedAs: g.pricedAs})
		if g.cost.Unknown > 0 && !slices.Contains(r.CostUnknownModels, g.name) {
			r.CostUnknownModels = append(r.CostUnknownModels, g.name)
		}
	}
	slices.Sort(r.CostUnknownModels)
	r.Cost = b.cost.cost()
	slices.SortFunc(r.ByModel, func(x, y ModelUsage) int {
		return cmp.Or(cmp.Compare(y.Total, x.Total), strings.Compare(x.Model, y.Model), strings.Compare(x.Provider, y.Provider))
	})

	for _, acc := range b.tools {
		u := acc.ToolUsage
		u.DurationMS = float64(acc.ns) / 1e6
		r.ByTool = append(r.ByTool, u)
	}
	slices.SortFunc(r.ByTool, func(x, y ToolUsage) int {
		return cmp.Or(cmp.Compare(y.Calls, x.Calls), strings.Compare(x.Tool, y.Tool))
	})

	for _, g := range b.agents {
		gs := g.tally.Summary(nil)
		r.ByAgent = append(r.ByAgent, AgentUsage{Agent: g.name, Runs: g.runs, Inferences: gs.Inferences, Tokens: gs.Tokens, Cost: g.cost.cost()})
	}
	slices.SortFunc(r.ByAgent, func(x, y AgentUsage) int {
		return cmp.Or(cmp.Compare(y.Total, x.Total), strings.Compare(x.Agent, y.Agent))
	})

	for _, l := range b.largest { // in order, top at most (offer)
		r.Largest = append(r.Largest, l.Response)
	}
}

// agentName is what a report calls an agent: its gen_ai.agent.name, else
// its span name (a Vercel ai.generateText wrapper names no agent).
func agentName(sp ptrace.Span, rd *semconv.Reading) string {
	if n := rd.Str(semconv.FieldAgent); n != "" {
		return n
	}
	if sp.Name() != "" {
		return sp.Name()
	}
	return Unknown
}

// finishReasons returns the reasons a reading carries: a string array, or
// a single string in the dialects that record one.
func finishReasons(rd *semconv.Reading) []string {
	if !rd.Has(semconv.FieldFinishReasons) {
		return nil
	}
	v := rd.Value(semconv.FieldFinishReasons)
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return []string{v.Str()}
	case pcommon.ValueTypeSlice:
		out := make([]string, 0, v.Slice().Len())
		for _, e := range v.Slice().All() {
			out = append(out, e.AsString())
		}
		return out
	}
	return nil
}

// duration is a span's duration in nanoseconds, 0 when its times are
// missing or reversed.
func duration(sp ptrace.Span) int64 {
	start, end := sp.StartTimestamp(), sp.EndTimestamp()
	if start == 0 || end < start {
		return 0
	}
	return int64(end - start)
}

func failure(sp ptrace.Span, rd *semconv.Reading) Failure {
	code := rd.Str(semconv.FieldCode)
	if code == "" {
		code = "error"
	}
	return Failure{
		Kind: rd.Kind.String(), TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(),
		Name: sp.Name(), Code: code, Message: sp.Status().Message(),
	}
}
