package semconv

import "strings"

// NormalizeFinishReason folds the spellings providers and SDKs use for the
// same finish reason into one, for reports. Artifacts keep the original.
//
// tool-calls (Vercel), tool_calls (OpenAI), tool_call (the v1.41 message
// schema) and tool_use (Anthropic) all become "tool_call"; end_turn and
// STOP become "stop"; max_tokens and MAX_TOKENS become "length".
func NormalizeFinishReason(s string) string {
	r := strings.ToLower(strings.TrimSpace(s))
	r = strings.ReplaceAll(r, "-", "_")
	switch r {
	case "tool_calls", "tool_call", "tool_use", "function_call":
		return "tool_call"
	case "end_turn", "stop", "stop_sequence", "complete":
		return "stop"
	case "max_tokens", "length", "max_output_tokens":
		return "length"
	case "content_filter", "safety", "refusal":
		return "content_filter"
	}
	return r
}

// NormalizeProvider maps deprecated gen_ai.system values and dialect
// provider strings onto gen_ai.provider.name values, for reports.
func NormalizeProvider(s string) string {
	p := strings.ToLower(strings.TrimSpace(s))
	// Vercel writes "<provider>.<api>", e.g. "openai.chat", "anthropic.messages".
	if i := strings.IndexByte(p, '.'); i > 0 {
		switch p[:i] {
		case "openai", "anthropic", "mistral", "groq", "cohere", "deepseek", "xai", "google", "perplexity":
			p = p[:i]
		}
	}
	switch p {
	case "xai":
		return "x_ai"
	case "vertex_ai", "vertexai":
		return "gcp.vertex_ai"
	case "gemini", "google":
		return "gcp.gemini"
	case "az.ai.inference":
		return "azure.ai.inference"
	case "az.ai.openai", "azure":
		return "azure.ai.openai"
	case "mistralai", "mistral":
		return "mistral_ai"
	case "aws", "bedrock":
		return "aws.bedrock"
	}
	return p
}

// NormalizeOperation lowercases and trims a gen_ai.operation.name value.
// Values that need neither (nearly all) come back as they are, without
// the cost of a copy: this runs for every span that ends.
func NormalizeOperation(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(strings.TrimSpace(s))
		}
	}
	return s
}
