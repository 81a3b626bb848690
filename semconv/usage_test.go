package semconv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestTokenUsage: input includes cached tokens, whatever the library
// reported, and only the library the evidence names is corrected.
func TestTokenUsage(t *testing.T) {
	anthropicCounts := []any{OperationName, "chat", ProviderName, "anthropic",
		UsageInputTokens, 25, UsageOutputTokens, 38, UsageCacheReadInput, 1100, UsageCacheCreationInput, 210}
	cases := []struct {
		name  string
		attrs []any
		scope string
		want  Usage
	}{
		{"OpenLLMetry JS Anthropic: raw input_tokens, cache added back",
			anthropicCounts, "@traceloop/instrumentation-anthropic",
			Usage{Input: 1335, Output: 38, CacheRead: 1100, CacheCreation: 210}},
		{"the same counts from another library are taken as the conventions say",
			anthropicCounts, "com.anthropic.sdk.typescript",
			Usage{Input: 25, Output: 38, CacheRead: 1100, CacheCreation: 210}},
		{"OpenLLMetry JS with another provider is left alone",
			[]any{OperationName, "chat", ProviderName, "openai", UsageInputTokens, 1230, UsageCacheReadInput, 1024},
			"@traceloop/instrumentation-anthropic", Usage{Input: 1230, CacheRead: 1024}},
		{"Vercel v5 with Anthropic: cache write from provider metadata",
			[]any{AIOperationID, "ai.streamText.doStream", AIModelProvider, "anthropic.messages",
				AIUsageInputTokens, 25, AIUsageOutputTokens, 38, AIUsageCachedInput, 1100,
				AIProviderMetadata, `{"anthropic":{"usage":{"input_tokens":25,"cache_creation_input_tokens":210,"cache_read_input_tokens":1100}}}`},
			"ai", Usage{Input: 1335, Output: 38, CacheRead: 1100, CacheCreation: 210}},
		{"Vercel v6 reports the total (noCacheTokens present)",
			[]any{AIOperationID, "ai.streamText.doStream", AIModelProvider, "anthropic.messages",
				AIUsageInputTokens, 1335, AIUsageNoCache, 25, AIUsageCacheRead, 1100, AIUsageCacheWrite, 210},
			"ai", Usage{Input: 1335, CacheRead: 1100, CacheCreation: 210}},
		{"Vercel with OpenAI is left alone",
			[]any{AIOperationID, "ai.generateText.doGenerate", AIModelProvider, "openai.chat", AIUsageInputTokens, 1230, AIUsageCachedInput, 1024},
			"ai", Usage{Input: 1230, CacheRead: 1024}},
		{"Vercel doEmbed counts ai.usage.tokens",
			[]any{AIOperationID, "ai.embedMany.doEmbed", AIUsageTokens, 10}, "ai", Usage{Input: 10}},
		{"Langfuse usage_details: cache and reasoning added back",
			[]any{LFObservationType, "generation", LFUsageDetails, `{"input":406,"output":18,"total":1448,"input_cached_tokens":1024,"input_cache_creation":8,"output_reasoning_tokens":4}`},
			"langfuse-sdk", Usage{Input: 1438, Output: 22, CacheRead: 1024, CacheCreation: 8, Reasoning: 4}},
		{"Langfuse usage_details in the provider's spelling",
			[]any{LFObservationType, "generation", LFUsageDetails, `{"prompt_tokens":52,"completion_tokens":18}`},
			"langfuse-sdk", Usage{Input: 52, Output: 18}},
		{"usage attributes win over usage_details",
			[]any{LFObservationType, "generation", UsageInputTokens, 7, LFUsageDetails, `{"input":406}`},
			"langfuse-sdk", Usage{Input: 7}},
		{"Genkit model span: usage in genkit:output",
			[]any{GenkitSubtype, "model", GenkitOutput, `{"usage":{"inputTokens":104,"outputTokens":13,"cachedContentTokens":32}}`},
			"genkit-tracer", Usage{Input: 104, Output: 13, CacheRead: 32}},
		{"Genkit usage is read on Genkit spans only",
			[]any{OperationName, "chat", GenkitOutput, `{"usage":{"inputTokens":104}}`}, "", Usage{}},
		{"bad JSON reads as no usage",
			[]any{LFObservationType, "generation", LFUsageDetails, `{"input":`}, "langfuse-sdk", Usage{}},
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

// Read forgets the scope of the span read before.
func TestReadClearsScope(t *testing.T) {
	m := pcommon.NewMap()
	putAll(m.PutEmpty, []any{OperationName, "chat", ProviderName, "anthropic", UsageInputTokens, 25, UsageCacheReadInput, 10})
	var r Reading
	Read(&r, "span", m, false)
	r.SetScope("@traceloop/instrumentation-anthropic", "0.27.0")
	assert.Equal(t, int64(35), r.TokenUsage().Input)
	Read(&r, "span", m, false)
	assert.Equal(t, int64(25), r.TokenUsage().Input)
}

func TestReportsError(t *testing.T) {
	cases := []struct {
		name  string
		attrs []any
		want  bool
	}{
		{"finish reason error (array)", []any{ResponseFinishReasons, []any{"stop", "error"}}, true},
		{"finish reason error (string)", []any{AIFinishReason, "error"}, true},
		{"finish reason stop", []any{ResponseFinishReasons, []any{"stop"}}, false},
		{"Langfuse level ERROR", []any{LFObservationType, "generation", LFLevel, "ERROR"}, true},
		{"Langfuse level WARNING", []any{LFObservationType, "generation", LFLevel, "WARNING"}, false},
		{"Genkit state error", []any{GenkitSubtype, "model", GenkitState, "error"}, true},
		{"Genkit state success", []any{GenkitSubtype, "model", GenkitState, "success"}, false},
		{"nothing", []any{OperationName, "chat"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := pcommon.NewMap()
			putAll(m.PutEmpty, tc.attrs)
			var r Reading
			Read(&r, "span", m, false)
			assert.Equal(t, tc.want, r.ReportsError())
		})
	}
}

func TestToolName(t *testing.T) {
	read := func(kv ...any) *Reading {
		m := pcommon.NewMap()
		putAll(m.PutEmpty, kv)
		var r Reading
		Read(&r, "span", m, false)
		return &r
	}
	assert.Equal(t, "lookup_order", read(LFObservationType, "tool").ToolName("lookup_order"), "Langfuse names its tool in the span name")
	assert.Equal(t, "f", read(LFObservationType, "tool", ToolName, "f").ToolName("lookup_order"))
	assert.Equal(t, "f", read(OperationName, "execute_tool").ToolName("execute_tool f"), "the conventions' span name names it")
	assert.Equal(t, "", read(OperationName, "execute_tool").ToolName("execute_tool"), "a bare operation names no tool")
	assert.Equal(t, "getWeather", read(GenkitSubtype, "tool", GenkitName, "getWeather").ToolName("x"))
}
