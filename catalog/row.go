package catalog

import (
	"regexp"
	"strings"
	"time"
)

// Row is one run of a catalog. Its Parquet column names (the parquet
// tags) are the schema docs/catalog.md documents; its JSON form is what
// `agenttrace runs --json` prints. Token, record, error, cost and budget
// numbers are those of `agenttrace tokens --json` of the run's artifact.
type Row struct {
	// Run identifies the run within its location: the key of its first
	// object, without a generation or compression suffix (see [RunOf]).
	// A catalog keeps one row per Run, the latest.
	Run string `parquet:"run" json:"run"`
	// TraceID and ConversationID are the header's: set when the artifact
	// holds one trace, one conversation.
	TraceID        string `parquet:"trace_id" json:"trace_id,omitempty"`
	ConversationID string `parquet:"conversation_id" json:"conversation_id,omitempty"`
	Service        string `parquet:"service" json:"service,omitempty"`
	// RootName is the name of the run's earliest local root span; Agent
	// the name of its earliest agent; FirstPrompt the text of the first
	// user message of its first model call, as `agenttrace messages`
	// shows it (the artifact is redacted as it was written), cut to
	// [PromptChars] characters.
	RootName    string `parquet:"root_name" json:"root_name,omitempty"`
	Agent       string `parquet:"agent" json:"agent,omitempty"`
	FirstPrompt string `parquet:"first_prompt" json:"first_prompt,omitempty"`
	// Started is the header's started_at; Ended the latest span end (or
	// the trailer's finished_at when no span has ended); DurationMS the
	// time between them.
	Started    time.Time `parquet:"started,timestamp(millisecond)" json:"started"`
	Ended      time.Time `parquet:"ended,timestamp(millisecond)" json:"ended"`
	DurationMS int64     `parquet:"duration_ms" json:"duration_ms"`
	// Records counts records of every kind; Calls, Inferences, Agents,
	// Spans by kind; Errors the failed ones (tokens' "errors").
	Records    int64 `parquet:"records" json:"records"`
	Calls      int64 `parquet:"calls" json:"calls"`
	Inferences int64 `parquet:"inferences" json:"inferences"`
	Agents     int64 `parquet:"agents" json:"agents"`
	Spans      int64 `parquet:"spans" json:"spans"`
	Errors     int64 `parquet:"errors" json:"errors"`
	// Dropped and Truncated are tokens' "dropped" and "truncated".
	Dropped   int64 `parquet:"dropped" json:"dropped"`
	Truncated int64 `parquet:"truncated" json:"truncated"`
	// Problems counts the artifact's lines that could not be read and
	// were skipped (tokens reports them on standard error).
	Problems int64 `parquet:"problems" json:"problems"`
	// The token classes, tokens' "tokens".
	InputTokens         int64 `parquet:"input_tokens" json:"input_tokens"`
	OutputTokens        int64 `parquet:"output_tokens" json:"output_tokens"`
	CacheReadTokens     int64 `parquet:"cache_read_tokens" json:"cache_read_tokens"`
	CacheCreationTokens int64 `parquet:"cache_creation_tokens" json:"cache_creation_tokens"`
	ReasoningTokens     int64 `parquet:"reasoning_tokens" json:"reasoning_tokens"`
	TotalTokens         int64 `parquet:"total_tokens" json:"total_tokens"`
	// CostUSD is tokens' cost_usd: null when model calls were made and
	// none has a known cost. CostUnknown counts the unpriced calls.
	CostUSD     *float64 `parquet:"cost_usd,optional" json:"cost_usd"`
	CostUnknown int64    `parquet:"cost_unknown" json:"cost_unknown"`
	// The budget's state, tokens' "budget": zero when the run had none.
	BudgetTokens  int64   `parquet:"budget_tokens" json:"budget_tokens"`
	BudgetSpent   int64   `parquet:"budget_spent" json:"budget_spent"`
	OverBudget    bool    `parquet:"over_budget" json:"over_budget"`
	NearBudget    bool    `parquet:"near_budget" json:"near_budget"`
	BudgetUSD     float64 `parquet:"budget_usd" json:"budget_usd"`
	SpentUSD      float64 `parquet:"spent_usd" json:"spent_usd"`
	OverBudgetUSD bool    `parquet:"over_budget_usd" json:"over_budget_usd"`
	NearBudgetUSD bool    `parquet:"near_budget_usd" json:"near_budget_usd"`
	// Models and Tools are the names tokens' by_model and by_tool list.
	Models []string `parquet:"models,list" json:"models"`
	Tools  []string `parquet:"tools,list" json:"tools"`
	// Keys are the run's objects (a local artifact's path relative to its
	// folder; a bucket run's generations), Bytes their summed size.
	Keys  []string `parquet:"keys,list" json:"keys"`
	Bytes int64    `parquet:"bytes" json:"bytes"`
	// Version is the artifact format's version; Complete tells that its
	// last trailer says the writer closed it.
	Version  int32 `parquet:"format_version" json:"format_version"`
	Complete bool  `parquet:"complete" json:"complete"`
	// WrittenAt is when the row was written: of a run's rows, the one
	// with the latest wins.
	WrittenAt time.Time `parquet:"written_at,timestamp(nanosecond)" json:"written_at"`
	// Removed marks a tombstone: the run was removed (retention) and no
	// earlier row of it is listed.
	Removed bool `parquet:"removed" json:"removed,omitempty"`
}

// PromptChars is how many characters of the first prompt a row keeps.
const PromptChars = 200

// OverAnyBudget reports whether the run went over its token budget or its
// cost budget.
func (r *Row) OverAnyBudget() bool { return r.OverBudget || r.OverBudgetUSD }

// Cost is the row's known dollars, or -1 when none is known, for sorting
// and filtering.
func (r *Row) Cost() float64 {
	if r.CostUSD == nil {
		return -1
	}
	return *r.CostUSD
}

// own gives the row its own copy of every string. A row read from an
// artifact shares its strings with the reader's line buffer (64 KiB): a
// writer buffering 10,000 such rows kept 600 MB alive, not 10 MB.
func (r *Row) own() {
	for _, p := range []*string{&r.Run, &r.TraceID, &r.ConversationID, &r.Service, &r.RootName, &r.Agent, &r.FirstPrompt} {
		*p = strings.Clone(*p)
	}
	for _, l := range [][]string{r.Models, r.Tools, r.Keys} {
		for i := range l {
			l[i] = strings.Clone(l[i])
		}
	}
}

// generation matches a bucket object's generation and compression
// suffixes: "<id>.g2.jsonl.zst" is run "<id>.jsonl".
var generation = regexp.MustCompile(`(\.g[0-9]+)?\.jsonl(\.zst)?$`)

// RunOf returns the run an object key belongs to: the key without its
// generation (".gN") and compression (".zst") suffixes, so that every
// generation of a run names one run.
func RunOf(key string) string {
	if loc := generation.FindStringIndex(key); loc != nil {
		return key[:loc[0]] + ".jsonl"
	}
	return key
}

// partition is the folder of a row's catalog files: the UTC day the run
// started.
func partition(started time.Time) string {
	return "catalog/dt=" + started.UTC().Format(time.DateOnly) + "/"
}

// partitionDay parses the day out of a partition folder's key.
func partitionDay(key string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(key, "catalog/dt=")
	if !ok || len(rest) < len(time.DateOnly) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, rest[:len(time.DateOnly)])
	return t, err == nil
}
