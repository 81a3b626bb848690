package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// Dispatcher runs one tool call the way the caller's agent would: by
// name, with JSON arguments, returning the tool's JSON result. A failed
// call returns an error; to be compared on its error code, the error
// should carry one (a [*CallError], or any error with an ErrorCode()
// string method, found with errors.As).
type Dispatcher func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)

// Validator checks a call's arguments against the tool's current schema
// without running it: nil when they are valid. A dry run uses it to find
// tools whose signature drifted since the run was recorded.
type Validator func(ctx context.Context, tool string, args json.RawMessage) error

// CallError is a failed tool call with the error code replay compares
// (the recorded call's error.type).
type CallError struct {
	Code    string
	Message string
}

// Error says the code and the message, whichever there are.
func (e *CallError) Error() string {
	switch {
	case e.Message == "":
		return e.Code
	case e.Code == "":
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// ErrorCode returns the code, which replay compares with the recorded one.
func (e *CallError) ErrorCode() string { return e.Code }

// ErrNoDispatcher is returned by [Replay] when neither a dispatcher nor a
// dry-run validator was given: there is nothing to replay with.
var ErrNoDispatcher = errors.New("judge: replay needs a dispatcher, or a validator for a dry run")

// ReplayOption configures [Replay].
type ReplayOption interface{ applyReplay(*replayConfig) }

type replayConfig struct {
	validate           Validator
	maxChanges, maxVal int
}

type replayOptionFunc func(*replayConfig)

func (f replayOptionFunc) applyReplay(c *replayConfig) { f(c) }

// WithDryRun makes Replay validate each call's arguments with v instead
// of dispatching it: a call is matched when v accepts it and diverged when
// v refuses it. Nothing runs, so no result comes back and no id is
// learned: later calls keep the recorded ids.
func WithDryRun(v Validator) ReplayOption {
	return replayOptionFunc(func(c *replayConfig) { c.validate = v })
}

// WithReplayLimits sets how many changes a diverged call lists and how
// many bytes of each value it shows, as [WithMaxChanges] and
// [WithMaxValueBytes] do for Diff; n <= 0 keeps the default.
func WithReplayLimits(maxChanges, maxValueBytes int) ReplayOption {
	return replayOptionFunc(func(c *replayConfig) {
		if maxChanges > 0 {
			c.maxChanges = maxChanges
		}
		if maxValueBytes > 0 {
			c.maxVal = maxValueBytes
		}
	})
}

// ReplayStatus is what became of one recorded call.
type ReplayStatus string

// The replay statuses.
const (
	// Matched: the call ran with the recorded outcome (in a dry run: its
	// arguments are valid).
	Matched ReplayStatus = "matched"
	// Diverged: the call ran with another outcome (in a dry run: its
	// arguments are refused).
	Diverged ReplayStatus = "diverged"
	// NotReplayable: the call could not be replayed faithfully, and was
	// not run: its arguments were redacted or not recorded.
	NotReplayable ReplayStatus = "not_replayable"
	// Skipped: the call was stopped by the run's token budget; its
	// outcome is the budget's, not the tool's, so it is not run.
	Skipped ReplayStatus = "skipped"
)

// ReplayReport is the verdict of [Replay]. Its JSON form is the contract
// of `agenttrace replay --json`.
type ReplayReport struct {
	// Counts sums up the calls.
	Counts ReplayCounts `json:"counts"`
	// Diverged tells whether any call diverged.
	Diverged bool `json:"diverged"`
	// DryRun tells that arguments were only validated.
	DryRun bool `json:"dry_run"`
	// IDs is the id map learned from results: a recorded id, and the id
	// the new run returned in its place.
	IDs map[string]string `json:"ids"`
	// Calls lists every recorded call, in start order.
	Calls []ReplayedCall `json:"calls"`
}

// ReplayCounts counts the recorded calls by what became of them.
type ReplayCounts struct {
	Calls         int `json:"calls"`
	Matched       int `json:"matched"`
	Diverged      int `json:"diverged"`
	NotReplayable int `json:"not_replayable"`
	Skipped       int `json:"skipped"`
}

// ReplayedCall is one recorded call and what became of it.
type ReplayedCall struct {
	// Index is the call's position in start order.
	Index  int          `json:"index"`
	Status ReplayStatus `json:"status"`
	// Reason says why a call was not replayable or skipped.
	Reason string `json:"reason,omitempty"`
	// Recorded is the call as recorded.
	Recorded CallOutcome `json:"recorded"`
	// Replayed is its outcome now; absent when it was not run.
	Replayed *ReplayOutcome `json:"replayed,omitempty"`
	// Fields names the outcome fields that differ ("ok", "code").
	Fields []string `json:"fields,omitempty"`
	// Rewritten lists the argument paths whose ids were rewritten from
	// the learned map.
	Rewritten []string `json:"rewritten,omitempty"`
	// Changes lists how the result differs from the recorded one, for a
	// diverged call; capped as Diff caps them.
	Changes          []Change `json:"changes,omitempty"`
	ChangesTotal     int      `json:"changes_total,omitempty"`
	ChangesTruncated bool     `json:"changes_truncated,omitempty"`
}

// ReplayOutcome is the stable outcome of a replayed call, and the failure
// message when it failed.
type ReplayOutcome struct {
	OK bool `json:"ok"`
	// Code is the failure's error code; empty when the dispatcher gave
	// none, in which case only success is compared.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// Replay re-dispatches every recorded call of a run through dispatch, in
// start order, and judges each on its stable outcome, as [Diff] judges a
// pair: success, and the error code when both failed and the new failure
// has one. Ids the recorded results returned and later recorded arguments
// used are rewritten to the ids the new results returned at the same
// place (the recorded run's sessions, orders and refs are gone); the
// learned map is in the report. Calls whose arguments were redacted (a
// redaction placeholder in them) or not recorded are not replayable and
// are not run; calls the token budget stopped are skipped.
//
// With [WithDryRun], nothing is dispatched (dispatch may be nil): each
// call's arguments are checked with the validator instead.
//
// Replay stops early when ctx is done, returning the report so far and
// ctx's error. recs are only read.
func Replay(ctx context.Context, recs []artifact.Record, dispatch Dispatcher, opts ...ReplayOption) (*ReplayReport, error) {
	cfg := replayConfig{maxChanges: DefaultMaxChanges, maxVal: DefaultMaxValueBytes}
	for _, o := range opts {
		o.applyReplay(&cfg)
	}
	if dispatch == nil && cfg.validate == nil {
		return nil, ErrNoDispatcher
	}
	calls, _ := diffCalls(recs, nil)
	budget := budgetStopped(recs)
	rep := &ReplayReport{DryRun: cfg.validate != nil, IDs: map[string]string{}, Calls: make([]ReplayedCall, 0, len(calls))}
	rep.Counts.Calls = len(calls)
	later := laterArgs(calls)
	for i := range calls {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("replay stopped before call %d of %d: %w", i, len(calls), err)
		}
		c := &calls[i]
		rc := ReplayedCall{Index: i, Recorded: c.out}
		switch {
		case budget[c.out.SpanID] || report.IsBudgetStop(c.out.Code):
			rc.Status, rc.Reason = Skipped, "the token budget stopped this call; its outcome is the budget's, not the tool's"
		case !c.hasArgs:
			rc.Status, rc.Reason = NotReplayable, "its arguments were not recorded"
		case hasRedactedValue(c.args):
			rc.Status, rc.Reason = NotReplayable, "its arguments were redacted when recorded"
		default:
			args, rewritten := rewriteIDs(c.tree, rep.IDs)
			rc.Rewritten = rewritten
			raw, err := json.Marshal(args)
			if err != nil {
				return rep, fmt.Errorf("replay: call %d (%s): arguments: %w", i, c.out.Tool, err)
			}
			if cfg.validate != nil {
				replayValidate(ctx, cfg.validate, c, raw, &rc)
			} else {
				res, err := dispatch(ctx, c.out.Tool, raw)
				replayJudge(c, res, err, &rc, cfg)
				if err == nil && c.hasResult {
					learnIDs(jsonOf(c.result), decodeResult(res), i, later, rep.IDs)
				}
			}
		}
		switch rc.Status {
		case Matched:
			rep.Counts.Matched++
		case Diverged:
			rep.Counts.Diverged++
		case NotReplayable:
			rep.Counts.NotReplayable++
		case Skipped:
			rep.Counts.Skipped++
		}
		rep.Calls = append(rep.Calls, rc)
	}
	rep.Diverged = rep.Counts.Diverged > 0
	return rep, nil
}

// replayValidate judges a dry-run call: valid arguments match.
func replayValidate(ctx context.Context, v Validator, c *diffCall, raw json.RawMessage, rc *ReplayedCall) {
	if err := v(ctx, c.out.Tool, raw); err != nil {
		rc.Status = Diverged
		rc.Replayed = &ReplayOutcome{OK: false, Code: codeOf(err), Message: failureMessage(err)}
		rc.Fields = []string{"valid"}
		return
	}
	rc.Status = Matched
	rc.Replayed = &ReplayOutcome{OK: true}
}

// replayJudge compares a dispatched call's outcome with the recorded one.
func replayJudge(c *diffCall, res json.RawMessage, err error, rc *ReplayedCall, cfg replayConfig) {
	out := &ReplayOutcome{OK: err == nil}
	if err != nil {
		out.Code, out.Message = codeOf(err), failureMessage(err)
	}
	rc.Replayed = out
	switch {
	case out.OK != c.out.OK:
		rc.Fields = []string{"ok"}
	case !out.OK && out.Code != "" && c.out.Code != "error" && out.Code != c.out.Code:
		rc.Fields = []string{"code"}
	}
	if len(rc.Fields) == 0 {
		rc.Status = Matched
		return
	}
	rc.Status = Diverged
	cl := changeList{max: cfg.maxChanges, maxValue: cfg.maxVal}
	var recorded any
	if c.hasResult {
		recorded = jsonOf(c.result)
	}
	switch {
	case err == nil && c.hasResult:
		cl.walk("result", recorded, decodeResult(res))
	case err == nil:
		cl.add("result", Added, nil, decodeResult(res))
	case c.hasResult:
		cl.add("result", Removed, recorded, nil)
	}
	if err != nil {
		cl.add("error", Added, nil, err.Error())
	}
	rc.Changes, rc.ChangesTotal = cl.out, cl.total
	rc.ChangesTruncated = cl.total > len(cl.out)
}

// codeOf is a failure's error code: ErrorCode() of the error or of one it
// wraps; "" when none says.
func codeOf(err error) string {
	var c interface{ ErrorCode() string }
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// failureMessage is err's message without the code a CallError puts in
// front of it: the outcome shows the code on its own.
func failureMessage(err error) string {
	return strings.TrimPrefix(err.Error(), codeOf(err)+": ")
}

// decodeResult reads a result as a JSON tree; a result that is not JSON
// is a string.
func decodeResult(res json.RawMessage) any {
	t := bytes.TrimSpace(res)
	if len(t) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(res)
	}
	if _, err := dec.Token(); err != io.EOF {
		return string(res)
	}
	if s, ok := v.(string); ok {
		return parseText(s)
	}
	return v
}

// budgetStopped returns the span ids of calls the token budget stopped
// (marked agenttrace.budget.exceeded).
func budgetStopped(recs []artifact.Record) map[string]bool {
	out := map[string]bool{}
	for i := range recs {
		sp := recs[i].Span
		if v, ok := sp.Attributes().Get(semconv.BudgetExceeded); ok && v.AsString() == "true" {
			out[sp.SpanID().String()] = true
		}
	}
	return out
}

// minSubstringID is the shortest id replay rewrites inside a longer
// string ("https://shop.example/orders/ord_8Kq2"); shorter ids are only
// rewritten where they are the whole value, so "e9" never touches "e90".
const minSubstringID = 8

// argStrings is what later calls' arguments hold: their string values,
// and their canonical text for ids inside longer strings.
type argStrings struct {
	leaves map[string]bool
	text   string
}

// laterArgs reads each call's argument strings once.
func laterArgs(calls []diffCall) []argStrings {
	out := make([]argStrings, len(calls))
	for i := range calls {
		out[i] = argStrings{leaves: map[string]bool{}, text: calls[i].canon}
		walkStrings(calls[i].tree, func(s string) { out[i].leaves[s] = true })
	}
	return out
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case string:
		f(x)
	}
}

// learnIDs walks a recorded result and the new one side by side: a string
// that differs at the same place, and that a later recorded call's
// arguments use, is an id the new run renamed.
func learnIDs(recorded, now any, i int, later []argStrings, ids map[string]string) {
	switch r := recorded.(type) {
	case map[string]any:
		if n, ok := now.(map[string]any); ok {
			for k, rv := range r {
				if nv, ok := n[k]; ok {
					learnIDs(rv, nv, i, later, ids)
				}
			}
		}
	case []any:
		if n, ok := now.([]any); ok {
			for k := range min(len(r), len(n)) {
				learnIDs(r[k], n[k], i, later, ids)
			}
		}
	case string:
		n, ok := now.(string)
		if !ok || n == r || r == "" {
			return
		}
		for _, l := range later[i+1:] {
			if l.leaves[r] || len(r) >= minSubstringID && strings.Contains(l.text, r) {
				ids[r] = n
				return
			}
		}
	}
}

// rewriteIDs returns a copy of the argument tree with learned ids
// replaced, and the paths it changed.
func rewriteIDs(v any, ids map[string]string) (any, []string) {
	if len(ids) == 0 {
		return v, nil
	}
	long := slices.Collect(maps.Keys(ids))
	// Longest first, so an id that contains another is replaced whole.
	slices.SortFunc(long, func(a, b string) int { return len(b) - len(a) })
	var paths []string
	var walk func(path string, v any) any
	walk = func(path string, v any) any {
		switch x := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = walk(joinKey(path, k), e)
			}
			return m
		case []any:
			s := make([]any, len(x))
			for i, e := range x {
				s[i] = walk(path+"["+strconv.Itoa(i)+"]", e)
			}
			return s
		case string:
			if n, ok := ids[x]; ok {
				paths = append(paths, path)
				return n
			}
			out := x
			for _, k := range long {
				if len(k) >= minSubstringID && strings.Contains(out, k) {
					out = strings.ReplaceAll(out, k, ids[k])
				}
			}
			if out != x {
				paths = append(paths, path)
			}
			return out
		}
		return v
	}
	out := walk("args", v)
	slices.Sort(paths)
	return out, paths
}

// WriteText renders the report for a terminal: the counts, then each call
// that did not match.
func (r *ReplayReport) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	c := r.Counts
	mode := "Replay"
	if r.DryRun {
		mode = "Dry run"
	}
	verdict := "every replayed call matched"
	if r.Diverged {
		verdict = "diverged"
	}
	p("%s  %s\n", mode, verdict)
	p("Calls    %d: %d matched, %d diverged, %d not replayable, %d skipped\n",
		c.Calls, c.Matched, c.Diverged, c.NotReplayable, c.Skipped)
	if len(r.IDs) > 0 {
		keys := slices.Sorted(maps.Keys(r.IDs))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " -> " + r.IDs[k]
		}
		p("Ids      %s\n", strings.Join(parts, ", "))
	}
	for _, rc := range r.Calls {
		if rc.Status == Matched {
			continue
		}
		p("\n[%d] %s", rc.Index, strings.ReplaceAll(string(rc.Status), "_", " "))
		if len(rc.Fields) > 0 {
			p(" (%s)", strings.Join(rc.Fields, ", "))
		}
		p("\n  was    %s\n", rc.Recorded.text())
		if rc.Reason != "" {
			p("  %s\n", rc.Reason)
		}
		if o := rc.Replayed; o != nil {
			switch {
			case o.OK:
				p("  now    ok\n")
			case o.Code != "":
				p("  now    failed %s: %s\n", o.Code, o.Message)
			default:
				p("  now    failed: %s\n", o.Message)
			}
		}
		writeChanges(&b, rc.Changes, rc.ChangesTruncated, rc.ChangesTotal)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
