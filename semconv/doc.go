// Package semconv holds the GenAI attribute names agenttrace understands and
// maps them onto one model.
//
// Agents are instrumented with the OpenTelemetry GenAI semantic conventions
// (pinned here at v1.41.0, the last core release that carried them; GenAI
// moved to its own repository at v1.42.0) or with older dialects that real
// instrumentations still emit: deprecated GenAI names (gen_ai.system,
// gen_ai.usage.prompt_tokens, ...), OpenInference (llm.*, openinference.span.kind),
// OpenLLMetry (traceloop.*, llm.usage.total_tokens) and the Vercel AI SDK
// (ai.*). The package owns those names so that the rest of agenttrace does not
// depend on an upstream package that has already dropped them once.
//
// [Read] looks at one span's name and attributes in a single pass and returns a
// [Reading]: the span's [Kind] (call, inference, agent or span), and for each
// record [Field] the attribute that supplies it, in priority order across
// dialects. It never changes the attributes: a Reading says which attribute a
// field came from, so a writer can promote it and a reader can put it back
// under the same key. The package does no I/O.
//
// Which keys and span names mean what is data: the dialect table
// dialects/dialects.yaml, embedded, which Read and [ReadKV] apply and from
// which kvlookup.go is generated. Users lay their own files over it
// ([LoadDialects], [UseDialects]); docs/dialects.md explains it. Where no
// rule decides, general rules classify by evidence: a "{operation}
// {target}" span name, a model beside usage or messages, a provider's own
// request/response body.
//
// Wrapper spans (invoke_agent, ai.generateText, workflow spans) often repeat
// the usage of their child model calls. Their usage is read like any other,
// but only [Inference] readings are meant to be summed; see [Kind.CountsTokens].
package semconv
