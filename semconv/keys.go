package semconv

// Current GenAI attribute names, semantic conventions v1.41.0.
const (
	OperationName             = "gen_ai.operation.name"
	ProviderName              = "gen_ai.provider.name"
	RequestModel              = "gen_ai.request.model"
	ResponseModel             = "gen_ai.response.model"
	ResponseID                = "gen_ai.response.id"
	ResponseFinishReasons     = "gen_ai.response.finish_reasons"
	UsageInputTokens          = "gen_ai.usage.input_tokens"
	UsageOutputTokens         = "gen_ai.usage.output_tokens"
	UsageCacheReadInput       = "gen_ai.usage.cache_read.input_tokens"
	UsageCacheCreationInput   = "gen_ai.usage.cache_creation.input_tokens"
	UsageReasoningOutput      = "gen_ai.usage.reasoning.output_tokens"
	ConversationID            = "gen_ai.conversation.id"
	AgentID                   = "gen_ai.agent.id"
	AgentName                 = "gen_ai.agent.name"
	ToolName                  = "gen_ai.tool.name"
	ToolCallID                = "gen_ai.tool.call.id"
	ToolType                  = "gen_ai.tool.type"
	ToolCallArguments         = "gen_ai.tool.call.arguments"
	ToolCallResult            = "gen_ai.tool.call.result"
	ToolDefinitions           = "gen_ai.tool.definitions"
	InputMessages             = "gen_ai.input.messages"
	OutputMessages            = "gen_ai.output.messages"
	SystemInstructions        = "gen_ai.system_instructions"
	ErrorType                 = "error.type"
	RequestMaxTokens          = "gen_ai.request.max_tokens"
	RequestTemperature        = "gen_ai.request.temperature"
	UsageCacheWriteInputGenAI = "gen_ai.usage.cache_write.input_tokens" // genai repository main (#440), renamed from cache_creation
)

// Values of gen_ai.operation.name (v1.41.0).
const (
	OpChat           = "chat"
	OpTextCompletion = "text_completion"
	OpGenerate       = "generate_content"
	OpEmbeddings     = "embeddings"
	OpRetrieval      = "retrieval"
	OpCreateAgent    = "create_agent"
	OpInvokeAgent    = "invoke_agent"
	OpExecuteTool    = "execute_tool"
	OpInvokeWorkflow = "invoke_workflow"
)

// Deprecated GenAI names: read, never written.
const (
	System                 = "gen_ai.system"                  // deprecated v1.37.0 for gen_ai.provider.name
	UsagePromptTokens      = "gen_ai.usage.prompt_tokens"     // deprecated v1.27.0 for input_tokens
	UsageCompletionTokens  = "gen_ai.usage.completion_tokens" // deprecated v1.27.0 for output_tokens
	Prompt                 = "gen_ai.prompt"                  // deprecated v1.28.0 (JSON, OpenAI messages)
	Completion             = "gen_ai.completion"              // deprecated v1.28.0
	EventSystemMessage     = "gen_ai.system.message"          // per-message events, v1.28.0 to v1.36.0
	EventUserMessage       = "gen_ai.user.message"
	EventAssistantMessage  = "gen_ai.assistant.message"
	EventToolMessage       = "gen_ai.tool.message"
	EventChoice            = "gen_ai.choice"
	EventContentPrompt     = "gen_ai.content.prompt" // v1.26 to v1.27
	EventContentCompletion = "gen_ai.content.completion"
	EventInferenceDetails  = "gen_ai.client.inference.operation.details" // v1.37.0, current
	EventEvaluationResult  = "gen_ai.evaluation.result"
)

// OpenInference (Arize Phoenix) names.
const (
	OISpanKind           = "openinference.span.kind"
	OIModelName          = "llm.model_name"
	OIRequestModelName   = "llm.request.model_name"
	OIRespModelName      = "llm.response.model_name"
	OIEmbeddingModelName = "embedding.model_name"
	OIProvider           = "llm.provider"
	OISystem             = "llm.system"
	OITokensPrompt       = "llm.token_count.prompt"
	OITokensCompletion   = "llm.token_count.completion"
	OITokensTotal        = "llm.token_count.total"
	OITokensCacheRead    = "llm.token_count.prompt_details.cache_read"
	OITokensCacheWrite   = "llm.token_count.prompt_details.cache_write"
	OITokensReasoning    = "llm.token_count.completion_details.reasoning"
	OIInputMessages      = "llm.input_messages"  // flattened: llm.input_messages.<i>.message.<field>
	OIOutputMessages     = "llm.output_messages" // flattened like input
	OIToolName           = "tool.name"
	OIToolID             = "tool.id"
	OIInputValue         = "input.value"
	OIOutputValue        = "output.value"
	OISessionID          = "session.id"
	OIAgentName          = "agent.name"
	OICostTotal          = "llm.cost.total"
	OIFinishReason       = "llm.finish_reason"
)

// OpenLLMetry (Traceloop) names.
const (
	TLSpanKind         = "traceloop.span.kind"
	TLEntityName       = "traceloop.entity.name"
	TLEntityInput      = "traceloop.entity.input"
	TLEntityOutput     = "traceloop.entity.output"
	TLRequestType      = "llm.request.type"
	TLUsageTotal       = "llm.usage.total_tokens"
	TLUsageReasoning   = "llm.usage.reasoning_tokens"
	TLGenAITotal       = "gen_ai.usage.total_tokens"
	TLCacheReadInput   = "gen_ai.usage.cache_read_input_tokens"     // pre-0.5 underscore form
	TLCacheCreateInput = "gen_ai.usage.cache_creation_input_tokens" // pre-0.5 underscore form
	TLReasoningTokens  = "gen_ai.usage.reasoning_tokens"
	TLFinishReason     = "gen_ai.response.finish_reason"
	TLPromptPrefix     = "gen_ai.prompt."     // flattened: gen_ai.prompt.<i>.role / .content
	TLCompletionPrefix = "gen_ai.completion." // flattened: gen_ai.completion.<i>.role / .content / .finish_reason
)

// Vercel AI SDK (legacy ai.* dialect, instrumentation scope "ai") names.
const (
	AIOperationID         = "ai.operationId"
	AIModelID             = "ai.model.id"
	AIModelProvider       = "ai.model.provider"
	AIResponseModel       = "ai.response.model"
	AIResponseID          = "ai.response.id"
	AIFinishReason        = "ai.response.finishReason"
	AIPromptMessages      = "ai.prompt.messages"
	AIUsagePromptTokens   = "ai.usage.promptTokens"
	AIUsageCompletion     = "ai.usage.completionTokens"
	AIUsageInputTokens    = "ai.usage.inputTokens"
	AIUsageOutputTokens   = "ai.usage.outputTokens"
	AIUsageTotalTokens    = "ai.usage.totalTokens"
	AIUsageReasoning      = "ai.usage.reasoningTokens"
	AIUsageCachedInput    = "ai.usage.cachedInputTokens"
	AIUsageCacheRead      = "ai.usage.inputTokenDetails.cacheReadTokens"
	AIUsageCacheWrite     = "ai.usage.inputTokenDetails.cacheWriteTokens"
	AIUsageReasoningV7    = "ai.usage.outputTokenDetails.reasoningTokens"
	AIToolCallName        = "ai.toolCall.name"
	AIToolCallID          = "ai.toolCall.id"
	AIToolCallArgs        = "ai.toolCall.args"
	AIToolCallResult      = "ai.toolCall.result"
	AITelemetrySessionID  = "ai.telemetry.metadata.sessionId"
	AITelemetryFunctionID = "ai.telemetry.functionId"
)

// Cost attributes: none is standard in v1.41.0; these are what SDKs emit.
const (
	UsageCost     = "gen_ai.usage.cost"
	OperationCost = "operation.cost" // Pydantic AI / Logfire
)

// Attributes agenttrace itself writes.
const (
	// BudgetTokens carries a token budget on a resource or root span.
	BudgetTokens = "agenttrace.budget.tokens"
	// BudgetUSD carries a cost budget in dollars (a double) on a resource
	// or root span.
	BudgetUSD = "agenttrace.budget.usd"
	// BudgetWarnThreshold carries the near-budget fraction (0..1).
	BudgetWarnThreshold = "agenttrace.budget.warn_threshold"
	// Redacted marks spans whose content was redacted before writing.
	Redacted = "agenttrace.redacted"
	// EstimatedTokens keeps the estimated_tokens of a tool-dispatch record
	// that had no OTel identity, so its estimate survives conversion.
	EstimatedTokens = "agenttrace.estimated_tokens"
	// TruncatedPrefix begins the key of the marker a writer adds beside a
	// value it cut short (artifact.TruncatedPrefix says more). [Read]
	// counts the markers in its walk ([Reading.Markers]), so a writer
	// does not walk the attributes again to learn there are none.
	TruncatedPrefix = "agenttrace.truncated."
	// Synthesized marks spans agenttrace made up (the root of an artifact
	// that had no trace ids).
	Synthesized = "agenttrace.synthesized"
	// BudgetExceeded marks a span started after its token budget ran out,
	// so a trace viewer shows where the agent went on regardless.
	BudgetExceeded = "agenttrace.budget.exceeded"
)

// Langfuse names: its SDKs' span attributes (packages/shared/src/server/otel/attributes.ts).
const (
	LFObservationType   = "langfuse.observation.type" // generation, embedding, span, tool, agent, chain, retriever, event, guardrail, evaluator
	LFModelName         = "langfuse.observation.model.name"
	LFUsageDetails      = "langfuse.observation.usage_details" // JSON {input, output, total, <cache keys>}; input excludes cache
	LFCostDetails       = "langfuse.observation.cost_details"  // JSON {input, output, total} in USD
	LFObservationInput  = "langfuse.observation.input"
	LFObservationOutput = "langfuse.observation.output"
	LFLevel             = "langfuse.observation.level" // DEBUG, DEFAULT, WARNING, ERROR
	LFStatusMessage     = "langfuse.observation.status_message"
	LFSessionID         = "langfuse.session.id"
	LFUserID            = "langfuse.user.id"
	LFTraceInput        = "langfuse.trace.input"
	LFTraceOutput       = "langfuse.trace.output"
)

// Genkit names (genkit core tracing: genkit:type, genkit:metadata:subtype, …).
const (
	GenkitType    = "genkit:type"             // action, flow, util, …
	GenkitSubtype = "genkit:metadata:subtype" // model, tool, flow, util, embedder, …
	GenkitName    = "genkit:name"             // the action's name; a model span's model
	GenkitInput   = "genkit:input"            // JSON; a model request {messages, config, tools}
	GenkitOutput  = "genkit:output"           // JSON; a model response {message, finishReason, usage}
	GenkitState   = "genkit:state"            // success or error
	GenkitPath    = "genkit:path"
)

// More usage spellings.
const (
	AIUsageTokens         = "ai.usage.tokens"                          // Vercel: doEmbed's token count
	AIProviderMetadata    = "ai.response.providerMetadata"             // Vercel: the provider's own usage, JSON
	AIUsageNoCache        = "ai.usage.inputTokenDetails.noCacheTokens" // Vercel v6+
	UsageCacheWriteUnders = "gen_ai.usage.cache_write_input_tokens"    // underscore form of cache_write
)
