package report

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
)

// NoAgent is the agent name under which a report lists model usage that
// no agent record encloses, so that by-agent rows still add up to the total.
const NoAgent = "(no agent)"

// Unknown names a model or tool that its span does not name.
const Unknown = "(unknown)"

// TokenReport says where a run's tokens went. Its JSON form is the
// contract of `agenttrace tokens --json`.
type TokenReport struct {
	// Records counts records by kind.
	Records RecordCounts `json:"records"`
	// Errors counts records whose span status is Error, as the trailer's
	// errors does: the budget stops among them too.
	Errors int64 `json:"errors"`
	// BudgetStopped counts the failed records the token budget stopped
	// (see [IsBudgetStop]), among the records in the file: part of Errors,
	// but the budget's doing, not a failure of the tool or model, so the
	// text report shows them apart.
	BudgetStopped int64 `json:"budget_stopped"`
	// Tokens is the usage of inference records, from artifact.Tally.
	Tokens artifact.Tokens `json:"tokens"`
	// Budget is the budget's state, nil when the run had no budget.
	Budget *artifact.BudgetStatus `json:"budget"`
	// FromTrailer is true when Tokens and Budget are taken from summary
	// trailers that account for records the file does not hold (see
	// [WithTrailer]): the run's true totals, which the breakdowns below,
	// made from the records in the file, do not add up to.
	FromTrailer bool `json:"from_trailer"`
	// InFile is what the records in the file add up to, set only when
	// FromTrailer: the totals the breakdowns add up to.
	InFile *artifact.Tokens `json:"in_file,omitempty"`
	// Dropped counts the records the trailers account for that are not in
	// the file: dropped by the producer (a full queue, a record cap) or
	// unreadable. Their usage is in Tokens; their details are nowhere.
	Dropped int64 `json:"dropped"`
	// Truncated counts attribute values the writer cut short to keep a
	// line readable: the markers (agenttrace.truncated.<key>, holding the
	// original length) of the records, or what the trailers count, if
	// more.
	Truncated int64 `json:"truncated"`
	// Notes say in words what the numbers above mean for a reader: that
	// records were dropped and their details are not in the file, that
	// values were truncated. Empty when there is nothing to say.
	Notes []string `json:"notes"`
	// Cost is what the run's model calls cost in dollars: the sum of the
	// costs that are known (a cost a span reports itself, else its usage
	// priced with the genai-prices data; see package pricing). cost_usd is
	// null when model calls were made and none has a known cost: a model
	// the data does not price costs "unknown", never $0. When some calls
	// are unpriced (cost_unknown > 0) it is a lower bound, and
	// CostUnknownModels says which models lack a price. When FromTrailer,
	// it covers the records in the file only: a dropped record's model is
	// not known.
	Cost
	// CostUnknownModels lists the models (as ByModel names them) with
	// model calls of no known cost, sorted: models the price data does not
	// know, and models of calls that reported no usage.
	CostUnknownModels []string `json:"cost_unknown_models"`
	// PriceData names the price data used: "genai-prices <version>".
	PriceData string `json:"price_data"`
	// Inferences is the cost of each model call, in record order, for a
	// viewer that shows one call's cost. Not part of the JSON report.
	Inferences []InferenceCost `json:"-"`
	// ByModel breaks inference usage down by provider and model, largest
	// total first.
	ByModel []ModelUsage `json:"by_model"`
	// ByTool breaks tool calls down by tool, most calls first.
	ByTool []ToolUsage `json:"by_tool"`
	// ByAgent attributes inference usage to the nearest enclosing agent,
	// largest total first.
	ByAgent []AgentUsage `json:"by_agent"`
	// FinishReasons counts inference finish reasons, normalized with
	// semconv.NormalizeFinishReason so dialects compare.
	FinishReasons map[string]int64 `json:"finish_reasons"`
	// Largest lists the largest model outputs and tool results, largest
	// first: the usual suspects when a context window fills up.
	Largest []Response `json:"largest"`
	// Failures lists the records whose status is Error, in record order.
	Failures []Failure `json:"failures"`
	// UsageLevels lists each span whose reported usage disagrees with the
	// sum of its children's (see semconv.Nesting): a wrapper reporting
	// its last step only, an agent holding more than its model calls
	// report. Tokens counts each subtree once, at the larger per class.
	UsageLevels []UsageLevel `json:"usage_levels"`
	// ReportedTotal is the run's total tokens as the source itself states
	// it (a trajectory log's final total_tokens), when that is more than
	// Tokens.Total; nil otherwise. Unattributed is the remainder no span
	// accounts for: ReportedTotal − Tokens.Total.
	ReportedTotal *int64 `json:"reported_total,omitempty"`
	Unattributed  int64  `json:"unattributed,omitempty"`
	// Evaluations sums up the gen_ai.evaluation.result verdicts of the
	// run by evaluation name, in name order (see [WithLogs] for verdicts
	// sent as log records).
	Evaluations []EvaluationSummary `json:"evaluations"`
}

// UsageLevel is a span whose own usage disagrees with its children's.
type UsageLevel struct {
	TraceID  string          `json:"trace_id"`
	SpanID   string          `json:"span_id"`
	Name     string          `json:"name"`
	Reported artifact.Tokens `json:"reported"`
	Children artifact.Tokens `json:"children"`
	// Counted is what the span adds beyond its children (zero when they
	// hold at least what it reports).
	Counted artifact.Tokens `json:"counted"`
}

// RecordCounts counts records by kind.
type RecordCounts struct {
	Call      int64 `json:"call"`
	Inference int64 `json:"inference"`
	Agent     int64 `json:"agent"`
	Span      int64 `json:"span"`
}

// Total returns the number of records of every kind.
func (c RecordCounts) Total() int64 { return c.Call + c.Inference + c.Agent + c.Span }

// ModelUsage is the usage of one model.
type ModelUsage struct {
	// Model is the response model, else the request model, else Unknown.
	Model string `json:"model"`
	// Provider is normalized with semconv.NormalizeProvider; empty when
	// the spans name none.
	Provider string `json:"provider,omitempty"`
	// Count is the number of inference records.
	Count int64 `json:"count"`
	artifact.Tokens
	Cost
	// PricedAs is the genai-prices model id its calls were priced as
	// (gpt-4o-2024-08-06 is priced as gpt-4o); empty when none was.
	PricedAs string `json:"priced_as,omitempty"`
}

// Cost is a row's cost: CostUSD sums the known costs of its model calls,
// null when it has calls and none has a known cost (the model's price is
// unknown); CostUnknown counts the calls without one, so a number with
// CostUnknown > 0 is a lower bound; CostFromSpans counts the calls whose
// span reported its own cost.
type Cost struct {
	CostUSD       *float64 `json:"cost_usd"`
	CostUnknown   int64    `json:"cost_unknown"`
	CostFromSpans int64    `json:"cost_from_spans"`
}

// InferenceCost is the cost of one model call. It holds no pointers or
// strings, so pricing every call of a large run allocates nothing.
type InferenceCost struct {
	// TraceID and SpanID find the span.
	TraceID pcommon.TraceID
	SpanID  pcommon.SpanID
	// USD is the cost in dollars, meaningful only when Source is not
	// pricing.Unknown: an unknown cost is unknown, not $0.
	USD    float64
	Source pricing.Source
	// PricedAs is the data's model the call was priced as, when Source
	// is pricing.FromPrices.
	PricedAs *pricing.Model
}

// ToolUsage is what one tool's calls cost.
type ToolUsage struct {
	// Tool is the tool's name, or Unknown.
	Tool string `json:"tool"`
	// Calls counts the call records; Errors those that failed.
	Calls  int64 `json:"calls"`
	Errors int64 `json:"errors"`
	// EstimatedTokens is the sum of artifact.CallEstimate: what the
	// results add to the model's context.
	EstimatedTokens int64 `json:"estimated_tokens"`
	// DurationMS is the calls' summed duration in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// AgentUsage is the model usage under one agent name.
type AgentUsage struct {
	// Agent is gen_ai.agent.name, else the agent span's name, or NoAgent.
	Agent string `json:"agent"`
	// Runs counts the agent records of that name (0 for NoAgent).
	Runs int64 `json:"runs"`
	// Inferences counts the inference records attributed to it.
	Inferences int64 `json:"inferences"`
	artifact.Tokens
	Cost
}

// Response is one model output or tool result, sized.
type Response struct {
	// Kind is "inference" (a model output) or "call" (a tool result).
	Kind string `json:"kind"`
	// TraceID, SpanID and Name find the span in a viewer.
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
	Name    string `json:"name"`
	// Model or Tool says who produced the response.
	Model string `json:"model,omitempty"`
	Tool  string `json:"tool,omitempty"`
	// Bytes is the size of the output or result as recorded.
	Bytes int64 `json:"bytes"`
	// Tokens is the output tokens of an inference, or the estimated
	// tokens of a call's result.
	Tokens int64 `json:"tokens"`
}

// Failure is one record whose status is Error.
type Failure struct {
	Kind    string `json:"kind"`
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
	Name    string `json:"name"`
	// Code is error.type, else "error".
	Code string `json:"code,omitempty"`
	// Message is the span's status description.
	Message string `json:"message,omitempty"`
}
