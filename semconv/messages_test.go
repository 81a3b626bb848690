package semconv

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// spanWith builds a span from key/value pairs (string, int64 or []any
// values) and events (name, then key/value pairs).
func spanWith(kv []any, events ...[]any) ptrace.Span {
	sp := ptrace.NewSpan()
	putAll(sp.Attributes().PutEmpty, kv)
	for _, e := range events {
		ev := sp.Events().AppendEmpty()
		ev.SetName(e[0].(string))
		putAll(ev.Attributes().PutEmpty, e[1:])
	}
	return sp
}

func putAll(put func(string) pcommon.Value, kv []any) {
	for i := 0; i+1 < len(kv); i += 2 {
		v := put(kv[i].(string))
		if err := v.FromRaw(kv[i+1]); err != nil {
			panic(err)
		}
	}
}

// asJSON renders a conversation the way messages --json does, so the
// expectations read as the conventions' shape.
func asJSON(t *testing.T, c Conversation) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"system": c.System, "input": c.Input, "output": c.Output})
	require.NoError(t, err)
	return string(b)
}

// TestMessages reads the same exchange from every place a dialect keeps
// it, and gets the conventions' shape each time.
func TestMessages(t *testing.T) {
	const (
		sys  = `{"type":"text","content":"Be brief."}`
		user = `{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}`
		call = `{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Paris"}}]`
		tool = `{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"sunny"}]}`
		ans  = `{"role":"assistant","parts":[{"type":"text","content":"Sunny."}],"finish_reason":"stop"}`
	)
	cases := []struct {
		name   string
		span   ptrace.Span
		system string // JSON arrays
		input  string
		output string
	}{
		{"current attributes, JSON strings",
			spanWith([]any{
				SystemInstructions, `[{"type":"text","content":"Be brief."}]`,
				InputMessages, `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]`,
				OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":"Sunny."}],"finish_reason":"stop"}]`,
			}),
			"[" + sys + "]", "[" + user + "]", "[" + ans + "]"},
		{"current attributes, structured; tool_call_response's result read as response",
			spanWith([]any{
				InputMessages, []any{
					map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": "Weather in Paris?"}}},
					map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}},
					map[string]any{"role": "tool", "parts": []any{map[string]any{"type": "tool_call_response", "id": "c1", "result": "sunny"}}},
				},
			}),
			"[]", "[" + user + "," + call + "}," + tool + "]", "[]"},
		{"inference details event",
			spanWith(nil, []any{EventInferenceDetails,
				InputMessages, `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]`,
				OutputMessages, `[{"role":"assistant","parts":[{"type":"text","content":"Sunny."}],"finish_reason":"stop"}]`}),
			"[]", "[" + user + "]", "[" + ans + "]"},
		{"deprecated gen_ai.prompt / gen_ai.completion (OpenAI messages)",
			spanWith([]any{
				Prompt, `[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"}]`,
				Completion, `[{"role":"assistant","content":"Sunny."}]`,
				ResponseFinishReasons, []any{"stop"},
			}),
			"[" + sys + "]", "[" + user + "]", "[" + ans + "]"},
		{"deprecated per-message events",
			spanWith(nil,
				[]any{EventSystemMessage, "content", "Be brief."},
				[]any{EventUserMessage, "content", "Weather in Paris?"},
				[]any{EventAssistantMessage, "tool_calls", []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}},
				[]any{EventToolMessage, "content", "sunny", "id", "c1"},
				[]any{EventChoice, "index", 0, "finish_reason", "stop", "message", map[string]any{"content": "Sunny."}}),
			"[" + sys + "]", "[" + user + "," + call + "}," + tool + "]", "[" + ans + "]"},
		{"OpenLLMetry flattened, with tool calls",
			spanWith([]any{
				"gen_ai.prompt.0.role", "system", "gen_ai.prompt.0.content", "Be brief.",
				"gen_ai.prompt.1.role", "user", "gen_ai.prompt.1.content", "Weather in Paris?",
				"gen_ai.completion.0.role", "assistant", "gen_ai.completion.0.finish_reason", "tool_calls",
				"gen_ai.completion.0.tool_calls.0.id", "c1", "gen_ai.completion.0.tool_calls.0.name", "get_weather",
				"gen_ai.completion.0.tool_calls.0.arguments", `{"city":"Paris"}`,
			}),
			"[" + sys + "]", "[" + user + "]", "[" + call + `,"finish_reason":"tool_call"}]`},
		{"OpenInference flattened, contents and tool calls",
			spanWith([]any{
				OISpanKind, "LLM",
				"llm.input_messages.0.message.role", "system", "llm.input_messages.0.message.content", "Be brief.",
				"llm.input_messages.1.message.role", "user",
				"llm.input_messages.1.message.contents.0.message_content.type", "text",
				"llm.input_messages.1.message.contents.0.message_content.text", "Weather in Paris?",
				"llm.input_messages.2.message.role", "assistant",
				"llm.input_messages.2.message.tool_calls.0.tool_call.id", "c1",
				"llm.input_messages.2.message.tool_calls.0.tool_call.function.name", "get_weather",
				"llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments", `{"city":"Paris"}`,
				"llm.input_messages.3.message.role", "tool", "llm.input_messages.3.message.content", "sunny",
				"llm.input_messages.3.message.tool_call_id", "c1",
				"llm.output_messages.0.message.role", "assistant", "llm.output_messages.0.message.content", "Sunny.",
				OIFinishReason, "stop",
			}),
			"[" + sys + "]", "[" + user + "," + call + "}," + tool + "]", "[" + ans + "]"},
		{"OpenInference input.value / output.value only",
			spanWith([]any{
				OISpanKind, "LLM",
				OIInputValue, `{"model":"m","system":"Be brief.","messages":[{"role":"user","content":"Weather in Paris?"}]}`,
				OIOutputValue, "Sunny.", OIFinishReason, "stop",
			}),
			"[" + sys + "]", "[" + user + "]", "[" + ans + "]"},
		{"Vercel doGenerate",
			spanWith([]any{
				AIPromptMessages, `[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"get_weather","input":{"city":"Paris"}}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"get_weather","output":{"type":"text","value":"sunny"}}]}]`,
				AIResponseText, "Sunny.", AIFinishReason, "stop",
			}),
			"[" + sys + "]", "[" + user + "," + call + "}," + tool + "]", "[" + ans + "]"},
		{"Vercel outer span ai.prompt, tool calls as the answer",
			spanWith([]any{
				AIPrompt, `{"system":"Be brief.","prompt":"Weather in Paris?"}`,
				AIResponseToolCls, `[{"toolCallId":"c1","toolName":"get_weather","input":"{\"city\":\"Paris\"}"}]`,
				AIFinishReason, "tool-calls",
			}),
			"[" + sys + "]", "[" + user + "]", "[" + call + `,"finish_reason":"tool_call"}]`},
		{"Langfuse input / output (OpenAI shapes)",
			spanWith([]any{
				LFObservationType, "generation",
				LFObservationInput, `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in Paris?"}]}`,
				LFObservationOutput, `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`,
			}),
			"[" + sys + "]", "[" + user + "]", "[" + call + "}]"},
		{"Genkit model span",
			spanWith([]any{
				GenkitSubtype, "model",
				GenkitInput, `{"messages":[{"role":"system","content":[{"text":"Be brief."}]},{"role":"user","content":[{"text":"Weather in Paris?"}]},{"role":"model","content":[{"toolRequest":{"name":"get_weather","ref":"c1","input":{"city":"Paris"}}}]},{"role":"tool","content":[{"toolResponse":{"name":"get_weather","ref":"c1","output":"sunny"}}]}]}`,
				GenkitOutput, `{"message":{"role":"model","content":[{"text":"Sunny."}]},"finishReason":"stop","usage":{"inputTokens":3}}`,
			}),
			"[" + sys + "]", "[" + user + "," + call + "}," + tool + "]", "[" + ans + "]"},
		{"Anthropic content blocks passed through as a string",
			spanWith([]any{
				"gen_ai.prompt.0.role", "user", "gen_ai.prompt.0.content", `[{"type":"text","text":"Weather in Paris?"}]`,
				"gen_ai.completion.0.role", "assistant", "gen_ai.completion.0.content", `[{"type":"thinking","thinking":"Look it up."},{"type":"tool_use","id":"c1","name":"get_weather","input":{"city":"Paris"}}]`,
			}),
			"[]", "[" + user + "]", `[{"role":"assistant","parts":[{"type":"reasoning","content":"Look it up."},{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Paris"}}]}]`},
		{"OpenAI Responses items written as one text",
			spanWith([]any{
				InputMessages, `[{"role":"user","parts":[{"type":"text","content":"[{\"role\":\"user\",\"content\":\"Weather in Paris?\"},{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"},{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"sunny\"}]"}]}]`,
			}),
			"[]", "[" + user + "," + call + "}," + tool + "]", "[]"},
		{"a text that merely looks like JSON stays text",
			spanWith([]any{InputMessages, `[{"role":"user","parts":[{"type":"text","content":"[1,2,3]"}]}]`}),
			"[]", `[{"role":"user","parts":[{"type":"text","content":"[1,2,3]"}]}]`, "[]"},
		{"nothing", spanWith([]any{"http.request.method", "GET"}), "[]", "[]", "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := asJSON(t, Messages(tc.span))
			want := `{"input":` + tc.input + `,"output":` + tc.output + `,"system":` + tc.system + `}`
			assert.JSONEq(t, want, got)
		})
	}
}

func TestMessageText(t *testing.T) {
	m := Message{Role: RoleAssistant, Parts: []Part{{Type: PartText, Content: "a"}, {Type: PartToolCall, Name: "f"}, {Type: PartText, Content: "b"}}}
	assert.Equal(t, "a\nb", m.Text())
}

// Messages never panics and always gives lists, whatever the content.
func FuzzMessages(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","parts":[{"type":"text","content":"x"}]}]`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"r"}]}]}]}`,
		`[{"type":"function_call","call_id":"c","name":"f","arguments":"{"}]`,
		`{"lc":1,"type":"constructor","id":["langchain","schema","messages","AIMessage"],"kwargs":{"content":"hi","tool_calls":[{"name":"f","args":{},"id":"1"}]}}`,
		`{"message":{"role":"model","content":[{"media":{"url":"https://x/y.png","contentType":"image/png"}}]},"candidates":3}`,
		`[null, 1, "s", {"role": 5}]`, `{`, ``, `[[[[]]]]`,
	} {
		f.Add(s, "gen_ai.prompt.0.content")
	}
	keys := []string{InputMessages, OutputMessages, SystemInstructions, Prompt, Completion, AIPromptMessages, AIPrompt,
		AIResponseToolCls, LFObservationInput, LFObservationOutput, GenkitInput, GenkitOutput, OIInputValue, OIOutputValue}
	f.Fuzz(func(t *testing.T, content, flatKey string) {
		sp := ptrace.NewSpan()
		for _, k := range keys {
			sp.Attributes().PutStr(k, content)
		}
		sp.Attributes().PutStr(flatKey, content)
		sp.Attributes().PutStr("llm.output_messages.0.message."+flatKey, content)
		ev := sp.Events().AppendEmpty()
		ev.SetName(EventChoice)
		ev.Attributes().PutStr(EventContent, content)
		c := Messages(sp)
		require.NotNil(t, c.System)
		require.NotNil(t, c.Input)
		require.NotNil(t, c.Output)
		_, err := json.Marshal(map[string]any{"s": c.System, "i": c.Input, "o": c.Output})
		require.NoError(t, err)
	})
}
