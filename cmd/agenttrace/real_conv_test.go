package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// historyGaps: tool-loop scenarios whose library does not export the
// loop's history (the assistant's tool call and the tool's result as the
// next call's input), keyed "library/scenario". Each is verified: no model
// call of the payload reads the loop, so a capture that starts carrying it
// fails until its entry goes.
var historyGaps = map[string]string{
	"mastra/tool-loop": "@mastra/core 1.71.0 writes no input on the chat span, and the agent step's " +
		"mastra.model_step.input (which the call inherits) summarises the tool call and result as the texts " +
		"\"[tool: get_weather]\" and \"[tool-result: get_weather]\"",
	"mastra-arize/tool-loop": "@mastra/core with its Arize (OpenInference) exporter writes the step's history " +
		"with the tool call and result summarised as the texts \"[tool: get_weather]\" and \"[tool-result: get_weather]\"",
	"llamaindex/tool-loop": "@traceloop/instrumentation-llamaindex 0.27.0 writes the assistant's tool call as an " +
		"empty text part and the tool's result as a user message",
	"openai-agents/responses-tool-loop": "openlit 1.15.0 tracing @openai/agents 0.20.0 records only the user's " +
		"prompt as each chat span's input, never the function call or its output",
	"openlit/responses-tool-loop": "openlit 1.15.0 records only the user's prompt as a Responses API call's " +
		"input, never the function call or its output",
	"anthropic-sdk/tool-loop": anthropicMetadataOnly,
}

// checkHistory: where the source carries the tool loop's history, some
// model call's input reads prompt -> assistant tool call -> tool result in
// that order; and in every payload no message is empty and no text part
// reads "null". Log records captured beside the spans (payloads/*.logs.*,
// the official OpenTelemetry instrumentation's content) are read with them.
func checkHistory(t *testing.T, paths []string, sc realScenario, key string) {
	t.Helper()
	args := append([]string{"messages", "--json"}, paths...)
	withLogs := false
	for _, p := range paths {
		if l := strings.Replace(p, ".traces.", ".logs.", 1); l != p {
			if _, err := os.Stat(l); err == nil {
				args = append(args, l)
				withLogs = true
			}
		}
	}
	r := agenttrace(t, "", args...)
	require.Equal(t, 0, r.code, r.stderr)
	var turns []messageJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &turns))
	var parts []convTurn
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &parts))
	loop := false
	for i, tn := range turns {
		for _, ms := range [][]msgJSON{tn.Input, tn.Output} {
			for _, m := range ms {
				assert.NotEmpty(t, m.Parts, "span %s: an empty %s message", tn.SpanID, m.Role)
				for _, p := range m.Parts {
					assert.False(t, p.Type == "text" && p.Content == "null", "span %s: a text part reads null", tn.SpanID)
				}
			}
		}
		checkParts(t, parts[i])
		loop = loop || readsLoop(tn.Input, sc)
	}
	if withLogs {
		checkLogContent(t, parts, sc)
	}
	if len(sc.Tools) == 0 || sc.ChatCalls < 2 && sc.ModelCalls < 2 {
		return
	}
	if reason, ok := historyGaps[key]; ok {
		assert.False(t, loop, "history gap: %s", reason)
		return
	}
	assert.True(t, loop, "some model call's input reads prompt -> assistant tool call -> tool result")
}

// readsLoop: the messages hold the prompt as a user text, then an
// assistant's call of one of the scenario's tools, then a tool result.
func readsLoop(ms []msgJSON, sc realScenario) bool {
	state := 0
	for _, m := range ms {
		for _, p := range m.Parts {
			switch {
			case state == 0 && m.Role == "user" && p.Type == "text" && (sc.Prompt == nil || p.Content == *sc.Prompt):
				state = 1
			case state == 1 && m.Role == "assistant" && p.Type == "tool_call" && sc.Tools[p.Name] > 0:
				state = 2
			case state == 2 && p.Type == "tool_call_response":
				return true
			}
		}
	}
	return false
}

// checkLogContent: where the content is in log records beside the spans
// (checkMessages reads the spans alone), the prompt is a user text part
// and the answer an assistant text part of some model call.
func checkLogContent(t *testing.T, turns []convTurn, sc realScenario) {
	t.Helper()
	var users, answers []string
	for _, tn := range turns {
		for _, m := range tn.Input {
			for _, p := range m.Parts {
				if m.Role == "user" && p.Type == "text" {
					users = append(users, p.Content)
				}
			}
		}
		for _, m := range tn.Output {
			for _, p := range m.Parts {
				if m.Role == "assistant" && p.Type == "text" {
					answers = append(answers, p.Content)
				}
			}
		}
	}
	if sc.Prompt != nil {
		assert.Contains(t, users, *sc.Prompt, "with the logs, the prompt is a user text part")
	}
	if sc.Answer != nil {
		assert.Contains(t, answers, *sc.Answer, "with the logs, the answer is an assistant text part")
	}
}

// convTurn is a turn of messages --json with every part's members.
type convTurn struct {
	SpanID string        `json:"span_id"`
	System []convPart    `json:"system"`
	Input  []convMessage `json:"input"`
	Output []convMessage `json:"output"`
}

type convMessage struct {
	Role  string     `json:"role"`
	Parts []convPart `json:"parts"`
}

type convPart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
}

// checkParts: provider-native content blocks (OpenAI chat and Responses
// items, Anthropic blocks, Bedrock Converse blocks, Gemini parts) became
// the conventions' parts: no text part holds one as JSON; every tool call
// has a name, every tool result a response.
func checkParts(t *testing.T, tn convTurn) {
	t.Helper()
	check := func(role string, p convPart) {
		switch p.Type {
		case "text", "reasoning":
			var v any
			if json.Unmarshal([]byte(p.Content), &v) == nil {
				if b := nativeBlock(v); b != "" {
					assert.Fail(t, "a provider-native block shown raw", "span %s: a %s %s part holds %s: %.200s", tn.SpanID, role, p.Type, b, p.Content)
				}
			}
		case "tool_call":
			assert.NotEmpty(t, p.Name, "span %s: a tool call without a name", tn.SpanID)
		case "tool_call_response":
			assert.NotContains(t, []string{"", "null", `""`}, string(p.Response), "span %s: a tool result without a response", tn.SpanID)
		}
	}
	for _, p := range tn.System {
		check("system", p)
	}
	for _, ms := range [][]convMessage{tn.Input, tn.Output} {
		for _, m := range ms {
			for _, p := range m.Parts {
				check(m.Role, p)
			}
		}
	}
}

// nativeBlocks are the members and type values by which a provider's own
// content block is known: Bedrock Converse and Strands (toolUse,
// toolResult, reasoningContent), Gemini (functionCall, functionResponse,
// inlineData, fileData), Anthropic (tool_use, tool_result, thinking),
// OpenAI Responses (function_call, function_call_output, input_text,
// output_text), the AI SDK (tool-call, tool-result).
var nativeBlocks = []string{"toolUse", "toolResult", "reasoningContent", "functionCall", "functionResponse",
	"inlineData", "fileData", "tool_use", "tool_result", "thinking", "function_call", "function_call_output",
	"input_text", "output_text", "tool-call", "tool-result"}

// nativeBlock names the provider-native block v holds, at any depth, or
// "": an object with a member of nativeBlocks or a type of them, a Gemini
// thought part, or a list of Bedrock text blocks ([{"text": ...}]).
func nativeBlock(v any) string {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range nativeBlocks {
			if _, ok := t[k]; ok {
				return k
			}
			if s, _ := t["type"].(string); s == k {
				return "type " + k
			}
		}
		if th, _ := t["thought"].(bool); th {
			return "thought"
		}
		for _, e := range t {
			if b := nativeBlock(e); b != "" {
				return b
			}
		}
	case []any:
		textBlocks := len(t) > 0
		for _, e := range t {
			m, ok := e.(map[string]any)
			_, hasText := m["text"]
			textBlocks = textBlocks && ok && hasText && len(m) == 1
			if b := nativeBlock(e); b != "" {
				return b
			}
		}
		if textBlocks {
			return "text blocks"
		}
	}
	return ""
}
