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
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
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

func newDiffConfig(opts []DiffOption) diffConfig {
	c := diffConfig{maxChanges: DefaultMaxChanges, maxValue: DefaultMaxValueBytes, maxReport: DefaultMaxReportBytes}
	for _, o := range opts {
		o.applyDiff(&c)
	}
	return c
}

// DiffReport is the verdict of [Diff]. Its JSON form is the contract of
// `agenttrace diff --json`.
type DiffReport struct {
	// Diverged tells whether the runs' tool calls differ in outcome or in
	// number.
	Diverged bool `json:"diverged"`
	// FirstDivergence is the 0-based position, in start order, of the
	// first call that diverged; -1 when none did.
	FirstDivergence int `json:"first_divergence"`
	// Counts sums up the alignment.
	Counts DiffCounts `json:"counts"`
	// Redacted tells which run was redacted. Arguments and results of a
	// redacted run cannot be compared, so a report with either set lists
	// no changes.
	Redacted Redaction `json:"redacted"`
	// PayloadsCompared tells whether the arguments and results of
	// diverged pairs were compared: false when either run is redacted.
	PayloadsCompared bool `json:"payloads_compared"`
	// Divergences lists the diverged positions in order, as many as fit
	// the report's size limit.
	Divergences []Divergence `json:"divergences"`
	// Truncated tells that some divergences, or some of their changes, were
	// left out to keep the report within its size limit; Counts still
	// counts them all.
	Truncated bool `json:"truncated"`
}

// DiffCounts sums up how two runs' calls aligned.
type DiffCounts struct {
	// CallsA and CallsB count the call records of each run.
	CallsA int `json:"calls_a"`
	CallsB int `json:"calls_b"`
	// Aligned counts the positions where both runs have a call.
	Aligned int `json:"aligned"`
	// Diverged counts every divergence: Outcome + MissingInB + ExtraInB.
	Diverged int `json:"diverged"`
	// Outcome counts aligned pairs whose outcomes differ.
	Outcome int `json:"outcome"`
	// MissingInB counts A's calls past the end of B; ExtraInB, B's calls
	// past the end of A.
	MissingInB int `json:"missing_in_b"`
	ExtraInB   int `json:"extra_in_b"`
}

// Redaction tells which run of a diff was redacted.
type Redaction struct {
	A bool `json:"a"`
	B bool `json:"b"`
}

// DivergenceKind says how a position diverged.
type DivergenceKind string

// The kinds of divergence.
const (
	// Outcome: both runs made a call here, with different outcomes.
	Outcome DivergenceKind = "outcome"
	// MissingInB: A made a call here, B had stopped.
	MissingInB DivergenceKind = "missing_in_b"
	// ExtraInB: B made a call here, A had stopped.
	ExtraInB DivergenceKind = "extra_in_b"
)

// Divergence is one position where the runs differ.
type Divergence struct {
	// Index is the 0-based position in start order.
	Index int `json:"index"`
	// Kind says how it diverged.
	Kind DivergenceKind `json:"kind"`
	// Fields names the outcome fields that differ ("tool", "ok", "code"),
	// for an Outcome divergence.
	Fields []string `json:"fields,omitempty"`
	// A and B are the calls at this position; one is nil when that run
	// had stopped.
	A *CallOutcome `json:"a,omitempty"`
	B *CallOutcome `json:"b,omitempty"`
	// Changes lists how the arguments and results differ, paths first
	// in "args" then in "result", for an Outcome divergence when the
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

// Change is one difference between the payloads of a diverged pair.
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
}

// Diff judges whether run b diverged from run a: their call records,
// taken in order of start time, are aligned by position and compared on
// their stable outcome (tool name, success, error code). Arguments and
// results never make a divergence; for each diverged pair the report
// lists how they differ, unless either run was redacted. Calls past the
// end of the shorter run are divergences too. a and b are only read.
func Diff(a, b []converter.Record, opts ...DiffOption) *DiffReport {
	cfg := newDiffConfig(opts)
	ca, redA := diffCalls(a)
	cb, redB := diffCalls(b)
	rep := &DiffReport{
		FirstDivergence: -1,
		Redacted:        Redaction{A: cfg.redactedA || redA, B: cfg.redactedB || redB},
		Divergences:     []Divergence{},
	}
	rep.PayloadsCompared = !rep.Redacted.A && !rep.Redacted.B
	rep.Counts = DiffCounts{CallsA: len(ca), CallsB: len(cb), Aligned: min(len(ca), len(cb))}

	budget, full := cfg.maxReport-reportOverhead, false
	for i := range max(len(ca), len(cb)) {
		d := Divergence{Index: i}
		switch {
		case i >= len(cb):
			d.Kind, d.A = MissingInB, &ca[i].out
			rep.Counts.MissingInB++
		case i >= len(ca):
			d.Kind, d.B = ExtraInB, &cb[i].out
			rep.Counts.ExtraInB++
		default:
			x, y := &ca[i], &cb[i]
			d.Fields = outcomeFields(&x.out, &y.out)
			if len(d.Fields) == 0 {
				continue
			}
			d.Kind, d.A, d.B = Outcome, &x.out, &y.out
			rep.Counts.Outcome++
			if rep.PayloadsCompared {
				cl := changeList{max: cfg.maxChanges, maxValue: cfg.maxValue}
				cl.payload("args", x.args, x.hasArgs, y.args, y.hasArgs)
				cl.payload("result", x.result, x.hasResult, y.result, y.hasResult)
				d.Changes, d.ChangesTotal = cl.out, cl.total
				d.ChangesTruncated = cl.total > len(cl.out)
			}
		}
		rep.Counts.Diverged++
		if rep.FirstDivergence < 0 {
			rep.FirstDivergence = i
		}
		if !full {
			budget, full = rep.list(d, budget)
		}
	}
	rep.Diverged = rep.Counts.Diverged > 0
	return rep
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
// any record's resource says the run was redacted.
func diffCalls(recs []converter.Record) ([]diffCall, bool) {
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
		failed := sp.Status().Code() == ptrace.StatusCodeError
		c := diffCall{
			out: CallOutcome{
				Tool: rd.Str(semconv.FieldTool), OK: !failed, Code: errorCode(&rd, failed),
				TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(),
				ToolCallID: rd.Str(semconv.FieldToolCallID),
				StartedAt:  sp.StartTimestamp().AsTime().UTC(),
			},
			start: uint64(sp.StartTimestamp()), end: uint64(sp.EndTimestamp()),
			hasArgs: rd.Has(semconv.FieldArgs), hasResult: rd.Has(semconv.FieldResult),
		}
		if c.hasArgs {
			c.args = rd.Value(semconv.FieldArgs)
			redacted = redacted || hasRedactedValue(c.args)
		}
		if c.hasResult {
			c.result = rd.Value(semconv.FieldResult)
		}
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
// ("[REDACTED]" as agenttrace writes it, "[redacted]" as tool-dispatch
// traces do): named fields were replaced, so the run's arguments cannot be
// compared, whatever its header says.
func hasRedactedValue(v pcommon.Value) bool {
	s := v.AsString()
	return strings.Contains(s, `"[REDACTED]"`) || strings.Contains(s, `"[redacted]"`) ||
		s == "[REDACTED]" || s == "[redacted]"
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

// WriteText renders the report for a terminal: the verdict and counts,
// then each listed divergence with its calls and changes.
func (r *DiffReport) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	c := r.Counts
	if r.Diverged {
		p("Verdict  diverged at index %d\n", r.FirstDivergence)
	} else {
		p("Verdict  no divergence\n")
	}
	p("Calls    A %d, B %d; aligned %d; diverged %d (%d outcome, %d missing in B, %d extra in B)\n",
		c.CallsA, c.CallsB, c.Aligned, c.Diverged, c.Outcome, c.MissingInB, c.ExtraInB)
	if red := r.redactedRuns(); red != "" {
		p("Redacted %s: arguments and results are not compared\n", red)
	}
	for _, d := range r.Divergences {
		p("\n[%d] %s", d.Index, d.Kind.text())
		if len(d.Fields) > 0 {
			p(" (%s)", strings.Join(d.Fields, ", "))
		}
		p("\n")
		if d.A != nil {
			p("  A  %s\n", d.A.text())
		}
		if d.B != nil {
			p("  B  %s\n", d.B.text())
		}
		for _, ch := range d.Changes {
			switch ch.Op {
			case Changed:
				p("  ~ %s: %s -> %s\n", ch.Path, ch.A, ch.B)
			case Added:
				p("  + %s: %s\n", ch.Path, ch.B)
			case Removed:
				p("  - %s: %s\n", ch.Path, ch.A)
			}
		}
		if d.ChangesTruncated {
			p("  (%d of %d changes shown)\n", len(d.Changes), d.ChangesTotal)
		}
	}
	if r.Truncated {
		p("\n(report truncated: %d of %d divergences listed)\n", len(r.Divergences), c.Diverged)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// text is how the text report names the kind.
func (k DivergenceKind) text() string {
	switch k {
	case MissingInB:
		return "missing in B"
	case ExtraInB:
		return "extra in B"
	}
	return string(k)
}

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
