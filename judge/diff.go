package judge

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Limits of a diff report, unless told otherwise.
const (
	// DefaultMaxChanges is how many argument and result changes a report
	// lists for one diverged pair of calls.
	DefaultMaxChanges = 20
	// DefaultMaxValueBytes is how much of each changed value a report
	// shows, in bytes of JSON text.
	DefaultMaxValueBytes = 200
	// DefaultMaxReportBytes bounds the size of a report's JSON form; the
	// divergences that do not fit are counted but not listed.
	DefaultMaxReportBytes = 64 << 10
)

// DiffOption configures [Diff].
type DiffOption interface{ applyDiff(*diffConfig) }

type diffConfig struct {
	maxChanges, maxValue, maxReport int
	redactedA, redactedB            bool
	trailerA, trailerB              *artifact.Summary
}

type diffOptionFunc func(*diffConfig)

func (f diffOptionFunc) applyDiff(c *diffConfig) { f(c) }

// WithMaxChanges sets how many changes a report lists per diverged pair
// of calls; n <= 0 lists none (the total is still counted).
func WithMaxChanges(n int) DiffOption {
	return diffOptionFunc(func(c *diffConfig) { c.maxChanges = max(n, 0) })
}

// WithMaxValueBytes sets how many bytes of each changed value a report
// shows; longer values are cut short and end in "…". n <= 0 keeps the
// default.
func WithMaxValueBytes(n int) DiffOption {
	return diffOptionFunc(func(c *diffConfig) {
		if n > 0 {
			c.maxValue = n
		}
	})
}

// WithMaxReportBytes bounds the size of the report's JSON form. The
// divergences that do not fit are counted but not listed, and the report
// says it was truncated. n <= 0 keeps the default.
func WithMaxReportBytes(n int) DiffOption {
	return diffOptionFunc(func(c *diffConfig) {
		if n > 0 {
			c.maxReport = n
		}
	})
}

// WithRedaction tells Diff that run A, run B, or both were redacted (an
// artifact header's redacted flag). Diff also sees redaction on its own
// when a record's resource carries agenttrace.redacted = true, which is
// where OTLP and the artifact reader put it.
func WithRedaction(a, b bool) DiffOption {
	return diffOptionFunc(func(c *diffConfig) {
		c.redactedA = c.redactedA || a
		c.redactedB = c.redactedB || b
	})
}

// WithTrailers gives Diff each run's summary trailer (nil for none). When
// a trailer accounts for records its file does not hold (a producer
// dropped them), the run's summary reports the trailer's tokens and how
// many records are missing: their calls cannot be aligned.
func WithTrailers(a, b *artifact.Summary) DiffOption {
	return diffOptionFunc(func(c *diffConfig) { c.trailerA, c.trailerB = a, b })
}

func newDiffConfig(opts []DiffOption) diffConfig {
	c := diffConfig{maxChanges: DefaultMaxChanges, maxValue: DefaultMaxValueBytes, maxReport: DefaultMaxReportBytes}
	for _, o := range opts {
		o.applyDiff(&c)
	}
	return c
}

// diffCall is one call record, read.
type diffCall struct {
	out                CallOutcome
	start, end         uint64
	args, result       pcommon.Value
	hasArgs, hasResult bool
	line               int // the record's line in its file, 0 when unknown
	// redacted: the arguments or result hold a redaction placeholder, so
	// this call's payload is not compared (the run's other calls are).
	redacted bool

	key, canon string            // alignment: tool, canonical arguments
	tree       any               // the arguments as a JSON tree
	leafs      map[string]string // made on first use
}

func (c *diffCall) alignKey() string  { return c.key }
func (c *diffCall) alignArgs() string { return c.canon }
func (c *diffCall) alignOutcome() string {
	if c.out.OK {
		return "ok"
	}
	return "failed " + c.out.Code
}

func (c *diffCall) alignLeaves() map[string]string {
	if c.leafs == nil {
		c.leafs = leaves(c.tree)
	}
	return c.leafs
}

// Diff judges whether run b diverged from run a. Their call records,
// taken in order of start time, are aligned as a person would line them
// up: by least-cost sequence alignment on (kind, tool, arguments), so an
// inserted retry, a dropped call, a reordered pair and a changed argument
// each come out as one finding. Aligned pairs are judged on their stable
// outcome (tool, success, error code); arguments and results never make a
// divergence, and for each finding the report lists how they differ,
// unless either run was redacted. a and b are only read.
func Diff(a, b []artifact.Record, opts ...DiffOption) *DiffReport {
	cfg := newDiffConfig(opts)
	ca, redA := diffCalls(a, nil)
	cb, redB := diffCalls(b, nil)
	rep := &DiffReport{
		FirstDivergence: -1,
		Redacted:        Redaction{A: cfg.redactedA || redA || anyRedacted(ca), B: cfg.redactedB || redB || anyRedacted(cb)},
		Divergences:     []Divergence{},
		Runs:            RunPair{A: summarize(a, len(ca), cfg.trailerA), B: summarize(b, len(cb), cfg.trailerB)},
	}
	// A run whose header or resource says it was redacted is not compared
	// at all; a placeholder in one call's payload keeps only that call out.
	rep.PayloadsCompared = !cfg.redactedA && !redA && !cfg.redactedB && !redB
	rep.Counts = DiffCounts{CallsA: len(ca), CallsB: len(cb)}

	found := judgeAlignment(ca, cb, align(ca, cb), rep.PayloadsCompared)
	budget, full := cfg.maxReport-reportOverhead, false
	for _, f := range found {
		d := f.finding(ca, cb, cfg, rep.PayloadsCompared)
		switch d.Kind {
		case Outcome:
			rep.Counts.Diverged++
		case InsertedCall:
			rep.Counts.Inserted++
		case RemovedCall:
			rep.Counts.Removed++
		case ReorderedCall:
			rep.Counts.Reordered++
		case ArgsChangedCall:
			rep.Counts.ArgsChanged++
		}
		if d.Kind.Diverges() && rep.FirstDivergence < 0 {
			rep.FirstDivergence = d.Index
		}
		if !full {
			budget, full = rep.list(d, budget)
		}
	}
	rep.Counts.Matched = len(ca) - rep.Counts.Diverged - rep.Counts.Removed - rep.Counts.Reordered
	rep.Diverged = rep.FirstDivergence >= 0
	return rep
}

// found is one finding of an alignment, before it is rendered.
type found struct {
	kind    DivergenceKind
	index   int // position in A, as Divergence.Index
	a, b    int // the calls, -1 when absent
	retryOf int // -1 when not a retry
	fields  []string
}

// judgeAlignment turns an alignment into findings: pairs whose outcome or
// arguments differ, calls only one run made, and among those, the ones
// both made in another order.
func judgeAlignment(ca, cb []diffCall, steps []step, compareArgs bool) []found {
	var out []found
	ai := 0
	var onlyA, onlyB []int // indexes into out
	for _, s := range steps {
		switch {
		case s.a >= 0 && s.b >= 0:
			x, y := &ca[s.a], &cb[s.b]
			if f := outcomeFields(&x.out, &y.out); len(f) > 0 {
				out = append(out, found{kind: Outcome, index: s.a, a: s.a, b: s.b, retryOf: -1, fields: f})
			} else if compareArgs && !x.redacted && !y.redacted && x.canon != y.canon {
				out = append(out, found{kind: ArgsChangedCall, index: s.a, a: s.a, b: s.b, retryOf: -1})
			}
			ai = s.a + 1
		case s.a >= 0:
			onlyA = append(onlyA, len(out))
			out = append(out, found{kind: RemovedCall, index: s.a, a: s.a, b: -1, retryOf: retryOf(ca, s.a)})
			ai = s.a + 1
		default:
			onlyB = append(onlyB, len(out))
			out = append(out, found{kind: InsertedCall, index: ai, a: -1, b: s.b, retryOf: retryOf(cb, s.b)})
		}
	}
	// A call only A made and one only B made with the same tool and
	// arguments (or, failing that, similar ones) are one call, moved.
	taken := map[int]bool{}
	for _, pass := range []func(x, y *diffCall) bool{
		func(x, y *diffCall) bool { return x.canon == y.canon },
		func(x, y *diffCall) bool { return dissimilar(x.alignLeaves(), y.alignLeaves()) < 50 },
	} {
		for _, ia := range onlyA {
			if out[ia].kind != RemovedCall {
				continue
			}
			x := &ca[out[ia].a]
			for _, ib := range onlyB {
				if taken[ib] {
					continue
				}
				if y := &cb[out[ib].b]; x.key == y.key && pass(x, y) {
					taken[ib] = true
					out[ia] = found{kind: ReorderedCall, index: out[ia].a, a: out[ia].a, b: out[ib].b, retryOf: -1,
						fields: outcomeFields(&x.out, &y.out)}
					break
				}
			}
		}
	}
	kept := out[:0]
	for i, f := range out {
		if !taken[i] {
			kept = append(kept, f)
		}
	}
	return kept
}

// retryOf returns the position of another attempt at calls[i]: the
// nearest call of the same tool before it, else after it, when its
// arguments are the same; -1 when there is none.
func retryOf(calls []diffCall, i int) int {
	for _, step := range []int{-1, 1} {
		for j := i + step; j >= 0 && j < len(calls); j += step {
			if calls[j].key == calls[i].key {
				if calls[j].canon == calls[i].canon {
					return j
				}
				break
			}
		}
	}
	return -1
}

// finding renders f as a Divergence, with its changes.
func (f found) finding(ca, cb []diffCall, cfg diffConfig, compare bool) Divergence {
	d := Divergence{Index: f.index, Kind: f.kind, Fields: f.fields}
	var x, y *diffCall
	if f.a >= 0 {
		x = &ca[f.a]
		d.A, d.AIndex = &x.out, ptr(f.a)
	}
	if f.b >= 0 {
		y = &cb[f.b]
		d.B, d.BIndex = &y.out, ptr(f.b)
	}
	if f.retryOf >= 0 {
		d.RetryOf = ptr(f.retryOf)
	}
	if x == nil || y == nil || !compare || x.redacted || y.redacted {
		return d
	}
	// The result holds the error that explains a changed outcome: it is
	// walked first, and the arguments get what room it leaves, so a long
	// argument diff cannot push it past the cap. Listed args first.
	res := changeList{max: cfg.maxChanges, maxValue: cfg.maxValue}
	if len(f.fields) > 0 {
		res.payload("result", x.result, x.hasResult, y.result, y.hasResult)
	}
	cl := changeList{max: cfg.maxChanges - len(res.out), maxValue: cfg.maxValue}
	cl.payload("args", x.args, x.hasArgs, y.args, y.hasArgs)
	cl.out, cl.total = append(cl.out, res.out...), cl.total+res.total
	d.Changes, d.ChangesTotal = cl.out, cl.total
	d.ChangesTruncated = cl.total > len(cl.out)
	return d
}

func ptr(i int) *int { return &i }

// summarize sums up one run's records, with its trailer (nil for none).
func summarize(recs []artifact.Record, calls int, trailer *artifact.Summary) RunSummary {
	s := RunSummary{Calls: calls}
	var (
		t          artifact.Tally
		rd         semconv.Reading
		cost       float64
		costed     bool
		start, end uint64
	)
	for i := range recs {
		rec := &recs[i]
		rec.Read(&rd)
		t.AddReading(rec.Span, &rd)
		if rd.Kind == semconv.Inference {
			s.ModelCalls++
		}
		if rd.Has(semconv.FieldCost) {
			if v := rd.Value(semconv.FieldCost); v.Type() == pcommon.ValueTypeDouble {
				cost, costed = cost+v.Double(), true
			} else if v.Type() == pcommon.ValueTypeInt {
				cost, costed = cost+float64(v.Int()), true
			}
		}
		st, en := uint64(rec.Span.StartTimestamp()), uint64(rec.Span.EndTimestamp())
		if st > 0 && (start == 0 || st < start) {
			start = st
		}
		end = max(end, en)
	}
	s.Tokens = t.Summary(nil).Tokens
	if costed {
		s.Cost = &cost
	}
	if end > start && start > 0 {
		s.DurationMS = int64(end-start) / int64(time.Millisecond)
	}
	if trailer != nil {
		s.Budget = trailer.Budget
		if missing := trailer.Dropped + max(trailer.Records-t.Records(), 0); missing > 0 {
			s.Dropped = missing
			if trailer.Tokens.Total >= s.Tokens.Total {
				s.Tokens, s.TokensFromTrailer = trailer.Tokens, true
			}
		}
	}
	return s
}

// reportOverhead is a generous size of a report's JSON without its
// divergences.
const reportOverhead = 512

// list appends d when it fits in budget bytes, else d without its
// changes (marking the report truncated). It returns what is left of the
// budget, and whether the report is full: d did not fit even without
// changes, so it and the divergences after it are not listed.
func (r *DiffReport) list(d Divergence, budget int) (int, bool) {
	n := jsonSize(d) + 1
	if n > budget && len(d.Changes) > 0 {
		d.Changes, d.ChangesTruncated = nil, true
		r.Truncated = true
		n = jsonSize(d) + 1
	}
	if n > budget {
		r.Truncated = true
		return budget, true
	}
	r.Divergences = append(r.Divergences, d)
	return budget - n, false
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// outcomeFields names the outcome fields in which x and y differ.
func outcomeFields(x, y *CallOutcome) []string {
	var f []string
	if x.Tool != y.Tool {
		f = append(f, "tool")
	}
	if x.OK != y.OK {
		f = append(f, "ok")
	}
	if x.Code != y.Code {
		f = append(f, "code")
	}
	return f
}

// diffCalls returns the call records of recs in start order, and whether
// any record's resource says the run was redacted. lines, when not nil,
// holds each record's line in its file.
func diffCalls(recs []artifact.Record, lines []int) ([]diffCall, bool) {
	var (
		rd       semconv.Reading
		calls    []diffCall
		redacted bool
	)
	for i := range recs {
		rec := &recs[i]
		redacted = redacted || isRedacted(rec)
		rec.Read(&rd)
		if rd.Kind != semconv.Call {
			continue
		}
		sp := rec.Span
		failed := artifact.Failed(sp, &rd)
		c := diffCall{
			out: CallOutcome{
				Tool: rd.ToolName(sp.Name()), OK: !failed, Code: errorCode(&rd, failed),
				TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(),
				ToolCallID: rd.Str(semconv.FieldToolCallID),
				StartedAt:  sp.StartTimestamp().AsTime().UTC(),
			},
			start: uint64(sp.StartTimestamp()), end: uint64(sp.EndTimestamp()),
			hasArgs: rd.Has(semconv.FieldArgs), hasResult: rd.Has(semconv.FieldResult),
		}
		if c.hasArgs {
			c.args = rd.Value(semconv.FieldArgs)
			c.redacted = hasRedactedValue(c.args)
			c.tree = jsonOf(c.args)
			c.canon = canonical(c.tree)
		}
		if c.hasResult {
			c.result = rd.Value(semconv.FieldResult)
			c.redacted = c.redacted || hasRedactedValue(c.result)
		}
		if i < len(lines) {
			c.line = lines[i]
		}
		c.key = "call\x00" + c.out.Tool
		calls = append(calls, c)
	}
	// Start time decides; the rest only makes ties (parallel calls) come
	// out the same way every time.
	slices.SortStableFunc(calls, func(x, y diffCall) int {
		return cmp.Or(cmp.Compare(x.start, y.start), strings.Compare(x.out.Tool, y.out.Tool),
			cmp.Compare(x.end, y.end), strings.Compare(x.out.TraceID, y.out.TraceID),
			strings.Compare(x.out.SpanID, y.out.SpanID))
	})
	return calls, redacted
}

// anyRedacted tells whether a call's payload holds a redaction placeholder.
func anyRedacted(calls []diffCall) bool {
	return slices.ContainsFunc(calls, func(c diffCall) bool { return c.redacted })
}

// errorCode is a failed record's code as an artifact writes it:
// error.type, else "error". A record that did not fail has none.
func errorCode(rd *semconv.Reading, failed bool) string {
	if !failed {
		return ""
	}
	if c := rd.Str(semconv.FieldCode); c != "" {
		return c
	}
	return "error"
}

// hasRedactedValue tells whether arguments hold a redaction placeholder
// (redact.Placeholder, whole or in part as the secret scan leaves it:
// "Bearer [REDACTED]"; "[redacted]" as tool-dispatch traces write it):
// values were replaced, so the run's arguments cannot be compared or
// replayed, whatever its header says.
func hasRedactedValue(v pcommon.Value) bool {
	return isRedactedText(v.AsString())
}

// redactedMark is how every redaction placeholder begins: redact.Placeholder
// without its closing bracket, so a placeholder that names what it
// replaced ("[REDACTED:aws]") is seen too. A test holds the two together.
const redactedMark = "[REDACTED"

func isRedactedText(s string) bool {
	return strings.Contains(s, redactedMark) || strings.Contains(s, "[redacted]")
}

// isRedacted tells whether rec's resource says its content was redacted.
func isRedacted(rec *artifact.Record) bool {
	v, ok := rec.Resource.Attributes().Get(semconv.Redacted)
	return ok && v.Type() == pcommon.ValueTypeBool && v.Bool()
}
