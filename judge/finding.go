package judge

import (
	"fmt"
	"strings"
)

// Severity says how much a finding matters.
type Severity string

// The severities, least severe first.
const (
	Info    Severity = "info"
	Warning Severity = "warning"
	Error   Severity = "error"
)

// Severities lists the severities, least severe first.
func Severities() []Severity { return []Severity{Info, Warning, Error} }

func (s Severity) rank() int {
	switch s {
	case Info:
		return 1
	case Warning:
		return 2
	case Error:
		return 3
	}
	return 0
}

// AtLeast reports whether s is as severe as t or more.
func (s Severity) AtLeast(t Severity) bool { return s.rank() >= t.rank() }

// ParseSeverity reads "info", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	if v := Severity(s); v.rank() > 0 {
		return v, nil
	}
	return "", fmt.Errorf("unknown severity %q: want info, warning or error", s)
}

// Category names what a finding is about.
type Category string

// The audit categories.
const (
	// MissingCall: a model requested a tool call that no call record
	// carries. The trace lost the call, or the agent silently skipped it.
	MissingCall Category = "missing_call"
	// PhantomCall: a call record carries a tool call id that no model
	// requested.
	PhantomCall Category = "phantom_call"
	// ArgumentDrift: a call ran with arguments other than the ones the
	// model requested under the same tool call id.
	ArgumentDrift Category = "argument_drift"
	// HiddenRetry: a model call repeats the whole input of the previous
	// model call, which failed or whose output nothing acted on, without
	// the trace saying it is a retry.
	HiddenRetry Category = "hidden_retry"
	// TokenUnderreport: an agent reports fewer tokens than the model
	// calls under it spent.
	TokenUnderreport Category = "token_underreport"
	// MissingFinishReason: a generation that does not say why it stopped.
	MissingFinishReason Category = "missing_finish_reason"
	// OrphanSpan: a span whose parent is not in the input.
	OrphanSpan Category = "orphan_span"
	// DoubleInstrumentation: a model call recorded twice, by two
	// instrumentations at once (a framework's span around the provider
	// SDK's own, an agent-boundary recorder around a chat-boundary one):
	// an inference directly under an inference with the same request, or
	// whose usage is the sum of the model calls under it. Totals and
	// budgets count it once (the outer one is a wrapper, see
	// converter.Wrappers); the finding says the trace holds it twice.
	DoubleInstrumentation Category = "double_instrumentation"
	// SilentFailure: a model call under an agent that carries nothing it
	// returned: no usage, no output, no finish reason, no error, and no
	// attribute beyond the ones naming the call (operation, provider,
	// model, server). The call most likely failed without its
	// instrumentation saying so; totals count it as nothing.
	SilentFailure Category = "silent_failure"
)

// Categories lists the audit categories in the order the checks run;
// the last, SuppressedFinishReason, only [Reconcile] finds.
func Categories() []Category {
	return []Category{MissingCall, PhantomCall, ArgumentDrift, HiddenRetry, TokenUnderreport, MissingFinishReason, OrphanSpan,
		DoubleInstrumentation, SilentFailure, SuppressedFinishReason}
}

// Severity is the severity of the category's findings.
func (c Category) Severity() Severity {
	switch c {
	case MissingCall, ArgumentDrift, TokenUnderreport:
		return Error
	case PhantomCall, HiddenRetry, MissingFinishReason, OrphanSpan, SuppressedFinishReason, DoubleInstrumentation, SilentFailure:
		return Warning
	}
	return Info
}

// Finding is one fidelity problem in a trace. Its JSON form is part of the
// contract of `agenttrace audit --json`.
type Finding struct {
	Category Category `json:"category"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// TraceID and SpanIDs find the spans involved; the first span id is
	// the one the finding is about.
	TraceID string   `json:"trace_id"`
	SpanIDs []string `json:"span_ids"`
	// ToolCallID is the tool call concerned, when there is one.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// A and B locate the finding in each recording, for a finding of
	// [Reconcile]; absent for [Audit], which reads one.
	A *Location `json:"a,omitempty"`
	B *Location `json:"b,omitempty"`
}

// String renders the finding on one line: "severity category: message
// (trace …, span …, tool call …)".
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s (trace %s", f.Severity, f.Category, f.Message, f.TraceID)
	if len(f.SpanIDs) > 0 {
		b.WriteString(", span " + strings.Join(f.SpanIDs, ", "))
	}
	if f.ToolCallID != "" {
		b.WriteString(", tool call " + f.ToolCallID)
	}
	b.WriteString(")")
	if f.A != nil && f.B != nil {
		b.WriteString(" [A: " + f.A.text() + "; B: " + f.B.text() + "]")
	}
	return b.String()
}
