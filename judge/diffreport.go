package judge

import (
	"time"

	"github.com/agenttrace/agenttrace/artifact"
)

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
	Tokens            artifact.Tokens `json:"tokens"`
	TokensFromTrailer bool            `json:"tokens_from_trailer,omitempty"`
	// Cost sums the cost the records carry (gen_ai.usage.cost and its
	// aliases); null when none carries one.
	Cost *float64 `json:"cost"`
	// DurationMS is the time from the first record's start to the last
	// one's end.
	DurationMS int64 `json:"duration_ms"`
	// Budget is the token budget's state as the summary trailer records
	// it (which counts what was dropped); absent without one.
	Budget *artifact.BudgetStatus `json:"budget,omitempty"`
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
