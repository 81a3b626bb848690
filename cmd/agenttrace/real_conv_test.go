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
	for _, p := range paths {
		if l := strings.Replace(p, ".traces.", ".logs.", 1); l != p {
			if _, err := os.Stat(l); err == nil {
				args = append(args, l)
			}
		}
	}
	r := agenttrace(t, "", args...)
	require.Equal(t, 0, r.code, r.stderr)
	var turns []messageJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &turns))
	loop := false
	for _, tn := range turns {
		for _, ms := range [][]msgJSON{tn.Input, tn.Output} {
			for _, m := range ms {
				assert.NotEmpty(t, m.Parts, "span %s: an empty %s message", tn.SpanID, m.Role)
				for _, p := range m.Parts {
					assert.False(t, p.Type == "text" && p.Content == "null", "span %s: a text part reads null", tn.SpanID)
				}
			}
		}
		loop = loop || readsLoop(tn.Input, sc)
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
