package semconv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
)

func attrs(kv ...any) pcommon.Map {
	m := pcommon.NewMap()
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			m.PutStr(k, v)
		case int:
			m.PutInt(k, int64(v))
		case float64:
			m.PutDouble(k, v)
		case []string:
			sl := m.PutEmptySlice(k)
			for _, s := range v {
				sl.AppendEmpty().SetStr(s)
			}
		}
	}
	return m
}

func TestKeyTableFits(t *testing.T) {
	require.LessOrEqual(t, len(KnownKeys()), maxKeys, "raise maxKeys")
	for f := range NumFields {
		got, ok := FieldByName(f.Name())
		require.True(t, ok, f.Name())
		require.Equal(t, f, got)
	}
	_, ok := FieldByName("no_such_field")
	require.False(t, ok)
}

// TestClassify pins the classification rules in their order of precedence.
func TestClassify(t *testing.T) {
	cases := []struct {
		name    string
		span    string
		attrs   pcommon.Map
		kind    Kind
		dialect Dialect
	}{
		{"genai chat", "chat gpt-4o", attrs(OperationName, "chat"), Inference, DialectGenAI},
		{"genai op is normalized", "x", attrs(OperationName, " Chat "), Inference, DialectGenAI},
		{"genai embeddings", "x", attrs(OperationName, "embeddings"), Inference, DialectGenAI},
		{"genai retrieval", "x", attrs(OperationName, "retrieval"), Inference, DialectGenAI},
		{"genai tool", "x", attrs(OperationName, "execute_tool"), Call, DialectGenAI},
		{"genai agent", "x", attrs(OperationName, "invoke_agent"), Agent, DialectGenAI},
		{"genai workflow", "x", attrs(OperationName, "invoke_workflow"), Agent, DialectGenAI},
		{"genai create agent", "x", attrs(OperationName, "create_agent"), Agent, DialectGenAI},
		{"op wins over dialect", "x", attrs(OperationName, "chat", OISpanKind, "TOOL"), Inference, DialectGenAI},
		{"unknown op falls through", "x", attrs(OperationName, "execute_task", TLSpanKind, "task"), Span, DialectTraceloop},
		{"openinference LLM", "x", attrs(OISpanKind, "LLM", OIModelName, "gpt-4o"), Inference, DialectOpenInference},
		// A dialect's model call that names no model, reports no usage and
		// holds nothing sent to a model is a part of one (partOfCall).
		{"openinference LLM with its input only", "x", attrs(OISpanKind, "LLM", OIInputValue, "[]"), Inference, DialectOpenInference},
		{"openinference LLM with its usage only", "x", attrs(OISpanKind, "LLM", OITokensPrompt, 3), Inference, DialectOpenInference},
		{"openinference LLM with an output only is a part", "x", attrs(OISpanKind, "LLM", OIOutputValue, `{"text":"Hi"}`), Span, DialectOpenInference},
		{"openinference LLM with nothing is a part", "x", attrs(OISpanKind, "LLM"), Span, DialectOpenInference},
		{"a part with a provider body is a call", "x", attrs(OISpanKind, "LLM", "body", `{"model":"m","usage":{}}`), Inference, DialectOpenInference},
		{"a named operation is never a part", "chat gpt-4o", attrs(), Inference, DialectName},
		{"openinference retriever", "x", attrs(OISpanKind, "RETRIEVER", OIInputValue, "q"), Inference, DialectOpenInference},
		{"openinference tool", "x", attrs(OISpanKind, "TOOL"), Call, DialectOpenInference},
		{"openinference agent", "x", attrs(OISpanKind, "AGENT"), Agent, DialectOpenInference},
		{"openinference chain", "x", attrs(OISpanKind, "CHAIN"), Span, DialectOpenInference},
		{"traceloop workflow", "x", attrs(TLSpanKind, "workflow"), Agent, DialectTraceloop},
		{"traceloop agent", "x", attrs(TLSpanKind, "agent"), Agent, DialectTraceloop},
		{"traceloop tool", "x", attrs(TLSpanKind, "tool"), Call, DialectTraceloop},
		{"traceloop task", "x", attrs(TLSpanKind, "task"), Span, DialectTraceloop},
		{"vercel doGenerate", "x", attrs(AIOperationID, "ai.generateText.doGenerate", AIModelID, "m"), Inference, DialectVercel},
		{"vercel doStream", "x", attrs(AIOperationID, "ai.streamText.doStream", AIModelID, "m"), Inference, DialectVercel},
		{"vercel doEmbed", "x", attrs(AIOperationID, "ai.embedMany.doEmbed", AIModelID, "m"), Inference, DialectVercel},
		{"vercel tool", "x", attrs(AIOperationID, "ai.toolCall"), Call, DialectVercel},
		{"vercel wrapper", "x", attrs(AIOperationID, "ai.generateText"), Agent, DialectVercel},
		{"vercel by span name", "ai.streamText", attrs(), Agent, DialectVercel},
		{"openllmetry request type", "openai.chat", attrs(TLRequestType, "chat", RequestModel, "m"), Inference, DialectTraceloop},
		{"tool name alone", "x", attrs(ToolName, "f"), Call, DialectGenAI},
		{"v1.26 system and model", "x", attrs(System, "openai", RequestModel, "gpt-4"), Inference, DialectGenAI},
		{"model alone is not enough", "x", attrs(RequestModel, "gpt-4"), Span, DialectNone},
		{"plain span", "GET", attrs("http.request.method", "GET"), Span, DialectNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r Reading
			Read(&r, tc.span, tc.attrs, false)
			assert.Equal(t, tc.kind, r.Kind)
			assert.Equal(t, tc.dialect, r.Dialect)
		})
	}
}

// TestFields pins how facts are read: priority across dialects, type
// checks, dialect conditions, and the rules that keep promotion lossless.
func TestFields(t *testing.T) {
	cases := []struct {
		name   string
		attrs  pcommon.Map
		err    bool
		field  Field
		source string // "" = absent
	}{
		{"canonical model is the response model", attrs(OperationName, "chat", ResponseModel, "m-1", RequestModel, "m"), false, FieldModel, ResponseModel},
		{"request model differing is its own field", attrs(OperationName, "chat", ResponseModel, "m-1", RequestModel, "m"), false, FieldRequestModel, RequestModel},
		{"request model equal to model stays an attribute", attrs(OperationName, "chat", ResponseModel, "m", RequestModel, "m"), false, FieldRequestModel, ""},
		{"request model alone is the model", attrs(OperationName, "chat", RequestModel, "m"), false, FieldModel, RequestModel},
		{"openinference model", attrs(OISpanKind, "LLM", OIModelName, "m"), false, FieldModel, OIModelName},
		{"vercel model", attrs(AIOperationID, "ai.generateText.doGenerate", AIModelID, "m"), false, FieldModel, AIModelID},
		{"current tokens beat deprecated", attrs(UsagePromptTokens, 1, UsageInputTokens, 2), false, FieldInputTokens, UsageInputTokens},
		{"deprecated tokens", attrs(UsagePromptTokens, 1), false, FieldInputTokens, UsagePromptTokens},
		{"openinference tokens", attrs(OITokensPrompt, 1), false, FieldInputTokens, OITokensPrompt},
		{"vercel v4 tokens", attrs(AIUsagePromptTokens, 1), false, FieldInputTokens, AIUsagePromptTokens},
		{"vercel v5 tokens", attrs(AIUsageInputTokens, 1), false, FieldInputTokens, AIUsageInputTokens},
		{"a double token count is not promoted", attrs(UsageInputTokens, 2.0), false, FieldInputTokens, ""},
		{"string tokens are not promoted", attrs(UsageInputTokens, "2"), false, FieldInputTokens, ""},
		{"cache write (genai main)", attrs(UsageCacheWriteInputGenAI, 5), false, FieldCacheCreationTokens, UsageCacheWriteInputGenAI},
		{"openllmetry underscore cache read", attrs(TLCacheReadInput, 5), false, FieldCacheReadTokens, TLCacheReadInput},
		{"error.type is the code on an error span", attrs(ErrorType, "TimeoutError"), true, FieldCode, ErrorType},
		{"error.type is not the code on an ok span", attrs(ErrorType, "TimeoutError"), false, FieldCode, ""},
		{"error.type 'error' stays an attribute", attrs(ErrorType, "error"), true, FieldCode, ""},
		{"op already normalized", attrs(OperationName, "chat"), false, FieldOp, OperationName},
		{"op not normalized stays an attribute", attrs(OperationName, "Chat"), false, FieldOp, ""},
		{"finish reasons array", attrs(ResponseFinishReasons, []string{"stop"}), false, FieldFinishReasons, ResponseFinishReasons},
		{"finish reason single string (vercel)", attrs(AIFinishReason, "tool-calls"), false, FieldFinishReasons, AIFinishReason},
		{"input.value is args only on an openinference tool", attrs(OISpanKind, "TOOL", OIInputValue, `{"a":1}`), false, FieldArgs, OIInputValue},
		{"input.value elsewhere stays an attribute", attrs(OISpanKind, "LLM", OIInputValue, `{"a":1}`), false, FieldArgs, ""},
		{"traceloop entity name is the tool on a tool span", attrs(TLSpanKind, "tool", TLEntityName, "grep"), false, FieldTool, TLEntityName},
		{"traceloop entity name is the agent on an agent span", attrs(TLSpanKind, "agent", TLEntityName, "planner"), false, FieldAgent, TLEntityName},
		{"traceloop entity name on a task is nothing", attrs(TLSpanKind, "task", TLEntityName, "step"), false, FieldTool, ""},
		{"session.id is the conversation", attrs(OISessionID, "s"), false, FieldConversationID, OISessionID},
		{"cost from openinference", attrs(OICostTotal, 0.01), false, FieldCost, OICostTotal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r Reading
			Read(&r, "span", tc.attrs, tc.err)
			assert.Equal(t, tc.source, r.Source(tc.field))
			assert.Equal(t, tc.source != "", r.Has(tc.field))
			assert.Equal(t, tc.source != "" && tc.source != tc.field.CanonicalKey(), r.Aliased(tc.field))
		})
	}
}

func TestConsumedIsSortedAndMatchesFields(t *testing.T) {
	m := attrs("a", "x", OperationName, "chat", UsageOutputTokens, 3, "b", 1, UsageInputTokens, 4, ResponseModel, "m")
	var r Reading
	Read(&r, "chat m", m, false)
	// 1-based positions of op, output, input, model.
	assert.Equal(t, []int32{2, 3, 5, 6}, r.Consumed())
	assert.Equal(t, Usage{Input: 4, Output: 3}, r.Usage())
	assert.Equal(t, int64(7), r.Usage().Total())
}

func TestNormalizeFinishReason(t *testing.T) {
	for in, want := range map[string]string{
		"tool-calls": "tool_call", "tool_calls": "tool_call", "tool_call": "tool_call", "tool_use": "tool_call",
		"end_turn": "stop", "STOP": "stop", "max_tokens": "length", "MAX_TOKENS": "length", "content_filter": "content_filter",
		"weird": "weird",
	} {
		assert.Equal(t, want, NormalizeFinishReason(in), in)
	}
}

func TestNormalizeProvider(t *testing.T) {
	for in, want := range map[string]string{
		"openai": "openai", "OpenAI": "openai", "xai": "x_ai", "vertex_ai": "gcp.vertex_ai", "az.ai.openai": "azure.ai.openai",
		"openai.chat": "openai", "anthropic.messages": "anthropic", "mistralai": "mistral_ai", "aws.bedrock": "aws.bedrock",
	} {
		assert.Equal(t, want, NormalizeProvider(in), in)
	}
}

func BenchmarkRead(b *testing.B) {
	m := attrs(OperationName, "chat", ProviderName, "openai", RequestModel, "gpt-4o", ResponseModel, "gpt-4o-2024-08-06",
		ResponseID, "chatcmpl-1", UsageInputTokens, 1400, UsageOutputTokens, 200, UsageCacheReadInput, 512,
		InputMessages, `[{"role":"user"}]`, OutputMessages, `[{"role":"assistant"}]`, "server.address", "api.openai.com", "server.port", 443)
	var r Reading
	b.ReportAllocs()
	cpu := benchcpu.Now()
	for b.Loop() {
		Read(&r, "chat gpt-4o", m, false)
	}
	benchcpu.Report(b, cpu)
}

// TestReadDoesNotAllocate: Read runs once per span on every writer's hot
// path, over the current keys and the dialects' (here OpenInference and
// Langfuse keys beside the GenAI ones), and must stay free of allocations.
func TestReadDoesNotAllocate(t *testing.T) {
	for name, m := range map[string]pcommon.Map{
		"genai": attrs(OperationName, "chat", ProviderName, "openai", RequestModel, "gpt-4o",
			UsageInputTokens, 1400, UsageOutputTokens, 200, UsageCacheReadInput, 512,
			InputMessages, `[{"role":"user"}]`, OutputMessages, `[{"role":"assistant"}]`),
		"openinference": attrs("openinference.span.kind", "LLM", "llm.model_name", "gpt-4o",
			"llm.token_count.prompt", 1400, "llm.token_count.completion", 200),
		"langfuse": attrs("langfuse.observation.type", "generation", "langfuse.observation.model.name", "gpt-4o",
			"langfuse.observation.usage_details", `{"input":206,"output":25}`),
	} {
		var r Reading
		Read(&r, "chat gpt-4o", m, false)
		assert.Zero(t, testing.AllocsPerRun(100, func() { Read(&r, "chat gpt-4o", m, false) }), name)
	}
}

// A call estimate kept with a reading is for the map read, until the
// next Read: another map (even one with the same attributes) and the
// next span find none.
func TestCallEstimateKept(t *testing.T) {
	m := attrs(OperationName, "execute_tool", ToolName, "search")
	same := attrs(OperationName, "execute_tool", ToolName, "search")
	var r Reading
	Read(&r, "execute_tool search", m, false)
	_, ok := r.CallEstimate(m)
	assert.False(t, ok, "none kept yet")
	r.SetCallEstimate(same, 7)
	_, ok = r.CallEstimate(m)
	assert.False(t, ok, "kept for another map")
	r.SetCallEstimate(m, 42)
	n, ok := r.CallEstimate(m)
	assert.True(t, ok)
	assert.Equal(t, int64(42), n)
	_, ok = r.CallEstimate(same)
	assert.False(t, ok, "asked for another map")
	Read(&r, "execute_tool search", m, false)
	_, ok = r.CallEstimate(m)
	assert.False(t, ok, "Read forgets it")
}
