package semconv

// Field is a record field that agenttrace promotes out of a span's
// attributes, such as the model or the input token count.
type Field uint8

// The promoted fields. Their order is the order in which [Read] resolves
// them: an attribute taken by an earlier field is not offered to a later one.
const (
	FieldOp Field = iota
	FieldConversationID
	FieldCode
	FieldTool
	FieldToolCallID
	FieldToolType
	FieldArgs
	FieldResult
	FieldProvider
	FieldModel
	FieldRequestModel
	FieldResponseID
	FieldFinishReasons
	FieldInputTokens
	FieldOutputTokens
	FieldCacheReadTokens
	FieldCacheCreationTokens
	FieldReasoningTokens
	FieldCost
	FieldInput
	FieldOutput
	FieldSystem
	FieldTools
	FieldAgent
	FieldAgentID
	// NumFields is the number of fields, for arrays indexed by Field.
	NumFields
)

// ValueType is the attribute type a field or source expects.
type ValueType uint8

// Value types of fields and their sources.
const (
	// TypeString is a string attribute.
	TypeString ValueType = iota
	// TypeInt is an int64 attribute.
	TypeInt
	// TypeDouble is a float64 attribute.
	TypeDouble
	// TypeStrings is a string-array attribute (finish reasons). A source of
	// this field may be a single string, read as a one-element list.
	TypeStrings
	// TypeJSON is a string holding JSON, or a structured (map or array)
	// attribute; the GenAI conventions allow both for content attributes.
	TypeJSON
)

// condition restricts a source to spans of one dialect, where a generic key
// (input.value, traceloop.entity.name) means this field and no other.
type condition uint8

const (
	always condition = iota
	ifOpenInferenceTool
	ifTraceloopTool
	ifTraceloopAgent
	ifError       // error.type is the code only on a span whose status is Error
	ifGenkitModel // genkit:name is the model only on a Genkit model span
	ifGenkitTool  // genkit:name is the tool only on a Genkit tool span
	ifGenkitFlow  // genkit:name is the agent only on a Genkit flow span
)

type source struct {
	key  string
	typ  ValueType
	cond condition
}

type fieldSpec struct {
	name    string // the field's path in a record, e.g. "usage.input_tokens"
	typ     ValueType
	sources []source // priority order; sources[0].key is the canonical key
}

func str(k string) source  { return source{key: k, typ: TypeString} }
func num(k string) source  { return source{key: k, typ: TypeInt} }
func dbl(k string) source  { return source{key: k, typ: TypeDouble} }
func js(k string) source   { return source{key: k, typ: TypeJSON} }
func strs(k string) source { return source{key: k, typ: TypeStrings} }

func (s source) when(c condition) source { s.cond = c; return s }

// fieldSpecs is the dialect table: for each field, the keys that carry it,
// best first. It follows the normalisation matrix in docs/format.md.
var fieldSpecs = [NumFields]fieldSpec{
	FieldOp:             {"op", TypeString, []source{str(OperationName)}},
	FieldConversationID: {"conversation_id", TypeString, []source{str(ConversationID), str(OISessionID), str(AITelemetrySessionID), str(LFSessionID)}},
	FieldCode:           {"code", TypeString, []source{str(ErrorType).when(ifError)}},
	FieldTool: {"tool", TypeString, []source{
		str(ToolName), str(OIToolName), str(AIToolCallName), str(TLEntityName).when(ifTraceloopTool), str(GenkitName).when(ifGenkitTool)}},
	FieldToolCallID: {"tool_call_id", TypeString, []source{str(ToolCallID), str(AIToolCallID), str(OIToolID)}},
	FieldToolType:   {"tool_type", TypeString, []source{str(ToolType)}},
	FieldArgs: {"args", TypeJSON, []source{
		js(ToolCallArguments), js(AIToolCallArgs), js(OIInputValue).when(ifOpenInferenceTool), js(TLEntityInput).when(ifTraceloopTool)}},
	FieldResult: {"result", TypeJSON, []source{
		js(ToolCallResult), js(AIToolCallResult), js(OIOutputValue).when(ifOpenInferenceTool), js(TLEntityOutput).when(ifTraceloopTool)}},
	FieldProvider: {"provider", TypeString, []source{
		str(ProviderName), str(System), str(OIProvider), str(OISystem), str(AIModelProvider)}},
	FieldModel: {"model", TypeString, []source{
		str(ResponseModel), str(AIResponseModel), str(OIRespModelName), str(OIModelName), str(AIModelID), str(LFModelName), str(RequestModel), str(OIRequestModelName), str(OIEmbeddingModelName),
		str(GenkitName).when(ifGenkitModel)}},
	FieldRequestModel: {"request_model", TypeString, []source{str(RequestModel), str(OIRequestModelName)}},
	FieldResponseID:   {"response_id", TypeString, []source{str(ResponseID), str(AIResponseID)}},
	FieldFinishReasons: {"finish_reasons", TypeStrings, []source{
		strs(ResponseFinishReasons), str(AIFinishReason), str(TLFinishReason), str(OIFinishReason)}},
	FieldInputTokens: {"usage.input_tokens", TypeInt, []source{
		num(UsageInputTokens), num(UsagePromptTokens), num(OITokensPrompt), num(AIUsageInputTokens), num(AIUsagePromptTokens), num(AIUsageTokens)}},
	FieldOutputTokens: {"usage.output_tokens", TypeInt, []source{
		num(UsageOutputTokens), num(UsageCompletionTokens), num(OITokensCompletion), num(AIUsageOutputTokens), num(AIUsageCompletion)}},
	FieldCacheReadTokens: {"usage.cache_read_input_tokens", TypeInt, []source{
		num(UsageCacheReadInput), num(TLCacheReadInput), num(OITokensCacheRead), num(AIUsageCachedInput), num(AIUsageCacheRead)}},
	FieldCacheCreationTokens: {"usage.cache_creation_input_tokens", TypeInt, []source{
		num(UsageCacheCreationInput), num(UsageCacheWriteInputGenAI), num(TLCacheCreateInput), num(UsageCacheWriteUnders), num(OITokensCacheWrite), num(AIUsageCacheWrite)}},
	FieldReasoningTokens: {"usage.reasoning_output_tokens", TypeInt, []source{
		num(UsageReasoningOutput), num(TLReasoningTokens), num(TLUsageReasoning), num(OITokensReasoning), num(AIUsageReasoning), num(AIUsageReasoningV7)}},
	FieldCost:   {"cost", TypeDouble, []source{dbl(UsageCost), dbl(OICostTotal), dbl(OperationCost)}},
	FieldInput:  {"input", TypeJSON, []source{js(InputMessages), js(Prompt), js(AIPromptMessages)}},
	FieldOutput: {"output", TypeJSON, []source{js(OutputMessages), js(Completion)}},
	FieldSystem: {"system", TypeJSON, []source{js(SystemInstructions)}},
	FieldTools:  {"tools", TypeJSON, []source{js(ToolDefinitions)}},
	FieldAgent: {"agent", TypeString, []source{
		str(AgentName), str(OIAgentName), str(TLEntityName).when(ifTraceloopAgent), str(GenkitName).when(ifGenkitFlow)}},
	FieldAgentID: {"agent_id", TypeString, []source{str(AgentID)}},
}

// Name returns the field's path in a record ("model", "usage.input_tokens").
func (f Field) Name() string {
	if f < NumFields {
		return fieldSpecs[f].name
	}
	return ""
}

// Type returns the field's value type.
func (f Field) Type() ValueType { return fieldSpecs[f].typ }

// CanonicalKey returns the attribute key the field is written back to when a
// record does not name another source: the v1.41 GenAI key.
func (f Field) CanonicalKey() string { return fieldSpecs[f].sources[0].key }

// SourceType returns the attribute type the field takes when it came from
// key, and false when key is not a known source of the field. A finish
// reason read from a single-string key goes back as a single string.
func (f Field) SourceType(key string) (ValueType, bool) {
	for _, s := range fieldSpecs[f].sources {
		if s.key == key {
			return s.typ, true
		}
	}
	return f.Type(), false
}

// fieldsByLen indexes fields by the length of their name: decoders look a
// field up for every key of every record, and comparing two or three
// strings of the right length beats hashing.
var fieldsByLen = func() (idx [40][]Field) {
	for f := range NumFields {
		n := len(fieldSpecs[f].name)
		idx[n] = append(idx[n], f)
	}
	return idx
}()

// FieldByName returns the field whose record path is name.
func FieldByName(name string) (Field, bool) {
	if len(name) >= len(fieldsByLen) {
		return 0, false
	}
	for _, f := range fieldsByLen[len(name)] {
		if fieldSpecs[f].name == name {
			return f, true
		}
	}
	return 0, false
}

// KnownKeys returns every attribute key the dialect table or the classifier
// reads, always in the same order (the table's), so that a test drawing
// keys from it with a seeded generator can be replayed from the seed.
func KnownKeys() []string {
	keys := make([]string, numKnown)
	for k, id := range keyIDs {
		if int(id) < numKnown {
			keys[id] = k
		}
	}
	return keys
}
