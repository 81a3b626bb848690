package semconv

import (
	"encoding/json"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// ReportsError reports whether the span's own attributes say it failed
// although its status may not: a finish reason "error", Langfuse's
// langfuse.observation.level ERROR, Genkit's genkit:state error. An
// exception event says so too; events are not attributes, so callers
// holding the span check those (artifact.Failed does both).
func (r *Reading) ReportsError() bool {
	// The dialect table's error levels (Langfuse's level, Genkit's
	// state, a user dialect's): Read noted their keys in its walk.
	if r.LevelError() {
		return true
	}
	var v pcommon.Value
	if r.Has(FieldFinishReasons) {
		v = r.Value(FieldFinishReasons)
	} else if r.Kind == Inference {
		// Not promoted to the field (Mastra's chat keeps
		// gen_ai.response.finish_reasons ["error"] as an attribute:
		// testdata/real/mastra/payloads/fail.traces.json), still its word.
		var ok bool
		if v, ok = r.Lookup(r.attrs, ResponseFinishReasons); !ok {
			return false
		}
	} else {
		return false
	}
	switch v.Type() {
	case pcommon.ValueTypeSlice:
	case pcommon.ValueTypeStr:
		if str := v.Str(); len(str) > 0 && str[0] == '[' {
			// A JSON array in a string (Mastra's), read on this rare path only.
			var reasons []string
			if json.Unmarshal([]byte(str), &reasons) == nil {
				return slices.ContainsFunc(reasons, isError)
			}
		}
		return isError(v.Str())
	default:
		return false
	}
	if v.Type() == pcommon.ValueTypeStr {
		return isError(v.Str())
	}
	s := v.Slice()
	for i := range s.Len() {
		if isError(s.At(i).Str()) {
			return true
		}
	}
	return false
}

// isError reports whether s is "error", in any case.
func isError(s string) bool { return len(s) == 5 && strings.EqualFold(s, "error") }

// TokenUsage is the span's usage as the conventions mean it: [Reading.Usage]
// when the span reports usage in attributes; otherwise the usage a dialect
// keeps inside a JSON attribute (Langfuse's
// langfuse.observation.usage_details, the usage of Genkit's genkit:output).
// The JSON is decoded only for spans that need it.
//
// Some libraries pass a provider's own input count through, which leaves
// cached tokens out; TokenUsage adds them back, each rule keyed on the
// evidence that identifies the library (see [Reading.SetScope]) and proven
// by a payload under testdata/real. The span's attributes are not changed.
//
// A model call's class that none of these gives is taken from the usage its
// provider reported in a response body kept as an attribute (OpenAI's
// usage, Anthropic's, Gemini's usageMetadata; see withNativeUsage).
func (r *Reading) TokenUsage() Usage {
	if r.ev&evUsage == 0 && r.Kind != Inference && r.seen[idLFUsage] == 0 && r.Dialect != DialectGenkit {
		// No usage key, no dialect usage JSON, no model call to look in
		// a body for: most spans end here, at a few bytes of the reading
		// (the usage rule asks every span).
		return Usage{}
	}
	u := r.keyUsage()
	if r.Kind != Inference || u.Input != 0 && u.Output != 0 && u.CacheRead != 0 && u.CacheCreation != 0 && u.Reasoning != 0 ||
		r.seen[idOutputValue]|r.seen[idTLOutput]|r.seen[idGKOutput] == 0 && !strings.HasPrefix(r.scope, adkScope) {
		return u // every class given, or no body that withNativeUsage reads
	}
	return r.withNativeUsage(u)
}

// keyUsage is the usage the span's usage keys and its dialect's usage JSON
// give (see [Reading.TokenUsage]).
func (r *Reading) keyUsage() Usage {
	if r.ev&evUsage == 0 {
		// No usage key (every usage field's source marks the evidence): only
		// a dialect's usage JSON can give some. Most spans end here, having
		// touched no more of the reading than this.
		return r.jsonUsage()
	}
	if r.Has(FieldInputTokens) || r.Has(FieldOutputTokens) {
		u := r.Usage()
		switch {
		case r.scope == "@traceloop/instrumentation-anthropic" && strings.EqualFold(r.Str(FieldProvider), "anthropic"):
			// OpenLLMetry JS's Anthropic instrumentation (0.27.0) writes
			// Anthropic's input_tokens as gen_ai.usage.input_tokens: 25 in
			// testdata/real/openllmetry-anthropic/payloads/stream.traces.json,
			// where the server sent 25 uncached + 1100 read + 210 written.
			u.Input += u.CacheRead + u.CacheCreation
		case r.Dialect == DialectVercel && strings.HasPrefix(r.Str(FieldProvider), "anthropic.") && r.seen[idAINoCache] == 0:
			// The Vercel AI SDK before v6 (scope "ai") reports Anthropic's
			// input_tokens as ai.usage.inputTokens (and, on doGenerate and
			// doStream, as gen_ai.usage.input_tokens) and the cache write only
			// in ai.response.providerMetadata:
			// testdata/real/vercel-ai-v5/payloads/stream-anthropic.traces.json
			// (inputTokens 25, cachedInputTokens 1100, providerMetadata
			// cache_creation_input_tokens 210). v6 reports the total and
			// ai.usage.inputTokenDetails.noCacheTokens.
			if v, ok := r.attr(idAIProvMeta); ok && !r.Has(FieldCacheCreationTokens) {
				u.CacheCreation = anthropicCacheWrite(v)
			}
			u.Input += u.CacheRead + u.CacheCreation
		}
		return u
	}
	if u, ok := r.jsonUsageOK(); ok {
		return u
	}
	return r.Usage()
}

// jsonUsage is the usage a dialect keeps in a JSON attribute, zero when none.
func (r *Reading) jsonUsage() Usage {
	u, _ := r.jsonUsageOK()
	return u
}

// jsonUsageOK is the usage a dialect keeps in a JSON attribute: Langfuse's
// langfuse.observation.usage_details, Genkit's genkit:output.
func (r *Reading) jsonUsageOK() (Usage, bool) {
	if v, ok := r.attr(idLFUsage); ok {
		if u, ok := langfuseUsage(v); ok {
			return u, true
		}
	}
	if r.Dialect == DialectGenkit {
		if v, ok := r.attr(idGKOutput); ok {
			if u, ok := genkitUsage(v); ok {
				return u, true
			}
		}
	}
	return Usage{}, false
}

// jsonObject decodes a string or map attribute into an object.
func jsonObject(v pcommon.Value) (map[string]any, bool) {
	switch v.Type() {
	case pcommon.ValueTypeMap:
		return v.Map().AsRaw(), true
	case pcommon.ValueTypeStr:
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(v.Str()))
		d.UseNumber()
		if d.Decode(&m) != nil {
			return nil, false
		}
		return m, true
	}
	return nil, false
}

func intOf(m map[string]any, keys ...string) (int64, bool) {
	for _, k := range keys {
		switch n := m[k].(type) {
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return i, true
			}
			if f, err := n.Float64(); err == nil {
				return int64(f), true
			}
		case int64:
			return n, true
		case float64:
			return int64(n), true
		}
	}
	return 0, false
}

// langfuseUsage reads langfuse.observation.usage_details. Langfuse's "input"
// means uncached input and its "output" excludes reasoning (its ingestion
// subtracts them: packages/shared/src/server/otel/OtelIngestionProcessor.ts),
// so they are added back; keys spelled the provider's way
// (prompt_tokens, input_tokens) already include them.
func langfuseUsage(v pcommon.Value) (Usage, bool) {
	m, ok := jsonObject(v)
	if !ok {
		return Usage{}, false
	}
	var u Usage
	u.CacheRead, _ = intOf(m, "input_cached_tokens", "cache_read_input_tokens", "input_cache_read", "cache_read")
	u.CacheCreation, _ = intOf(m, "input_cache_creation", "cache_creation_input_tokens", "input_cache_write", "cache_write")
	u.Reasoning, _ = intOf(m, "output_reasoning_tokens", "output_reasoning", "reasoning_tokens")
	in, hasIn := intOf(m, "input")
	if hasIn {
		u.Input = in + u.CacheRead + u.CacheCreation
	} else if in, ok := intOf(m, "prompt_tokens", "input_tokens", "promptTokens", "inputTokens"); ok {
		u.Input, hasIn = in, true
	}
	out, hasOut := intOf(m, "output")
	if hasOut {
		u.Output = out + u.Reasoning
	} else if out, ok := intOf(m, "completion_tokens", "output_tokens", "completionTokens", "outputTokens"); ok {
		u.Output, hasOut = out, true
	}
	return u, hasIn || hasOut
}

// genkitUsage reads the usage of a Genkit model response (genkit:output
// {"usage":{inputTokens, outputTokens, cachedContentTokens, thoughtsTokens}}).
func genkitUsage(v pcommon.Value) (Usage, bool) {
	m, ok := jsonObject(v)
	if !ok {
		return Usage{}, false
	}
	um, ok := m["usage"].(map[string]any)
	if !ok {
		return Usage{}, false
	}
	var u Usage
	in, hasIn := intOf(um, "inputTokens")
	out, hasOut := intOf(um, "outputTokens")
	u.Input, u.Output = in, out
	u.CacheRead, _ = intOf(um, "cachedContentTokens")
	u.Reasoning, _ = intOf(um, "thoughtsTokens")
	return u, hasIn || hasOut
}

// anthropicCacheWrite reads {"anthropic":{"usage":{"cache_creation_input_tokens":N}}}
// out of the Vercel AI SDK's ai.response.providerMetadata.
func anthropicCacheWrite(v pcommon.Value) int64 {
	m, ok := jsonObject(v)
	if !ok {
		return 0
	}
	a, _ := m["anthropic"].(map[string]any)
	u, _ := a["usage"].(map[string]any)
	if u == nil {
		return 0
	}
	n, _ := intOf(u, "cache_creation_input_tokens")
	return n
}

// ToolName is the tool a call span ran: the tool field (any of the
// table's tool keys), else the name the span's own name gives
// ([Reading.ToolFromName]).
func (r *Reading) ToolName(spanName string) string {
	if t := r.Str(FieldTool); t != "" || r.Kind != Call {
		return t
	}
	return r.ToolFromName(spanName)
}
