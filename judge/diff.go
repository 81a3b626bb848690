package judge

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/report"
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
	trailerA, trailerB              *converter.Summary
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
func WithTrailers(a, b *converter.Summary) DiffOption {
	return diffOptionFunc(func(c *diffConfig) { c.trailerA, c.trailerB = a, b })
}

func newDiffConfig(opts []DiffOption) diffConfig {
	c := diffConfig{maxChanges: DefaultMaxChanges, maxValue: DefaultMaxValueBytes, maxReport: DefaultMaxReportBytes}
	for _, o := range opts {
		o.applyDiff(&c)
	}
	return c
}

// DiffReport is the verdict of [Diff]. Its JSON form is the contract of
// `agenttrace diff --json`; it leads with the summary a reviewer reads
// first: the counts, then each run's calls, tokens, cost and time.
type DiffReport struct {
	// Counts sums up the alignment.
	Counts DiffCounts `json:"counts"`
	// Runs sums up each run.
	Runs RunPair `json:"runs"`
	// Diverged tells whether the runs' tool calls differ in outcome, in
	// number or in order: anything counted but matches and changed
	// arguments.
	Diverged bool `json:"diverged"`
	// FirstDivergence is the 0-based position, in A's calls in start
	// order, of the first divergence (for a call only B made, the number
	// of A's calls before it); -1 when none.
	FirstDivergence int `json:"first_divergence"`
	// Redacted tells which run was redacted, whole (its header or
	// resource says so) or in part (a call's payload holds a redaction
	// placeholder). Redacted payloads cannot be compared: PayloadsCompared
	// says whether the rest were.
	Redacted Redaction `json:"redacted"`
	// PayloadsCompared tells whether arguments and results were compared:
	// false when either run's header or resource says it was redacted. A
	// redaction placeholder in one call's payload keeps only that call's
	// payload out of the comparison (and sets Redacted).
	PayloadsCompared bool `json:"payloads_compared"`
	// Divergences lists the findings in alignment order, as many as fit
	// the report's size limit: every call that is not a plain match.
	Divergences []Divergence `json:"divergences"`
	// Truncated tells that some divergences, or some of their changes, were
	// left out to keep the report within its size limit; Counts still
	// counts them all.
	Truncated bool `json:"truncated"`
}

// DiffCounts sums up how two runs' calls aligned. Each call of A is
// matched, diverged, removed or reordered; each call of B, matched,
// diverged, inserted or reordered.
type DiffCounts struct {
	// CallsA and CallsB count the call records of each run.
	CallsA int `json:"calls_a"`
	CallsB int `json:"calls_b"`
	// Matched counts pairs of calls, in the same order in both runs, with
	// the same outcome; ArgsChanged, those of them whose arguments differ.
	Matched     int `json:"matched"`
	ArgsChanged int `json:"args_changed"`
	// Diverged counts pairs, in order, whose outcomes differ.
	Diverged int `json:"diverged"`
	// Inserted counts calls only B made; Removed, calls only A made.
	Inserted int `json:"inserted"`
	Removed  int `json:"removed"`
	// Reordered counts calls both runs made (same tool and arguments) at
	// places the other run's order does not allow: one per moved call, so
	// a swapped pair counts one.
	Reordered int `json:"reordered"`
}

// RunPair is the summary of each run of a diff.
type RunPair struct {
	A RunSummary `json:"a"`
	B RunSummary `json:"b"`
}

// RunSummary is what a reviewer compares first about two runs: how many
// calls each made, what it spent and how long it took.
type RunSummary struct {
	// Calls counts tool calls; ModelCalls, inference records.
	Calls      int `json:"calls"`
	ModelCalls int `json:"model_calls"`
	// Tokens are the model calls' totals; the summary trailer's when it
	// accounts for records the file does not hold (TokensFromTrailer).
	Tokens            converter.Tokens `json:"tokens"`
	TokensFromTrailer bool             `json:"tokens_from_trailer,omitempty"`
	// Cost sums the cost the records carry (gen_ai.usage.cost and its
	// aliases); null when none carries one.
	Cost *float64 `json:"cost"`
	// DurationMS is the time from the first record's start to the last
	// one's end.
	DurationMS int64 `json:"duration_ms"`
	// Budget is the token budget's state as the summary trailer records
	// it (which counts what was dropped); absent without one.
	Budget *converter.BudgetStatus `json:"budget,omitempty"`
	// Dropped counts records the trailer accounts for but the file does
	// not hold (dropped by the producer, or lines that could not be
	// read): their details, calls included, are not in the file, so they
	// could not be aligned.
	Dropped int64 `json:"dropped,omitempty"`
}

// Redaction tells which run of a diff was redacted.
type Redaction struct {
	A bool `json:"a"`
	B bool `json:"b"`
}

// DivergenceKind says how a call differs between the runs.
type DivergenceKind string

// The kinds of divergence.
const (
	// Outcome: both runs made the call at this point, with different
	// outcomes (or different tools).
	Outcome DivergenceKind = "outcome"
	// InsertedCall: only B made the call (a retry, an extra step).
	InsertedCall DivergenceKind = "inserted"
	// RemovedCall: only A made the call.
	RemovedCall DivergenceKind = "removed"
	// ReorderedCall: both made the call, in another order.
	ReorderedCall DivergenceKind = "reordered"
	// ArgsChangedCall: both made the call at this point with the same
	// outcome, but other arguments. It is not a divergence (arguments
	// vary from run to run), only a finding to read.
	ArgsChangedCall DivergenceKind = "args_changed"
)

// Diverges tells whether a finding of kind k makes the runs diverge.
func (k DivergenceKind) Diverges() bool { return k != ArgsChangedCall }

// Divergence is one call that is not a plain match.
type Divergence struct {
	// Index is where it happened, as a position in A's calls in start
	// order: the A call's own, or for a call only B made, the number of
	// A's calls before it.
	Index int `json:"index"`
	// Kind says how it differs.
	Kind DivergenceKind `json:"kind"`
	// AIndex and BIndex are the call's positions in each run; absent for
	// the run that did not make it.
	AIndex *int `json:"a_index,omitempty"`
	BIndex *int `json:"b_index,omitempty"`
	// RetryOf, for a call only one run made, is the position in that same
	// run of another attempt at the same call (same tool and arguments):
	// the nearest earlier call of that tool when it is one, else the
	// nearest later one. The call is a retry, or the failed first attempt
	// a retry followed.
	RetryOf *int `json:"retry_of,omitempty"`
	// Fields names the outcome fields that differ ("tool", "ok", "code").
	Fields []string `json:"fields,omitempty"`
	// A and B are the calls; one is nil for a call only one run made.
	A *CallOutcome `json:"a,omitempty"`
	B *CallOutcome `json:"b,omitempty"`
	// Changes lists how the arguments (and, for diverged outcomes, the
	// results) differ, paths first in "args" then in "result", when the
	// payloads could be compared.
	Changes []Change `json:"changes,omitempty"`
	// ChangesTotal counts every change found; ChangesTruncated tells that
	// Changes lists fewer.
	ChangesTotal     int  `json:"changes_total,omitempty"`
	ChangesTruncated bool `json:"changes_truncated,omitempty"`
}

// CallOutcome is one call record, as a divergence judges it.
type CallOutcome struct {
	// Tool is the tool's name; OK is false when the span's status is
	// Error, and Code is then its error.type ("error" when it has none).
	Tool string `json:"tool"`
	OK   bool   `json:"ok"`
	Code string `json:"code,omitempty"`
	// TraceID, SpanID and ToolCallID find the call in its run.
	TraceID    string `json:"trace_id"`
	SpanID     string `json:"span_id"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	// StartedAt is when the call started.
	StartedAt time.Time `json:"started_at"`
}

// ChangeOp says how a value differs between A and B.
type ChangeOp string

// The change operations.
const (
	Changed ChangeOp = "changed" // present in both, different
	Added   ChangeOp = "added"   // only in B
	Removed ChangeOp = "removed" // only in A
)

// Change is one difference between the payloads of a pair of calls.
type Change struct {
	// Path locates the value: "args.query", "result.offers[2].price",
	// `args["content-type"]`; a bare "args" or "result" is the whole
	// payload.
	Path string   `json:"path"`
	Op   ChangeOp `json:"op"`
	// A and B are the values as JSON text, cut short to the report's
	// value limit (ending in "…"); empty when absent on that side.
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
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
func Diff(a, b []converter.Record, opts ...DiffOption) *DiffReport {
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
func summarize(recs []converter.Record, calls int, trailer *converter.Summary) RunSummary {
	s := RunSummary{Calls: calls}
	var (
		t          converter.Tally
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
func diffCalls(recs []converter.Record, lines []int) ([]diffCall, bool) {
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
		failed := converter.Failed(sp, &rd)
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
func isRedacted(rec *converter.Record) bool {
	v, ok := rec.Resource.Attributes().Get(semconv.Redacted)
	return ok && v.Type() == pcommon.ValueTypeBool && v.Bool()
}

// changeList collects the changes between two payloads, listing at most
// max of them and counting all.
type changeList struct {
	max, maxValue int
	out           []Change
	total         int
}

// payload compares one payload (args or result) of a pair.
func (c *changeList) payload(root string, a pcommon.Value, hasA bool, b pcommon.Value, hasB bool) {
	switch {
	case hasA && hasB:
		c.walk(root, jsonOf(a), jsonOf(b))
	case hasA:
		c.add(root, Removed, jsonOf(a), nil)
	case hasB:
		c.add(root, Added, nil, jsonOf(b))
	}
}

func (c *changeList) add(path string, op ChangeOp, a, b any) {
	c.total++
	if len(c.out) >= c.max {
		return
	}
	ch := Change{Path: path, Op: op}
	if op != Added {
		ch.A = show(a, c.maxValue)
	}
	if op != Removed {
		ch.B = show(b, c.maxValue)
	}
	c.out = append(c.out, ch)
}

// walk compares two JSON trees: objects by key (sorted), arrays by
// index, anything else by value.
func (c *changeList) walk(path string, a, b any) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				va, inA := x[k]
				vb, inB := y[k]
				p := joinKey(path, k)
				switch {
				case inA && inB:
					c.walk(p, va, vb)
				case inA:
					c.add(p, Removed, va, nil)
				default:
					c.add(p, Added, nil, vb)
				}
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := range max(len(x), len(y)) {
				p := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i < len(x) && i < len(y):
					c.walk(p, x[i], y[i])
				case i < len(x):
					c.add(p, Removed, x[i], nil)
				default:
					c.add(p, Added, nil, y[i])
				}
			}
			return
		}
	}
	if !jsonEqual(a, b) {
		c.add(path, Changed, a, b)
	}
}

// writeChanges lists changes for a terminal, one a line ("~" changed, "+"
// added, "-" removed), and says so when fewer are listed than were found
// (total). Diff and replay reports list them alike.
func writeChanges(b *strings.Builder, changes []Change, truncated bool, total int) {
	for _, ch := range changes {
		switch ch.Op {
		case Changed:
			fmt.Fprintf(b, "  ~ %s: %s -> %s\n", ch.Path, ch.A, ch.B)
		case Added:
			fmt.Fprintf(b, "  + %s: %s\n", ch.Path, ch.B)
		case Removed:
			fmt.Fprintf(b, "  - %s: %s\n", ch.Path, ch.A)
		}
	}
	if truncated {
		fmt.Fprintf(b, "  (%d of %d changes shown)\n", len(changes), total)
	}
}

// firstDifference says where JSON values a and b (arguments, say) first
// differ, naming the sides they come from (inA, inB), and how many more
// differences there are: "path is x in inA, y in inB", "path is only in
// inB (y)", "path is only in inA (x)". It is "" when they do not differ.
func firstDifference(a, b any, inA, inB string) string {
	cl := changeList{max: 1, maxValue: 80}
	cl.walk("args", a, b)
	if len(cl.out) == 0 {
		return ""
	}
	where := ""
	switch ch := cl.out[0]; ch.Op {
	case Changed:
		where = fmt.Sprintf("%s is %s in %s, %s in %s", ch.Path, ch.A, inA, ch.B, inB)
	case Added:
		where = fmt.Sprintf("%s is only in %s (%s)", ch.Path, inB, ch.B)
	case Removed:
		where = fmt.Sprintf("%s is only in %s (%s)", ch.Path, inA, ch.A)
	}
	if cl.total > 1 {
		where += fmt.Sprintf(", and %d more difference(s)", cl.total-1)
	}
	return where
}

// joinKey appends an object key to a path: ".key" for a plain name,
// `["key"]` otherwise.
func joinKey(path, k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}

// show renders a JSON value as text of at most n bytes (plus "…" when cut
// short, on a UTF-8 boundary).
func show(v any, n int) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// jsonOf returns the content of a JSON-valued attribute as a tree of
// map[string]any, []any, string, bool, nil and json.Number: a string that
// holds a JSON object or array is parsed, any other string is itself; a
// structured value is converted, ints and doubles becoming numbers.
func jsonOf(v pcommon.Value) any {
	if v.Type() == pcommon.ValueTypeStr {
		return parseText(v.Str())
	}
	return plainOf(v)
}

// plainOf converts a pdata value without parsing the strings in it.
func plainOf(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return v.Str()
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeInt:
		return json.Number(strconv.FormatInt(v.Int(), 10))
	case pcommon.ValueTypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case pcommon.ValueTypeBytes:
		return base64.StdEncoding.EncodeToString(v.Bytes().AsRaw())
	case pcommon.ValueTypeMap:
		m := make(map[string]any, v.Map().Len())
		for k, e := range v.Map().All() {
			if _, dup := m[k]; !dup {
				m[k] = plainOf(e)
			}
		}
		return m
	case pcommon.ValueTypeSlice:
		s := make([]any, 0, v.Slice().Len())
		for _, e := range v.Slice().All() {
			s = append(s, plainOf(e))
		}
		return s
	}
	return nil
}

// parseText parses s when it holds a JSON object or array, and returns s
// itself otherwise.
func parseText(s string) any {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return s
	}
	if v, ok := decodeJSON(t); ok {
		return v
	}
	return s
}

// decodeJSON decodes one JSON value that is all of s, keeping numbers'
// text.
func decodeJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// jsonEqual compares two JSON trees: objects whatever their key order,
// numbers by value (2 equals 2.0 and 2e0). It is equality of [canonical]
// forms, so that grouping by canonical form and comparing agree.
func jsonEqual(a, b any) bool { return canonical(a) == canonical(b) }

// canonical renders a JSON tree so that two trees render the same exactly
// when they are the same JSON: keys sorted, numbers as exact fractions. It
// is a key for grouping and comparing, not JSON.
func canonical(v any) string {
	var b strings.Builder
	appendCanonical(&b, v)
	return b.String()
}

func appendCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			appendCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			appendCanonical(b, e)
		}
		b.WriteByte(']')
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			b.WriteString("#" + r.RatString())
		} else {
			b.WriteString("#" + string(x))
		}
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		b.WriteString("null")
	}
}

// WriteText renders the report for a terminal: the summary (verdict,
// counts, each run's tokens, cost and time), then each finding with its
// calls and changes.
func (r *DiffReport) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	c := r.Counts
	if r.Diverged {
		p("Verdict  diverged at index %d\n", r.FirstDivergence)
	} else {
		p("Verdict  no divergence\n")
	}
	p("Calls    A %d, B %d: %d matched, %d diverged, %d inserted, %d removed, %d reordered",
		c.CallsA, c.CallsB, c.Matched, c.Diverged, c.Inserted, c.Removed, c.Reordered)
	if c.ArgsChanged > 0 {
		p("; %d matched with other arguments", c.ArgsChanged)
	}
	p("\n")
	ra, rb := &r.Runs.A, &r.Runs.B
	p("Tokens   A %s; B %s\n", ra.tokensText(), rb.tokensText())
	if ra.Cost != nil || rb.Cost != nil {
		p("Cost     A %s; B %s\n", costText(ra.Cost), costText(rb.Cost))
	}
	p("Time     A %s; B %s\n", msText(ra.DurationMS), msText(rb.DurationMS))
	if ra.Budget != nil || rb.Budget != nil {
		p("Budget   A %s; B %s\n", budgetText(ra.Budget), budgetText(rb.Budget))
	}
	for _, s := range []struct {
		name string
		run  *RunSummary
	}{{"A", ra}, {"B", rb}} {
		if s.run.Dropped > 0 {
			p("Dropped  %s: %d record(s) the summary trailer counts are not in the file (dropped by the producer); "+
				"tokens are the trailer's, and the details of those records, calls included, are not in the file, so they are not aligned\n",
				s.name, s.run.Dropped)
		}
	}
	if red := r.redactedRuns(); red != "" && !r.PayloadsCompared {
		p("Redacted %s: arguments and results are not compared\n", red)
	} else if red != "" {
		p("Redacted %s: arguments and results of the calls holding a redaction placeholder are not compared\n", red)
	}
	for _, d := range r.Divergences {
		p("\n[%d] %s", d.Index, d.text())
		if len(d.Fields) > 0 {
			p(" (%s)", strings.Join(d.Fields, ", "))
		}
		p("\n")
		if d.A != nil {
			p("  A[%d]  %s\n", *d.AIndex, d.A.text())
		}
		if d.B != nil {
			p("  B[%d]  %s\n", *d.BIndex, d.B.text())
		}
		writeChanges(&b, d.Changes, d.ChangesTruncated, d.ChangesTotal)
	}
	if r.Truncated {
		p("\n(report truncated: %d of %d findings listed)\n", len(r.Divergences), r.findings())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// findings counts every finding the report's counts hold.
func (r *DiffReport) findings() int {
	c := r.Counts
	return c.Diverged + c.Inserted + c.Removed + c.Reordered + c.ArgsChanged
}

// text is how the text report names a finding.
func (d *Divergence) text() string {
	switch d.Kind {
	case Outcome:
		return "diverged"
	case InsertedCall:
		if d.RetryOf != nil {
			return fmt.Sprintf("inserted in B: a retry (another attempt at B[%d]'s call: same tool and arguments)", *d.RetryOf)
		}
		return "inserted in B"
	case RemovedCall:
		if d.RetryOf != nil {
			return fmt.Sprintf("removed: only in A, a retry (another attempt at A[%d]'s call: same tool and arguments)", *d.RetryOf)
		}
		return "removed: only in A"
	case ReorderedCall:
		return fmt.Sprintf("reordered: A[%d] is B[%d]", *d.AIndex, *d.BIndex)
	case ArgsChangedCall:
		return "arguments changed"
	}
	return string(d.Kind)
}

func (s *RunSummary) tokensText() string {
	t := s.Tokens
	out := fmt.Sprintf("%s (input %s, output %s)", thousands(t.Total), thousands(t.Input), thousands(t.Output))
	if s.TokensFromTrailer {
		out += " from the summary trailer"
	}
	return out
}

func budgetText(b *converter.BudgetStatus) string {
	if b == nil {
		return "none"
	}
	s := fmt.Sprintf("%s tokens, spent %s", thousands(b.BudgetTokens), thousands(b.Spent))
	switch {
	case b.OverBudget:
		s += ": over budget"
	case b.NearBudget:
		s += ": near budget"
	}
	return s
}

func costText(c *float64) string {
	if c == nil {
		return "not recorded"
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
}

func msText(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}

// thousands writes n with thin commas, the way every report counts.
func thousands(n int64) string { return report.Thousands(n) }

func (r *DiffReport) redactedRuns() string {
	switch {
	case r.Redacted.A && r.Redacted.B:
		return "A and B"
	case r.Redacted.A:
		return "A"
	case r.Redacted.B:
		return "B"
	}
	return ""
}

// text is one line about a call: tool, outcome, where to find it.
func (c *CallOutcome) text() string {
	tool := c.Tool
	if tool == "" {
		tool = "(unknown tool)"
	}
	s := tool + "  ok"
	if !c.OK {
		s = tool + "  failed " + c.Code
	}
	s += "  (span " + c.SpanID
	if c.ToolCallID != "" {
		s += ", tool call " + c.ToolCallID
	}
	return s + ")"
}
