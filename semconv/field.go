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

// fieldNames are the fields' paths in a record, by Field: the dialect
// table (dialects/dialects.yaml) lists them in this order.
var fieldNames = [NumFields]string{"op", "conversation_id", "code", "tool", "tool_call_id", "tool_type", "args", "result",
	"provider", "model", "request_model", "response_id", "finish_reasons", "usage.input_tokens", "usage.output_tokens",
	"usage.cache_read_input_tokens", "usage.cache_creation_input_tokens", "usage.reasoning_output_tokens", "cost",
	"input", "output", "system", "tools", "agent", "agent_id"}

// fieldSpecs is the embedded dialect table's fields: for each, the keys
// that carry it, best first (dialects/dialects.yaml). A table laid over it
// ([UseDialects]) only adds sources after these.
var fieldSpecs = embedded.specs

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
	for _, s := range active.Load().specs[f].sources {
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
