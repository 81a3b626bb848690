package artifact

import (
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// A Tally accumulates the summary of an artifact as records go by. It is
// the one place counts, tokens, dollars and budget are computed: writers,
// readers, the bridge, the exporter and the CLI all use it, so their
// numbers agree. Dollars follow the tokens' leaf rule, and each model
// call is priced as package pricing prices it (a cost the span reports
// wins; an unknown price adds nothing and is counted as unpriced).
// A Tally is not safe for concurrent use; its zero value is empty.
type Tally struct {
	counts    [semconv.NumKinds]int64
	errors    int64
	usage     semconv.Usage // of inference records only
	inferred  bool          // some inference record reported usage
	estimate  int64         // estimated_tokens of call records
	dropped   int64
	truncated int64
	end       uint64
	nest      semconv.Nesting // the usage rule; tells wrapper inferences from leaves
	cost      pricing.Total   // of leaf inference records, like usage
	// pricer prices model calls. The cost each leaf was counted for is
	// kept with it in nest (semconv.Nesting.Note), so that a wrapper found
	// late gives back its dollars as it gives back its tokens: a tally
	// made per artifact (per trace in a store of runs) allocates nothing
	// for its costs.
	pricer pricing.Pricer
	rd     *semconv.Reading // Add's scratch, made on first use: a Tally is
	// kept per open artifact, and a Reading is some kilobytes
}

// Add counts rec, reading its span.
func (t *Tally) Add(rec *Record) {
	if rec.InFlight {
		return // a start record: its span counts once, when it ends
	}
	if t.rd == nil {
		t.rd = new(semconv.Reading)
	}
	rec.Read(t.rd)
	t.AddReading(rec.Span, t.rd)
}

// AddReading counts a span whose reading the caller already has. Usage
// follows the one rule of [semconv.Nesting] (a subtree's usage is the
// larger of what its root reports and its children's sum, per class), and
// an inference with an inference below it (a wrapper) counts as a span;
// records are expected in the order their spans ended, as artifacts list
// them.
func (t *Tally) AddReading(sp ptrace.Span, rd *semconv.Reading) {
	kind := t.settle(sp, rd)
	t.counts[kind]++
	if Failed(sp, rd) {
		t.errors++
	}
	if kind == semconv.Call {
		t.estimate += CallEstimate(rd, sp.Attributes())
	}
}

// settle applies the usage rule to a span that ended: it adds what the span
// adds to the totals, and its cost, and takes back what an earlier parent
// no longer adds. It returns the kind to count the span as.
func (t *Tally) settle(sp ptrace.Span, rd *semconv.Reading) semconv.Kind {
	u := rd.TokenUsage()
	e := t.nest.End(sp.TraceID(), sp.SpanID(), sp.ParentSpanID(), rd.Kind, u)
	t.takeBack(&e)
	t.AddUsage(e.Counts)
	switch {
	case e.Kind == semconv.Inference:
		t.addCost(sp, rd, e.Counts)
	case !e.Counts.IsZero():
		t.addExcessCost(sp, rd, e.Counts)
	}
	t.end = max(t.end, uint64(sp.EndTimestamp()))
	return e.Kind
}

// takeBack uncounts what an earlier record no longer adds now that sp
// ended below it: its usage beyond the rule, its cost with it, and, when
// it was counted as a model call and turns out to wrap one, the call.
func (t *Tally) takeBack(e *semconv.Ended) {
	if e.Undo == nil {
		return
	}
	if e.Unleaf {
		t.counts[semconv.Inference]--
		t.counts[semconv.Span]++
	}
	t.usage.Sub(*e.Undo)
	if tag := e.UndoNote.Tag; e.Unleaf && tag != excessTag {
		t.cost.SubNanos(e.UndoNote.Value, pricing.Source(tag)) // no longer a model call
	} else {
		t.cost.Nanos -= e.UndoNote.Value // what it still is stays counted
	}
}

// Failed reports whether a span failed. It is the one predicate every
// reader counts errors with (the trailer's and `tokens`' errors, the
// page's card, red rows, "errors only" filter and next-error key, audit):
// its status is Error, or, with the status unset or OK, an exception
// event, an error.type, an HTTP status of 400 or more
// (http.response.status_code, http.status_code) or its own attributes say
// so (a finish reason "error", Langfuse's level ERROR, Genkit's state
// error; see [semconv.Reading.ReportsError]). Each failing span counts
// once, however many of these it shows. A reader of a whole batch asks
// [Failures], which adds the model calls that failed with the span
// around them.
func Failed(sp ptrace.Span, rd *semconv.Reading) bool {
	if sp.Status().Code() == ptrace.StatusCodeError || rd.ReportsError() {
		return true
	}
	evs := sp.Events()
	for i := range evs.Len() {
		if evs.At(i).Name() == "exception" {
			return true
		}
	}
	if sp.Status().Code() == ptrace.StatusCodeOk {
		return false // set OK on purpose: its attributes describe a success
	}
	// One walk, the length of each key tested first: most keys are none
	// of the three and are passed over without a call. Measured on the
	// benchmark batch, this beats three lookups by key in the reading
	// even on spans with only table keys.
	for k, v := range sp.Attributes().All() {
		switch len(k) {
		case len(semconv.ErrorType), len(httpResponseStatus), len(httpStatusLegacy):
			if attrFailed(k, v) {
				return true
			}
		}
	}
	return false
}

// attrFailed reports whether one attribute says its span failed: a
// non-empty error.type, an HTTP status code of 400 or more.
func attrFailed(k string, v pcommon.Value) bool {
	switch k {
	case semconv.ErrorType:
		return v.Type() == pcommon.ValueTypeStr && v.Str() != ""
	case httpResponseStatus, httpStatusLegacy:
		switch v.Type() {
		case pcommon.ValueTypeInt:
			return v.Int() >= 400
		case pcommon.ValueTypeStr:
			n, err := strconv.Atoi(v.Str())
			return err == nil && n >= 400
		}
	}
	return false
}

// The HTTP status attributes: the current conventions', and the one
// before 1.21 that instrumentations still write.
const (
	httpResponseStatus = "http.response.status_code"
	httpStatusLegacy   = "http.status_code"
)

// Drop counts n spans seen but not written, whose usage is unknown (a
// full queue drops spans before anyone reads them).
func (t *Tally) Drop(n int64) { t.dropped += n }

// Truncate counts n attribute values cut short to fit a line; the
// trailer reports them.
func (t *Tally) Truncate(n int64) { t.truncated += n }

// AddDropped counts a span that was read but not written (a record cap):
// it is not a record, but its usage stays in the totals, so budgets and
// token counts are exact whatever was dropped.
func (t *Tally) AddDropped(sp ptrace.Span, rd *semconv.Reading) {
	t.dropped++
	t.settle(sp, rd)
}

// AddUsage adds model usage seen outside any record (a span dropped from a
// full queue whose usage was read before it was dropped).
func (t *Tally) AddUsage(u semconv.Usage) {
	if !u.IsZero() {
		t.inferred = true
	}
	t.usage.Add(u)
}

// Records returns the number of records counted.
func (t *Tally) Records() int64 {
	var n int64
	for _, c := range t.counts {
		n += c
	}
	return n
}

// Spent is what a budget has spent: the input + output tokens of model
// calls, or, when no model call reported usage (a tool-dispatch trace), the
// estimated tokens of tool calls.
func (t *Tally) Spent() int64 {
	if t.inferred {
		return t.usage.Total()
	}
	return t.estimate
}

// Usage returns the summed usage of inference records.
func (t *Tally) Usage() semconv.Usage { return t.usage }

// Summary returns the trailer for what was counted, judged against budget
// (nil for none). FinishedAt is the latest span end, so the same records
// always give the same trailer.
func (t *Tally) Summary(budget *Budget) Summary {
	u := t.usage
	s := Summary{
		Records:    t.Records(),
		Calls:      t.counts[semconv.Call],
		Inferences: t.counts[semconv.Inference],
		Agents:     t.counts[semconv.Agent],
		Spans:      t.counts[semconv.Span],
		Errors:     t.errors,
		Tokens:     TokensOf(u),
		Dropped:    t.dropped,
		Truncated:  t.truncated,
	}
	if t.end > 0 {
		s.FinishedAt = UnixNano(t.end)
	}
	if budget != nil {
		st := budget.Status(t.Spent())
		st.CostBudget = budget.CostStatus(t.cost)
		s.Budget = &st
	}
	return s
}

// TokensOf is usage as a trailer writes it, with its total.
func TokensOf(u semconv.Usage) Tokens {
	return Tokens{
		Input: u.Input, Output: u.Output, CacheRead: u.CacheRead,
		CacheCreation: u.CacheCreation, Reasoning: u.Reasoning, Total: u.Total(),
	}
}

// ContentSize is the size in bytes of a JSON-valued attribute: the
// string's length, or for a structured value the length of its typed
// encoding in the artifact (so a reader in any language can recount it).
func ContentSize(v pcommon.Value) int {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return len(v.Str())
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		return len(appendValue(nil, v))
	}
	return 0
}

// CallEstimate is the estimated_tokens of a tool call: the estimate a
// tool-dispatch record carried, else its result's size in bytes / 4
// (rounded up), the usual rule of thumb for what a result adds to a model's
// context. It is kept with rd (semconv.Reading.SetCallEstimate): the
// encoder writes it and the tally sums it, one working out for both.
func CallEstimate(rd *semconv.Reading, attrs pcommon.Map) int64 {
	if n, ok := rd.CallEstimate(attrs); ok {
		return n
	}
	n := callEstimate(rd, attrs)
	rd.SetCallEstimate(attrs, n)
	return n
}

func callEstimate(rd *semconv.Reading, attrs pcommon.Map) int64 {
	if v, ok := rd.Lookup(attrs, semconv.EstimatedTokens); ok && v.Type() == pcommon.ValueTypeInt {
		return v.Int()
	}
	if !rd.Has(semconv.FieldResult) {
		return 0
	}
	if n, ok := truncatedSize(rd, attrs, rd.Source(semconv.FieldResult)); ok {
		return (n + 3) / 4 // a result cut short to fit a line counts whole
	}
	return int64(ContentSize(rd.Value(semconv.FieldResult))+3) / 4
}

var zeroTime time.Time
