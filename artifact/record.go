package artifact

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// Version is the artifact schema version this package writes and reads.
const Version = 1

// Producer names this library in the headers it writes.
const Producer = "agenttrace/0.1.0"

// A Record is one line of an artifact: one span, whole, with the resource
// and instrumentation scope it was reported under.
//
// A Record does not store its kind or its GenAI facts: they are read off the
// span with [Record.Read], the same way everywhere, so a record read from a
// file and one built from OTLP never disagree.
type Record struct {
	Span              ptrace.Span
	Resource          pcommon.Resource
	ResourceSchemaURL string
	Scope             pcommon.InstrumentationScope
	ScopeSchemaURL    string
	// InFlight marks a start record: the span as it was when it started
	// (a writer's OnStart), not ended yet, written "in_flight":true with
	// no finished_at. The span's ended record, later in the file,
	// supersedes it. A Reader returns such records only WithInFlight;
	// they count in no total, budget or trailer.
	InFlight bool
}

// Read classifies the record's span into r.
func (rec *Record) Read(r *semconv.Reading) {
	semconv.Read(r, rec.Span.Name(), rec.Span.Attributes(), rec.Span.Status().Code() == ptrace.StatusCodeError)
	r.SetScope(rec.Scope.Name(), rec.Scope.Version())
}

// Meta is the header line of an artifact.
type Meta struct {
	// Version is the schema version, 1.
	Version int
	// StartedAt is when the run started; required.
	StartedAt time.Time
	// Producer names the writer, e.g. "agenttrace/0.1.0".
	Producer string
	// CoreVersion is what older tool-dispatch traces carry instead of Producer.
	CoreVersion string
	// TraceID is set when the artifact holds one trace.
	TraceID string
	// ConversationID is set when the artifact holds one conversation.
	ConversationID string
	// Service is the resource's service.name, for listing runs.
	Service string
	// Resource and Scope are the defaults for records that carry neither.
	Resource          pcommon.Resource
	ResourceSchemaURL string
	Scope             pcommon.InstrumentationScope
	ScopeSchemaURL    string
	// Budget is the token and cost budget the run was held to, if any. In
	// OTLP it travels as the resource attributes agenttrace.budget.tokens,
	// agenttrace.budget.usd and agenttrace.budget.warn_threshold: a
	// header's budget and those
	// attributes of its resource are one fact, written once (in the header)
	// and present in both once read, so JSONL -> OTLP -> JSONL keeps it.
	Budget *Budget
	// Redacted tells that content was redacted before writing; in OTLP, the
	// resource attribute agenttrace.redacted, like Budget.
	Redacted bool
	// SecretsScanned tells that the writer scanned every string for
	// secrets (package redact) and replaced what it found, so the CLI
	// need not scan again before it writes, shows or sends the run. It has
	// no OTLP form: OTLP makes no such promise, and a flag that became a
	// resource attribute would add one to every span converted back.
	SecretsScanned bool
}

// NewMeta returns a header with empty resource and scope, ready to fill.
func NewMeta(startedAt time.Time) *Meta {
	return &Meta{
		Version:   Version,
		StartedAt: startedAt,
		Producer:  Producer,
		Resource:  pcommon.NewResource(),
		Scope:     pcommon.NewInstrumentationScope(),
	}
}

// Budget is a token budget, a cost budget, or both: what the header
// promises to hold the run to.
type Budget struct {
	// Tokens is the budget in tokens (input + output of model calls); 0
	// when the run has only a cost budget.
	Tokens int64
	// USD is the cost budget in dollars (the header's budget_usd); 0 means
	// none. The dollars spent are the known costs of the model calls (see
	// [CostBudget]).
	USD float64
	// WarnThreshold is the fraction of Tokens at which a run is near its
	// budget; 0 means the default, 0.8.
	WarnThreshold float64
}

// DefaultWarnThreshold is the near-budget fraction used when none is set.
const DefaultWarnThreshold = 0.8

// Threshold returns the warn threshold, or the default when unset.
func (b Budget) Threshold() float64 {
	if b.WarnThreshold <= 0 {
		return DefaultWarnThreshold
	}
	return b.WarnThreshold
}

// Status returns the budget's state after spent tokens. Over budget means
// the budget is used up (spent >= tokens): a guard refuses the next call.
func (b Budget) Status(spent int64) BudgetStatus {
	st := BudgetStatus{
		BudgetTokens:  b.Tokens,
		Spent:         spent,
		Remaining:     max(b.Tokens-spent, 0),
		WarnThreshold: b.Threshold(),
	}
	st.OverBudget = b.Tokens > 0 && spent >= b.Tokens
	st.NearBudget = !st.OverBudget && b.Tokens > 0 && float64(spent) >= st.WarnThreshold*float64(b.Tokens)
	return st
}

// BudgetStatus is a budget's state: what the summary trailer records and
// what a live guard reports.
type BudgetStatus struct {
	BudgetTokens  int64   `json:"budget_tokens"`
	Spent         int64   `json:"spent"`
	Remaining     int64   `json:"remaining"`
	OverBudget    bool    `json:"over_budget"`
	NearBudget    bool    `json:"near_budget"`
	WarnThreshold float64 `json:"warn_threshold"`
	// CostBudget is the cost budget's state, nil when the budget has no
	// budget_usd. Its members sit beside the token members in JSON, as in
	// the trailer; OverBudget and NearBudget keep their token meaning, so
	// readers written before cost budgets judge them as before.
	*CostBudget
}

// Tokens are token totals over a run's model calls.
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
	Reasoning     int64 `json:"reasoning"`
	Total         int64 `json:"total"`
}

// Summary is the trailer line: counts, tokens and budget, and a
// completeness marker. Readers recompute it; see [Tally].
type Summary struct {
	FinishedAt time.Time
	// Complete is true when the writer closed the artifact normally.
	Complete   bool
	Records    int64
	Calls      int64
	Inferences int64
	Agents     int64
	Spans      int64
	Errors     int64
	Tokens     Tokens
	Budget     *BudgetStatus
	// Dropped counts spans the producer saw but did not write (a full
	// queue, a record cap). Totals still include what a cap dropped.
	Dropped int64
	// Truncated counts attribute values the writer cut short to keep a
	// line within the reader's limit; each carries a marker attribute
	// with its original length (see [TruncatedPrefix]). Written only
	// when not 0.
	Truncated int64
}
