package viewer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// The view model is everything the page shows of a run, computed here, so
// that the page's script only lays it out: no classification, decoding or
// totals live in JavaScript (one implementation of the conversion rules).
// Its JSON, one object per run:
//
//	{"name": "run.jsonl",
//	 "meta": {…the header line, as converter writes it…},
//	 "records": [{"t0": ms, "t1": ms, …the record line, as converter writes it…}, …],
//	 "report": {…report.TokenReport, as `agenttrace tokens --json` prints it…},
//	 "trailer": {…the artifact's last summary line…} or null,
//	 "problems": [{"line": n, "message": "…"}, …],
//	 "state": "running", "stopped" or "done",
//	 "state_text": "● running" or "stopped without an end; last record at …" or "done",
//	 "pending": [{"trace_id": "…", "span_id": "…", "t0": ms, "children": n, "running": bool}, …],
//	 "costs": {"run": "$0.0242", "note": "priced with …", "by_model": ["…"], "by_agent": ["…"]}}
//
// Pending are the parents the records name that the file does not hold
// (yet): SDKs export a span when it ends, so while an agent runs its
// root and every open parent are known only from their children. The
// run is "running" while it has pending parents and its writer has not
// closed it (no trailer); then the pending parents are running, and the
// page shows them with their elapsed time ticking from their earliest
// child's start. A closed run's pending parents are simply missing. An
// open run whose input gained nothing for the idle time (Run.Live) has
// "stopped" without an end (a crash, a kill): its pending parents are
// missing too, and state_text says when its last record was.
//
// A record is its artifact line (kind, name, ids, times, status, promoted
// fields, usage, args, result, messages, attrs, events…), so every field a
// reader of the format knows is there under its documented name, plus t0
// and t1: start and end in milliseconds since the Unix epoch (with the
// sub-millisecond fraction), for the waterfall; failed: true when
// converter.Failures says the span failed (the predicate the report's
// errors count with: status, exception event, error.type, HTTP status,
// a dialect's level, finish reason "error"), so the card, the red rows,
// the "errors only" filter and next error agree; and, when the span holds
// any, conversation: its messages in the GenAI conventions' shape
// ({"system": [part…], "input": [message…], "output": [message…]}, read
// by semconv.Messages from whichever dialect wrote them; a model call
// whose instrumentation left its content on the wrapper around it shows
// the wrapper's, as converter.ModelCalls reads it), in place of the
// record's own system, input and output fields. Each tool_call and
// tool_call_response part of it carries "tool_span": the span id of the
// tool span of the record's trace that ran it, when one was traced (the
// rule is linkTools'), so the page links a call to its span without
// matching anything itself. A record whose span carries
// gen_ai.evaluation.result verdicts has "evaluations": [{"name", "score",
// "label", "explanation", "response_id", "error_type"}, …] (semconv.Evaluations;
// see appendEvaluations), shown beside the call they judge. A record
// whose span the application logged in (log records that are not GenAI
// content: Run.Logs) has "logs": [{"t": ms, "severity": "WARN", …the log
// line…}, …] (appendAppLogs), shown on the span.
//
// The report is made with the artifact's trailer (report.WithTrailer): when
// the trailer accounts for records the file does not hold, its tokens and
// budget are the trailer's, and dropped and notes say what is missing. The
// cards and the budget bar show those; the tables break down the records
// the file holds.

// Problem is a line of a run's input that could not be shown.
type Problem struct {
	// Line is the line number in the input, from 1; 0 when none applies.
	Line int `json:"line"`
	// Message says what is wrong with it.
	Message string `json:"message"`
}

type viewRun struct {
	Name      string              `json:"name"`
	Meta      json.RawMessage     `json:"meta"`
	Report    *report.TokenReport `json:"report"`
	Trailer   json.RawMessage     `json:"trailer"`
	Problems  []Problem           `json:"problems"`
	State     string              `json:"state"`
	StateTxt  string              `json:"state_text"`
	Pending   []Pending           `json:"pending"`
	PendingAt []int               `json:"pending_at"`
	Ordered   bool                `json:"ordered"`
	Count     int                 `json:"count"`
	T0        float64             `json:"t0"`
	T1        float64             `json:"t1"`
	Costs     *viewCosts          `json:"costs"`
	Text      *viewText           `json:"text"`
}

// Run states of the view model.
const (
	StateRunning = "running"
	StateDone    = "done"
)

// Pending is a parent span the records of a run name but the run does not
// hold: still running, when the run is, else missing.
type Pending struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
	// T0 is its earliest known child's start, in epoch milliseconds.
	T0 float64 `json:"t0"`
	// Children counts the records that name it as their parent.
	Children int  `json:"children"`
	Running  bool `json:"running"`
}

// RunState is a run's live state and its pending parents (see the view
// model): running while parents are pending and no trailer closed it,
// stopped once lv says its input has been idle for too long ([StateOf]).
//
// flying are the run's spans in flight (Run.InFlight): they make it open
// too, and a parent in flight is known, not pending.
func RunState(recs, flying []artifact.Record, sum *artifact.Summary, lv Liveness) (string, []Pending) {
	type key struct {
		t pcommon.TraceID
		s pcommon.SpanID
	}
	have := make(map[key]struct{}, len(recs)+len(flying))
	for _, l := range [][]artifact.Record{recs, flying} {
		for i := range l {
			have[key{l[i].Span.TraceID(), l[i].Span.SpanID()}] = struct{}{}
		}
	}
	idx := map[key]int{}
	var pend []Pending
	for i := range recs {
		sp := recs[i].Span
		p := sp.ParentSpanID()
		if p.IsEmpty() {
			continue
		}
		k := key{sp.TraceID(), p}
		if _, ok := have[k]; ok {
			continue
		}
		t0 := float64(sp.StartTimestamp()) / 1e6
		j, ok := idx[k]
		if !ok {
			idx[k] = len(pend)
			pend = append(pend, Pending{TraceID: k.t.String(), SpanID: k.s.String(), T0: t0})
			j = len(pend) - 1
		}
		pend[j].Children++
		if t0 < pend[j].T0 {
			pend[j].T0 = t0
		}
	}
	state := StateOf(len(pend) > 0 || len(flying) > 0, sum != nil, lv)
	if state == StateRunning {
		for i := range pend {
			pend[i].Running = true
		}
	}
	return state, pend
}

// runView is a run made ready for the page: its view model's head (all
// but the records) and what each record's view is made from. The records
// are encoded one at a time, in waterfall order, as the page is written
// (writeRecords), so a run's view is never held whole as text: the page
// of 100,000 records is streamed.
type runView struct {
	run    *Run
	all    []artifact.Record // the run's records, then its spans in flight
	head   viewRun
	report *report.TokenReport
	order  waterfall
	failed []bool // per record: converter.Failures, the one error predicate
	convs  []*viewConversation
	logs   map[int][]artifact.LogRecord  // the application's logs by record (appLogs)
	costs  map[artifact.SpanKey]*float64 // each model call's cost (callCosts)
	folds  *wrapFolds                    // nil when no wrapper is folded
	enc    artifact.Encoder
	rd     semconv.Reading
	line   []byte
}

// prepareView makes run's view model head. run.Meta must be set.
func prepareView(run *Run) *runView {
	v := &runView{run: run}
	v.enc.SetDefaults(run.Meta)
	meta := bytes.TrimSuffix(artifact.AppendMeta(nil, run.Meta), []byte{'\n'})
	// The spans in flight are rows too, in waterfall order with the
	// rest; no total counts them (the report is the ended records').
	v.all = run.Records
	if len(run.InFlight) > 0 {
		v.all = append(slices.Clip(run.Records), run.InFlight...)
	}
	// One batch: the report, the folds, the conversations and the
	// failures ask the same questions of the run's wrappers and spans
	// (the report only when it reads the same records: none in flight).
	batch := converter.NewBatch(v.all)
	opts := []report.Option{report.WithTop(10), report.WithTrailer(run.Summary, run.Records)}
	if len(run.InFlight) == 0 {
		opts = append(opts, report.WithBatch(batch))
	} else {
		// A call that ended under an agent still running is that agent's.
		opts = append(opts, report.WithOpen(run.InFlight))
	}
	rep := report.Tokens(run.Records, run.Meta, opts...)
	v.report = rep
	h := viewRun{Name: run.Name, Meta: meta, Report: rep, Problems: run.Problems, Costs: costsOf(rep), Ordered: true, Count: len(v.all)}
	if h.Problems == nil {
		h.Problems = []Problem{}
	}
	h.State, h.Pending = RunState(run.Records, run.InFlight, run.Summary, run.Live)
	h.StateTxt = StateText(h.State, lastRecord(run.Records, run.InFlight))
	if h.Pending == nil {
		h.Pending = []Pending{}
	}
	if run.Summary != nil {
		h.Trailer = bytes.TrimSuffix(artifact.AppendSummary(nil, run.Summary), []byte{'\n'})
	} else {
		h.Trailer = json.RawMessage("null")
	}
	v.folds = foldWrappers(batch, v.all)
	v.order = waterfallOrder(v.all, h.Pending, v.folds)
	h.PendingAt = v.order.pendingAt
	h.T0, h.T1 = timeSpan(run.Records)
	h.Text = textOf(rep, h.Costs, run.Meta.StartedAt, runEnd(run.Records), time.Duration((h.T1-h.T0)*float64(time.Millisecond)))
	v.costs = callCosts(rep)
	v.head = h
	v.convs = runConversations(batch, v.all)
	// The one error truth over the batch, as the report counts errors:
	// each span's own failure, and a model call's that failed with the
	// span around it (converter.Failures).
	v.failed = batch.Failures()
	v.logs = appLogs(v.all, run.Logs)
	return v
}

// runEnd is the records' latest end, zero when there is none.
func runEnd(recs []artifact.Record) time.Time {
	var hi uint64
	for i := range recs {
		hi = max(hi, uint64(recs[i].Span.EndTimestamp()))
	}
	if hi == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(hi)).UTC()
}

// timeSpan is the records' earliest start (after the epoch) and latest
// end, in epoch milliseconds, 0 when there is none: the page's time axis,
// known before it has read the records.
func timeSpan(recs []artifact.Record) (t0, t1 float64) {
	var lo, hi uint64
	for i := range recs {
		s, e := uint64(recs[i].Span.StartTimestamp()), uint64(recs[i].Span.EndTimestamp())
		if s > 0 && (lo == 0 || s < lo) {
			lo = s
		}
		hi = max(hi, e)
	}
	return millis(lo), millis(hi)
}

// appendRecord appends the view of record i (an index into the run's
// records) to dst; it reads the record's span once.
func (v *runView) appendRecord(dst []byte, i int) ([]byte, error) {
	rec := &v.all[i]
	line := v.enc.AppendRecordReading(v.line[:0], rec, &v.rd) // rd serves appendToolIO below: one reading
	v.line = line
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if len(line) < 2 || line[0] != '{' {
		return dst, fmt.Errorf("record %d: the encoder wrote no object", i)
	}
	b := append(dst, `{"t0":`...)
	b = appendMillis(b, uint64(rec.Span.StartTimestamp()))
	b = append(b, `,"t1":`...)
	if rec.InFlight {
		b = appendMillis(b, uint64(rec.Span.StartTimestamp())) // no end yet: the page runs it to now
	} else {
		b = appendMillis(b, uint64(rec.Span.EndTimestamp()))
	}
	t := textOfRecord(rec, &v.rd, v.costs)
	b = t.appendJSON(b)
	b = v.folds.appendJSON(b, i)
	if v.failed[i] {
		// The record's "ok" is its status alone (docs/format.md);
		// failed is the one predicate the report's errors count
		// with, for the page's red rows, filter and next error.
		b = append(b, `,"failed":true`...)
	}
	b = appendEvaluations(b, rec.Span)
	b = appendToolIO(b, rec, &v.rd)
	b = appendAppLogs(b, &v.enc, v.logs[i])
	if c := v.convs[i]; c != nil {
		// The messages once, as Go read them: the raw fields would
		// double the page (input messages repeat the whole history).
		b = append(b, `,"conversation":`...)
		b = c.appendJSON(b)
		// The other members follow, their object's brace made a comma.
		n := len(b)
		if b = dropFields(b, line, isMessageField); len(b)-n > 2 {
			b[n] = ','
		} else {
			b = append(b[:n], '}')
		}
	} else {
		b = append(b, ',')
		b = append(b, line[1:]...)
	}
	return b, nil
}

// headJSON is the view model's head: its JSON object without the
// closing brace, so that "records" can follow (see writeRecords).
func (v *runView) headJSON() ([]byte, error) {
	head, err := json.Marshal(&v.head)
	if err != nil {
		return nil, err
	}
	return head[:len(head)-1], nil
}

// writeRecords writes the views of the records at waterfall places
// [from, to), comma-separated, each through write.
func (v *runView) writeRecords(from, to int, write func([]byte)) error {
	var b []byte
	for k := from; k < to; k++ {
		if k > from {
			write([]byte{','})
		}
		var err error
		if b, err = v.appendRecord(b[:0], v.order.order[k]); err != nil {
			return err
		}
		write(b)
	}
	return nil
}

// isMessageField names the record fields a conversation replaces.
func isMessageField(key []byte) bool {
	switch string(key) {
	case "system", "input", "output":
		return true
	}
	return false
}

// appendMillis writes nanoseconds since the epoch as milliseconds, with
// the fraction a float64 keeps.
func appendMillis(dst []byte, ns uint64) []byte {
	return strconv.AppendFloat(dst, millis(ns), 'f', -1, 64)
}

// WriteRunJSON writes run's view model, the JSON object the page renders a
// run from. A live page (agenttrace serve) fetches it again as its file
// grows, and a file dropped on a served page comes back in this shape, so
// the page never derives anything itself.
func WriteRunJSON(w io.Writer, run Run) error {
	if run.Meta == nil {
		run.Meta = artifact.MetaFor(run.Records)
	}
	v := prepareView(&run)
	head, err := v.headJSON()
	if err != nil {
		return fmt.Errorf("viewer: run %q: %w", run.Name, err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString(`,"records":[`)
	if err := v.writeRecords(0, len(v.all), func(b []byte) { bw.Write(b) }); err != nil {
		return fmt.Errorf("viewer: run %q: %w", run.Name, err)
	}
	bw.WriteString("]}")
	return bw.Flush()
}

// millis is nanoseconds since the epoch as milliseconds, as appendMillis
// writes them.
func millis(ns uint64) float64 { return float64(ns/1e6) + float64(ns%1e6)/1e6 }
