package semconv

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Provider usage objects, as each provider documents them (OpenAI's
// Chat Completions and Responses API references, Anthropic's Messages
// API, Gemini's GenerateContentResponse.usageMetadata); the wanted
// figures are worked out by hand from those definitions: OpenAI's
// prompt/input count includes cached tokens and its completion/output
// count reasoning; Anthropic's input_tokens leaves the cache reads and
// writes out; Gemini's candidatesTokenCount leaves the thoughts out.
const (
	openAIChatBody = `{"id":"chatcmpl-1","object":"chat.completion","usage":{"prompt_tokens":1230,"completion_tokens":41,"total_tokens":1271,` +
		`"prompt_tokens_details":{"cached_tokens":1024},"completion_tokens_details":{"reasoning_tokens":16}}}`
	openAIResponsesBody = `{"object":"response","usage":{"input_tokens":900,"output_tokens":120,` +
		`"input_tokens_details":{"cached_tokens":512},"output_tokens_details":{"reasoning_tokens":64}}}`
	anthropicBody = `{"type":"message","usage":{"input_tokens":25,"output_tokens":38,"cache_read_input_tokens":1100,"cache_creation_input_tokens":210}}`
	geminiBody    = `{"candidates":[],"usageMetadata":{"promptTokenCount":1500,"candidatesTokenCount":80,"cachedContentTokenCount":1024,"thoughtsTokenCount":40,"totalTokenCount":1620}}`
	adkBody       = `{"content":{"role":"model","parts":[{"text":"hi"}]},"usage_metadata":{"prompt_token_count":300,"candidates_token_count":20,"cached_content_token_count":256,"thoughts_token_count":5}}`
)

// TestNativeUsage: usage found only in a provider's own response body
// counts, each class the span's keys do not give, never twice.
func TestNativeUsage(t *testing.T) {
	chat := []any{OperationName, "chat", RequestModel, "m"}
	with := func(kv ...any) []any { return append(append([]any{}, chat...), kv...) }
	cases := []struct {
		name  string
		attrs []any
		scope string
		want  Usage
	}{
		{"OpenAI Chat usage in output.value", with(OIOutputValue, openAIChatBody), "",
			Usage{Input: 1230, Output: 41, CacheRead: 1024, Reasoning: 16}},
		{"OpenAI Responses usage in traceloop.entity.output", with(TLEntityOutput, openAIResponsesBody), "",
			Usage{Input: 900, Output: 120, CacheRead: 512, Reasoning: 64}},
		{"Anthropic usage: input gets the cache back", with(OIOutputValue, anthropicBody), "",
			Usage{Input: 1335, Output: 38, CacheRead: 1100, CacheCreation: 210}},
		{"Gemini usageMetadata: output gets the thoughts back", with(OIOutputValue, geminiBody), "",
			Usage{Input: 1500, Output: 120, CacheRead: 1024, Reasoning: 40}},
		{"ADK llm_response on ADK's spans", with(ADKLLMResponse, adkBody), adkScope,
			Usage{Input: 300, Output: 25, CacheRead: 256, Reasoning: 5}},
		{"llm_response is not looked for on other spans", with(ADKLLMResponse, adkBody), "", Usage{}},
		{"the span's own keys win, class by class",
			with(UsageInputTokens, 7, UsageCacheReadInput, 3, OIOutputValue, openAIChatBody), "",
			Usage{Input: 7, Output: 41, CacheRead: 3, Reasoning: 16}},
		{"a class the span reports as 0 stays 0",
			with(UsageInputTokens, 1230, UsageOutputTokens, 41, UsageReasoningOutput, 0, OIOutputValue, openAIChatBody), "",
			Usage{Input: 1230, Output: 41, CacheRead: 1024}},
		{"a body of messages only adds nothing", with(OIOutputValue, `{"choices":[{"message":{"content":"hi"}}]}`), "", Usage{}},
		{"bad JSON adds nothing", with(OIOutputValue, `{"usage":{"prompt_tokens":`), "", Usage{}},
		{"a tool's output is no model call's usage",
			[]any{OperationName, "execute_tool", ToolName, "t", OIOutputValue, openAIChatBody}, "", Usage{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := pcommon.NewMap()
			putAll(m.PutEmpty, tc.attrs)
			var r Reading
			Read(&r, "span", m, false)
			r.SetScope(tc.scope, "")
			assert.Equal(t, tc.want, r.TokenUsage())
		})
	}
}

// TestNativeUsageGenkitRaw: Genkit JS keeps the provider's cache reads and
// reasoning only in genkit:output's raw response. Ground truth: the fake
// OpenAI server's script for testdata/real/genkit-js (stream.traces.json)
// sent prompt_tokens 1230 with cached_tokens 1024 and completion_tokens 41
// with reasoning_tokens 16.
func TestNativeUsageGenkitRaw(t *testing.T) {
	b, err := os.ReadFile("../testdata/real/genkit-js/payloads/stream.traces.json")
	require.NoError(t, err)
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	require.NoError(t, err)
	var got []Usage
	var r Reading
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				sp := spans.At(k)
				Read(&r, sp.Name(), sp.Attributes(), false)
				r.SetScope(sss.At(j).Scope().Name(), "")
				if r.Kind == Inference {
					got = append(got, r.TokenUsage())
				}
			}
		}
	}
	require.NotEmpty(t, got)
	assert.Contains(t, got, Usage{Input: 1230, Output: 41, CacheRead: 1024, Reasoning: 16})
}

// FuzzNativeUsage: any body text reads without panic, and a usage read
// from it keeps its classes within what the body can mean.
func FuzzNativeUsage(f *testing.F) {
	for _, s := range []string{openAIChatBody, openAIResponsesBody, anthropicBody, geminiBody, adkBody, `{"usage":null}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := bodyUsage(pcommon.NewValueStr(s))
		if !ok {
			assert.Equal(t, Usage{}, u)
		}
	})
}
