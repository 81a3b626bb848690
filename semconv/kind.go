package semconv

import "fmt"

// Kind is the class of a record: what a viewer draws and what a report counts.
type Kind uint8

// Record kinds, in the order reports list them.
const (
	// Span is any span that is not a GenAI call, inference or agent; it is
	// kept so the trace stays whole.
	Span Kind = iota
	// Call is a tool execution (execute_tool, ai.toolCall, an OpenInference
	// TOOL span, a Traceloop tool).
	Call
	// Inference is a model round-trip (chat, text_completion,
	// generate_content, embeddings, retrieval, and their dialect forms).
	Inference
	// Agent is an agent or workflow invocation, including wrapper spans such
	// as ai.generateText whose usage repeats their children's.
	Agent
)

// NumKinds is the number of kinds, for arrays indexed by Kind.
const NumKinds = 4

var kindNames = [NumKinds]string{"span", "call", "inference", "agent"}

// String returns the kind as it is spelled in an artifact.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the kind spelled s, and false for an unknown kind
// (which readers count and skip).
func ParseKind(s string) (Kind, bool) {
	switch s {
	case "span":
		return Span, true
	case "call":
		return Call, true
	case "inference":
		return Inference, true
	case "agent":
		return Agent, true
	}
	return 0, false
}

// CountsTokens reports whether usage on records of this kind counts toward
// totals and budgets. Only model round-trips do: agent and wrapper spans
// repeat the usage of the model calls under them.
func (k Kind) CountsTokens() bool { return k == Inference }
