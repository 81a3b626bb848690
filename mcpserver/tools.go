package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readOnly marks every tool: they read runs and change nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}

// anyObject is the output schema of the answers whose members include
// types with their own JSON form (a conversation's parts, judge's
// reports), which the SDK cannot infer a schema from: a JSON object, as
// docs/mcp.md describes it.
var anyObject = &jsonschema.Schema{Type: "object"}

// addTools registers the tools.
func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "list_runs", Annotations: readOnly,
		Description: "List the recorded runs in the served folder, newest first, with their tokens, cost, errors, budget, duration, agents, models and tools. " +
			"Filters, search, sort and pages as in agenttrace serve's list. Each row's run is the name the other tools take."}, s.listRuns)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "run_summary", Annotations: readOnly,
		Description: "Summarize one run: tokens per class (input, output, cache read and creation, reasoning), cost in dollars, budget status, " +
			"errors, and the largest models, agents and tools, as agenttrace tokens --json reports them, cut to their largest entries."}, s.runSummary)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "conversation", Annotations: readOnly, OutputSchema: anyObject,
		Description: "The conversation of one model call (span_id) or of every model call of a run, paged: system instructions, input and output messages " +
			"with their text, reasoning, tool calls and tool results, normalized across instrumentations (as agenttrace messages --json). " +
			"Secrets are redacted; values too long for the answer's bound are cut and say how much was left out."}, s.conversation)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "find_errors", Annotations: readOnly,
		Description: "List the failed spans of a run (model calls, tool calls, agents) with their error type and message, paged, and the lines of its file that could not be read."}, s.findErrors)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "diff_runs", Annotations: readOnly, OutputSchema: anyObject,
		Description: "Compare two runs' tool calls (as agenttrace diff --json): calls matched, diverged, inserted, removed or reordered, " +
			"changed arguments and results, and each run's calls, tokens, cost and time."}, s.diffRuns)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "audit_run", Annotations: readOnly, OutputSchema: anyObject,
		Description: "Audit a run's fidelity (as agenttrace audit --json): tool calls a model requested that never ran, calls no model requested, " +
			"argument drift, hidden retries, missing finish reasons, orphan spans, double instrumentation, silent failures. Paged."}, s.auditRun)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "explain_run", Annotations: readOnly, OutputSchema: anyObject,
		Description: "Say what agenttrace understood of a run and what it did not (as agenttrace explain --json): each span's kind and the rule that decided it, " +
			"model calls without usage or messages, tools without a name, usage that disagrees with children, attributes that look like usage but no rule reads. Paged."}, s.explainRun)
}
