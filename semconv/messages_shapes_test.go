package semconv

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Shapes of content each source writes, read into the conventions'
// parts. Each case says where its data came from; the expectations are
// written by hand from that data.
func TestMessagesShapes(t *testing.T) {
	const (
		sys    = `{"type":"text","content":"You are a concise weather assistant. Use the tools when needed."}`
		prompt = `{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris today?"}]}`
		answer = `It is 18 degrees Celsius and sunny in Paris today.`
	)
	cases := []struct {
		name   string
		span   ptrace.Span
		system string // JSON arrays; "" skips the check
		input  string
		output string
	}{
		{
			// testdata/real/openinference-openai/payloads/tool-loop.traces.json,
			// the second call, its tool's result a JSON object (the shape
			// issue 21 reports empty on OpenInference and OpenLLMetry).
			name: "openinference flat tool message with JSON content",
			span: spanWith([]any{
				"llm.input_messages.0.message.role", "user",
				"llm.input_messages.0.message.content", "What is the weather in Paris today?",
				"llm.input_messages.1.message.role", "assistant",
				"llm.input_messages.1.message.tool_calls.0.tool_call.id", "call_weather_1",
				"llm.input_messages.1.message.tool_calls.0.tool_call.function.name", "get_weather",
				"llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments", `{"city":"Paris"}`,
				"llm.input_messages.2.message.role", "tool",
				"llm.input_messages.2.message.content", `{"temp_c":18,"sky":"sunny"}`,
				"llm.input_messages.2.message.tool_call_id", "call_weather_1",
			}),
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_weather_1","response":{"sky":"sunny","temp_c":18}}]}]`,
		},
		{
			// OpenLLMetry's flattened prompt writes a null content beside
			// tool calls as the text "null" (gen_ai.prompt.N.content).
			name: "openllmetry null content beside tool calls",
			span: spanWith([]any{
				"gen_ai.prompt.0.role", "user",
				"gen_ai.prompt.0.content", "What is the weather in Paris today?",
				"gen_ai.prompt.1.role", "assistant",
				"gen_ai.prompt.1.content", "null",
				"gen_ai.prompt.1.tool_calls.0.id", "call_weather_1",
				"gen_ai.prompt.1.tool_calls.0.name", "get_weather",
				"gen_ai.prompt.1.tool_calls.0.arguments", `{"city":"Paris"}`,
				"gen_ai.prompt.2.role", "tool",
				"gen_ai.prompt.2.content", `{"temp_c":18}`,
				"gen_ai.prompt.2.tool_call_id", "call_weather_1",
			}),
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_weather_1","response":{"temp_c":18}}]}]`,
		},
		{
			// testdata/real/strands-agents/payloads/tool-loop.traces.json,
			// the second chat span: Bedrock Converse blocks as JSON text in
			// per-message events.
			name: "strands converse blocks in events",
			span: spanWith(nil,
				[]any{"gen_ai.system.message", "content", `[{"text":"You are a concise weather assistant. Use the tools when needed."}]`},
				[]any{"gen_ai.user.message", "content", `[{"text":"What is the weather in Paris today?"}]`},
				[]any{"gen_ai.assistant.message", "content", `[{"toolUse":{"name":"get_weather","toolUseId":"call_weather_1","input":{"city":"Paris"}}}]`},
				[]any{"gen_ai.tool.message", "content", `[{"toolResult":{"toolUseId":"call_weather_1","status":"success","content":[{"text":"18 degrees Celsius and sunny"}]}}]`},
				[]any{"gen_ai.choice", "finish_reason", "endTurn", "message", `[{"text":"It is 18 degrees Celsius and sunny in Paris today."}]`},
			),
			system: `[` + sys + `]`,
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_weather_1","response":"18 degrees Celsius and sunny"}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"` + answer + `"}],"finish_reason":"` + NormalizeFinishReason("endTurn") + `"}]`,
		},
		{
			// The same file, the first chat span: a typed toolUse block.
			name: "strands typed toolUse choice",
			span: spanWith(nil,
				[]any{"gen_ai.choice", "finish_reason", "toolUse", "message", `[{"type":"toolUse","name":"get_weather","toolUseId":"call_weather_1","input":{"city":"Paris"}}]`},
			),
			output: `[{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}],"finish_reason":"` + NormalizeFinishReason("toolUse") + `"}]`,
		},
		{
			// The Gemini request the AI SDK sent, from
			// testdata/real/vercel-ai-google/payloads/model-log.jsonl (seq 2),
			// kept as Google ADK keeps it, plus a thought part.
			name: "gemini contents in an ADK llm_request",
			span: spanWith([]any{
				ADKLLMRequest, `{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris today?"}]},` +
					`{"role":"model","parts":[{"text":"The user wants weather.","thought":true},{"functionCall":{"id":"CXEeMZoBWd4UFIyG","name":"get_weather","args":{"city":"Paris"}}}]},` +
					`{"role":"user","parts":[{"functionResponse":{"id":"CXEeMZoBWd4UFIyG","name":"get_weather","response":{"name":"get_weather","content":"18 degrees Celsius and sunny"}}}]}],` +
					`"systemInstruction":{"parts":[{"text":"You are a concise weather assistant. Use the tools when needed."}]}}`,
				ADKLLMResponse, `{"content":{"role":"model","parts":[{"text":"It is 18 degrees Celsius and sunny in Paris today."}]},"finish_reason":"STOP"}`,
			}),
			system: `[` + sys + `]`,
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"reasoning","content":"The user wants weather."},{"type":"tool_call","id":"CXEeMZoBWd4UFIyG","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"user","parts":[{"type":"tool_call_response","id":"CXEeMZoBWd4UFIyG","response":"18 degrees Celsius and sunny"}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"` + answer + `"}],"finish_reason":"stop"}]`,
		},
		{
			// A Gemini generateContent response (the harness server's,
			// testdata/real/harness/server.mjs) kept in output.value, with
			// inline and file data.
			name: "gemini candidates in output.value",
			span: spanWith([]any{
				OIOutputValue, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Here."},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/f.pdf"}}]},"finishReason":"STOP"}]}`,
			}),
			output: `[{"role":"assistant","parts":[{"type":"text","content":"Here."},{"type":"blob","modality":"image","mime_type":"image/png","content":"iVBORw0KGgo="},{"type":"uri","modality":"document","mime_type":"application/pdf","uri":"gs://b/f.pdf"}],"finish_reason":"stop"}]`,
		},
		{
			// A Bedrock Converse request and response (the API's documented
			// shape), kept in input.value / output.value.
			name: "bedrock converse bodies",
			span: spanWith([]any{
				OIInputValue, `{"system":[{"text":"You are a concise weather assistant. Use the tools when needed."}],"messages":[` +
					`{"role":"user","content":[{"text":"What is the weather in Paris today?"}]},` +
					`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"Need the tool."}}},{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Paris"}}}]},` +
					`{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"json":{"temp_c":18}}],"status":"success"}}]}]}`,
				OIOutputValue, `{"output":{"message":{"role":"assistant","content":[{"text":"It is 18 degrees Celsius and sunny in Paris today."}]}},"stopReason":"end_turn"}`,
			}),
			system: `[` + sys + `]`,
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"reasoning","content":"Need the tool."},{"type":"tool_call","id":"t1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"user","parts":[{"type":"tool_call_response","id":"t1","response":{"temp_c":18}}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"` + answer + `"}],"finish_reason":"stop"}]`,
		},
		{
			// An Anthropic Messages request (testdata/real/harness/server.mjs
			// speaks it) whose tool_result holds nested text blocks.
			name: "anthropic tool_result with nested blocks",
			span: spanWith([]any{
				InputMessages, `[{"role":"user","content":"What is the weather in Paris today?"},` +
					`{"role":"assistant","content":[{"type":"thinking","thinking":"Use the tool."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},` +
					`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"18 degrees"},{"type":"text","text":"sunny"}]}]}]`,
			}),
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"reasoning","content":"Use the tool."},{"type":"tool_call","id":"toolu_1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"user","parts":[{"type":"tool_call_response","id":"toolu_1","response":"18 degrees\nsunny"}]}]`,
		},
		{
			// An OpenAI Responses API request (the harness server's
			// /v1/responses): instructions, input items with a
			// function_call and its function_call_output.
			name: "openai responses items in input.value",
			span: spanWith([]any{
				OIInputValue, `{"instructions":"You are a concise weather assistant. Use the tools when needed.","input":[` +
					`{"role":"user","content":"What is the weather in Paris today?"},` +
					`{"type":"function_call","id":"fc_1","call_id":"call_weather_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},` +
					`{"type":"function_call_output","call_id":"call_weather_1","output":"18 degrees Celsius and sunny"}]}`,
			}),
			system: `[` + sys + `]`,
			input: `[` + prompt + `,` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
				`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_weather_1","response":"18 degrees Celsius and sunny"}]}]`,
		},
		{
			// OpenLIT writes a tool's result as a text part of the tool role
			// (testdata/real/openlit/payloads/tool-loop.traces.json).
			name: "conventions tool role with a text part",
			span: spanWith([]any{
				InputMessages, `[{"role":"tool","parts":[{"type":"text","content":"18 degrees Celsius and sunny"}]}]`,
			}),
			input: `[{"role":"tool","parts":[{"type":"tool_call_response","id":"","response":"18 degrees Celsius and sunny"}]}]`,
		},
		{
			// Content no rule reads is kept as JSON text, never dropped.
			name: "unknown shapes kept as text",
			span: spanWith([]any{
				InputMessages, `[{"role":"user","content":{"weird":1}},{"role":"user","content":[{"zzz":2}]},42]`,
			}),
			input: `[{"role":"user","parts":[{"type":"text","content":"{\"weird\":1}"}]},` +
				`{"role":"user","parts":[{"type":"text","content":"{\"zzz\":2}"}]},` +
				`{"role":"user","parts":[{"type":"text","content":"42"}]}]`,
		},
		{
			// Mastra's step output and model chunk through OpenInference's
			// output.value (testdata/real/mastra-arize/payloads/tool-loop.traces.pb).
			name: "ai sdk result with toolCalls in output.value",
			span: spanWith([]any{
				OIOutputValue, `{"text":"","toolCalls":[{"toolCallId":"call_weather_1","toolName":"get_weather","args":{"city":"Paris"}}]}`,
			}),
			output: `[{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}]}]`,
		},
		{
			// The failed step's result, testdata/real/mastra-arize/payloads/fail.traces.pb.
			name: "empty ai sdk result in output.value",
			span: spanWith([]any{
				OIOutputValue, `{"text":"","toolCalls":[]}`,
			}),
			output: `[]`,
		},
		{
			name: "one ai sdk tool call in output.value",
			span: spanWith([]any{
				OIOutputValue, `{"toolCallId":"call_weather_1","toolInput":{"city":"Paris"},"toolName":"get_weather"}`,
			}),
			output: `[{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_1","name":"get_weather","arguments":{"city":"Paris"}}]}]`,
		},
		{
			// Mastra's agent step keeps its input under its own key
			// (testdata/real/mastra/payloads/tool-loop.traces.json).
			name: "message list under a *input key",
			span: spanWith([]any{
				"mastra.model_step.input", `[{"role":"system","content":"You are a concise weather assistant. Use the tools when needed."},{"role":"user","content":"What is the weather in Paris today?"}]`,
			}),
			system: `[` + sys + `]`,
			input:  `[` + prompt + `]`,
		},
		{
			// testdata/real/genkit-js/payloads/embeddings.traces.json: an
			// embedder's request, documents with content and no role.
			name: "genkit embedder documents",
			span: spanWith([]any{
				"genkit:input", `{"input":[{"content":[{"text":"alpha is the first letter"}]},{"content":[{"text":"beta is the second letter"}]}],"options":{}}`,
			}),
			input: `[{"role":"user","parts":[{"type":"text","content":"alpha is the first letter"}]},` +
				`{"role":"user","parts":[{"type":"text","content":"beta is the second letter"}]}]`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Messages(tc.span)
			var got map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(asJSON(t, c)), &got))
			if tc.system != "" {
				assert.JSONEq(t, tc.system, string(got["system"]), "system")
			}
			if tc.input != "" {
				assert.JSONEq(t, tc.input, string(got["input"]), "input")
			}
			if tc.output != "" {
				assert.JSONEq(t, tc.output, string(got["output"]), "output")
			}
		})
	}
}

// FuzzMessagesShapes: whatever the content, Messages does not panic, no message
// is empty, and no text part reads "null" beside tool calls.
func FuzzMessagesShapes(f *testing.F) {
	for _, s := range []string{
		`[{"role":"assistant","content":null,"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}]`,
		`[{"toolResult":{"toolUseId":"t","content":[{"text":"x"}]}}]`,
		`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}]}`,
		`[{"type":"function_call_output","call_id":"c","output":"{\"a\":1}"}]`,
		`{"candidates":[{"content":{"parts":[{"text":"t"}]}}]}`,
		`plain text`, `null`, `[]`, `{}`, `[1,"a",null,{"role":"tool","content":"{\"x\":[1]}"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, key := range []string{InputMessages, OIInputValue, ADKLLMRequest, "x.input"} {
			sp := spanWith([]any{key, s}, []any{"gen_ai.tool.message", "content", s}, []any{"gen_ai.choice", "message", s})
			c := Messages(sp)
			for _, ms := range [][]Message{c.Input, c.Output} {
				for _, m := range ms {
					if len(m.Parts) == 0 {
						t.Fatalf("%s=%q: empty %s message", key, s, m.Role)
					}
					if hasPartType(m.Parts, PartToolCall) {
						for _, p := range m.Parts {
							if p.Type == PartText && p.Content == "null" {
								t.Fatalf("%s=%q: a null content beside tool calls read as text", key, s)
							}
						}
					}
				}
			}
			if _, err := json.Marshal(c.Input); err != nil {
				t.Fatalf("%s=%q: %v", key, s, err)
			}
		}
	})
}

// TestMessagesEmpty: what says nothing makes no message, and what says
// something is never an empty one.
func TestMessagesEmpty(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		// testdata/real/mastra/payloads/fail.traces.json: the failed chat's output.
		{"empty text only", `[{"role":"assistant","parts":[{"type":"text","content":""}]}]`, `[]`},
		// testdata/real/openai-agents/payloads/responses-tool-loop.traces.json.
		{"no parts", `[{"role":"assistant","parts":[],"finish_reason":"completed"}]`, `[]`},
		{"null content, no calls", `[{"role":"assistant","content":null}]`, `[]`},
		{"unread member kept", `[{"role":"assistant","audio":{"id":"a1"}}]`,
			`[{"role":"assistant","parts":[{"type":"text","content":"{\"audio\":{\"id\":\"a1\"},\"role\":\"assistant\"}"}]}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Messages(spanWith([]any{OutputMessages, tc.content}))
			b, err := json.Marshal(c.Output)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
		})
	}
}

// Strands with gen_ai_latest_experimental writes one operation details
// event per key (testdata/real/strands-agents/payloads/latest-tool-loop.traces.json,
// the second chat span): all of them are read.
func TestMessagesSplitDetails(t *testing.T) {
	sp := spanWith(nil,
		[]any{EventInferenceDetails, SystemInstructions, `[{"type":"text","content":"You are a concise weather assistant. Use the tools when needed."}]`},
		[]any{EventInferenceDetails, InputMessages, `[{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris today?"}]},{"role":"assistant","parts":[{"type":"tool_call","name":"get_weather","id":"call_weather_1","arguments":{"city":"Paris"}}]},{"role":"user","parts":[{"type":"tool_call_response","id":"call_weather_1","response":[{"text":"18 degrees Celsius and sunny"}]}]}]`},
		[]any{EventInferenceDetails, OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":"It is 18 degrees Celsius and sunny in Paris today."}],"finish_reason":"endTurn"}]`},
	)
	c := Messages(sp)
	require.Len(t, c.System, 1)
	require.Len(t, c.Input, 3)
	assert.Equal(t, "18 degrees Celsius and sunny", c.Input[2].Parts[0].Response)
	require.Len(t, c.Output, 1)
	assert.Equal(t, "It is 18 degrees Celsius and sunny in Paris today.", c.Output[0].Text())
}
