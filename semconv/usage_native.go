package semconv

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// adkScope is Google ADK's tracer name; only its spans carry
// gcp.vertex.agent.llm_response, a key outside the table (looked up by a
// walk of the attributes, so not asked of every span).
const adkScope = "gcp.vertex.agent"

// withNativeUsage fills the classes u leaves at zero, and the span's own
// keys do not give, from the usage a provider reports in its own response
// body kept as a JSON attribute: Genkit's raw provider response
// (genkit:output's "raw" or "custom"), OpenInference's output.value,
// OpenLLMetry's traceloop.entity.output, Google ADK's llm_response. A class
// the span gives is never taken from a body, so nothing is counted twice.
//
// It is asked only of model calls missing a class, and decodes a body only
// when its text names a usage object: the bodies are large and most hold
// messages only.
func (r *Reading) withNativeUsage(u Usage) Usage {
	if r.Kind != Inference || (u.Input != 0 && u.Output != 0 && u.CacheRead != 0 && u.CacheCreation != 0 && u.Reasoning != 0) {
		return u
	}
	if r.Dialect == DialectGenkit {
		if v, ok := r.attr(idGKOutput); ok {
			if m, ok := usageBody(v); ok {
				for _, k := range [...]string{"raw", "custom"} {
					if sub, ok := m[k].(map[string]any); ok {
						if b, ok := nativeUsage(sub); ok {
							return r.fillUsage(u, b)
						}
					}
				}
			}
		}
	}
	for _, id := range [...]keyID{idOutputValue, idTLOutput} {
		if v, ok := r.attr(id); ok {
			if b, ok := bodyUsage(v); ok {
				return r.fillUsage(u, b)
			}
		}
	}
	if strings.HasPrefix(r.scope, adkScope) {
		if v, ok := r.attrs.Get(ADKLLMResponse); ok {
			if b, ok := bodyUsage(v); ok {
				return r.fillUsage(u, b)
			}
		}
	}
	return u
}

// fillUsage sets each class of u that is zero and not given by the span's
// own usage keys to b's.
func (r *Reading) fillUsage(u, b Usage) Usage {
	fill := func(dst *int64, src int64, f Field) {
		if *dst == 0 && !r.Has(f) {
			*dst = src
		}
	}
	fill(&u.Input, b.Input, FieldInputTokens)
	fill(&u.Output, b.Output, FieldOutputTokens)
	fill(&u.CacheRead, b.CacheRead, FieldCacheReadTokens)
	fill(&u.CacheCreation, b.CacheCreation, FieldCacheCreationTokens)
	fill(&u.Reasoning, b.Reasoning, FieldReasoningTokens)
	return u
}

// usageBody decodes v as a JSON object when it may hold a usage object
// ("usage", "usageMetadata", "usage_metadata"): a cheap test on the text
// spares decoding bodies of messages only.
func usageBody(v pcommon.Value) (map[string]any, bool) {
	if v.Type() == pcommon.ValueTypeStr && !strings.Contains(v.Str(), `usage`) {
		return nil, false
	}
	return jsonObject(v)
}

// bodyUsage reads the provider usage of a response body attribute.
func bodyUsage(v pcommon.Value) (Usage, bool) {
	m, ok := usageBody(v)
	if !ok {
		return Usage{}, false
	}
	return nativeUsage(m)
}

// nativeUsage reads the usage object of a provider's response body m, in
// the conventions' terms (input includes cache reads and writes, output
// includes reasoning):
//   - OpenAI Chat usage {prompt_tokens, completion_tokens,
//     prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens};
//   - OpenAI Responses usage {input_tokens, output_tokens,
//     input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens};
//   - Anthropic usage {input_tokens, output_tokens, cache_read_input_tokens,
//     cache_creation_input_tokens}, whose input_tokens leaves the cache out;
//   - Gemini usageMetadata {promptTokenCount, candidatesTokenCount,
//     cachedContentTokenCount, thoughtsTokenCount} (or its snake_case form,
//     as Python SDKs dump it), whose candidates leave the thoughts out.
func nativeUsage(m map[string]any) (Usage, bool) {
	if um, ok := m["usage"].(map[string]any); ok {
		return providerUsage(um)
	}
	for _, k := range [...]string{"usageMetadata", "usage_metadata"} {
		if um, ok := m[k].(map[string]any); ok {
			return geminiUsage(um)
		}
	}
	return Usage{}, false
}

// providerUsage reads an OpenAI (Chat or Responses) or Anthropic usage
// object, told apart by their keys.
func providerUsage(um map[string]any) (Usage, bool) {
	var u Usage
	if in, ok := intOf(um, "prompt_tokens"); ok { // OpenAI Chat
		out, _ := intOf(um, "completion_tokens")
		u.Input, u.Output = in, out
		u.CacheRead = nestedInt(um, "prompt_tokens_details", "cached_tokens")
		u.Reasoning = nestedInt(um, "completion_tokens_details", "reasoning_tokens")
		return u, true
	}
	in, hasIn := intOf(um, "input_tokens")
	out, hasOut := intOf(um, "output_tokens")
	if !hasIn && !hasOut {
		return Usage{}, false
	}
	u.Input, u.Output = in, out
	read, hasRead := intOf(um, "cache_read_input_tokens")
	write, hasWrite := intOf(um, "cache_creation_input_tokens")
	if hasRead || hasWrite { // Anthropic: input_tokens is the uncached rest
		u.CacheRead, u.CacheCreation = read, write
		u.Input += read + write
		return u, true
	}
	// OpenAI Responses (an Anthropic usage without cache keys reads the same).
	u.CacheRead = nestedInt(um, "input_tokens_details", "cached_tokens")
	u.Reasoning = nestedInt(um, "output_tokens_details", "reasoning_tokens")
	return u, true
}

// geminiUsage reads Gemini's usageMetadata, camelCase or snake_case.
func geminiUsage(um map[string]any) (Usage, bool) {
	in, hasIn := intOf(um, "promptTokenCount", "prompt_token_count")
	cand, hasOut := intOf(um, "candidatesTokenCount", "candidates_token_count")
	if !hasIn && !hasOut {
		return Usage{}, false
	}
	var u Usage
	u.Input = in
	u.CacheRead, _ = intOf(um, "cachedContentTokenCount", "cached_content_token_count")
	u.Reasoning, _ = intOf(um, "thoughtsTokenCount", "thoughts_token_count")
	u.Output = cand + u.Reasoning
	return u, true
}

// nestedInt is m[obj][key] as an integer, 0 when absent.
func nestedInt(m map[string]any, obj, key string) int64 {
	sub, _ := m[obj].(map[string]any)
	n, _ := intOf(sub, key)
	return n
}

// The body attributes read for usage, by key id.
var idOutputValue, idTLOutput = keyIDs[OIOutputValue], keyIDs[TLEntityOutput]
