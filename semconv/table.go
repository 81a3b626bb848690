package semconv

// The dialect table as data, for readers outside Go and for tools: the
// fields of dialects/dialects.yaml with their sources, as [Read] applies
// them (with any table laid over by [UseDialects]).

// FieldInfo is one row of the dialect table: a record field and the
// attribute keys that supply it.
type FieldInfo struct {
	// Name is the field's path in a record: "model", "usage.input_tokens".
	Name string `json:"name"`
	// Type is the type of the field's value, as ValueType.String spells it.
	Type string `json:"type"`
	// Sources are the keys that supply the field, best first. Sources[0]
	// is the canonical key, the one a record without an alias goes back to.
	Sources []SourceInfo `json:"sources"`
}

// SourceInfo is one attribute key that may supply a field.
type SourceInfo struct {
	// Key is the attribute key.
	Key string `json:"key"`
	// Type is the attribute type the key must have to be used, as
	// ValueType.String spells it. A finish-reason key of type "string"
	// supplies a one-element list.
	Type string `json:"type"`
	// Condition, when not empty, restricts the key to spans of one kind:
	// one of the Cond constants.
	Condition string `json:"condition,omitempty"`
}

// Conditions a source may carry, as Table spells them. They are part of
// the table's contract with other readers: a new condition needs code in
// reader.
const (
	// CondOpenInferenceTool: the span was classified a call by the
	// OpenInference rule (openinference.span.kind TOOL).
	CondOpenInferenceTool = "openinference_tool"
	// CondTraceloopTool: the span was classified a call by the OpenLLMetry
	// rule (traceloop.span.kind tool).
	CondTraceloopTool = "traceloop_tool"
	// CondTraceloopAgent: the span was classified an agent by the
	// OpenLLMetry rule (traceloop.span.kind workflow or agent).
	CondTraceloopAgent = "traceloop_agent"
	// CondError: the span's status is Error.
	CondError = "error"
	// CondGenkitModel: the span was classified an inference by the Genkit
	// rule (genkit:metadata:subtype model or embedder).
	CondGenkitModel = "genkit_model"
	// CondGenkitTool: the span was classified a call by the Genkit rule
	// (genkit:metadata:subtype tool).
	CondGenkitTool = "genkit_tool"
	// CondGenkitFlow: the span was classified an agent by the Genkit rule
	// (a flow).
	CondGenkitFlow = "genkit_flow"
)

var conditionNames = [...]string{
	always:              "",
	ifOpenInferenceTool: CondOpenInferenceTool,
	ifTraceloopTool:     CondTraceloopTool,
	ifTraceloopAgent:    CondTraceloopAgent,
	ifError:             CondError,
	ifGenkitModel:       CondGenkitModel,
	ifGenkitTool:        CondGenkitTool,
	ifGenkitFlow:        CondGenkitFlow,
}

var valueTypeNames = [...]string{
	TypeString:  "string",
	TypeInt:     "int",
	TypeDouble:  "double",
	TypeStrings: "strings",
	TypeJSON:    "json",
}

// String returns the type's name in [Table]: "string", "int", "double",
// "strings" or "json".
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return ""
}

// Table returns the dialect table: every [Field] in the order [Read]
// resolves them (a key taken by an earlier field is not offered to a later
// one), each with its sources in priority order. The result is a fresh
// copy; callers may keep or change it.
func Table() []FieldInfo {
	out := make([]FieldInfo, 0, NumFields)
	specs := &active.Load().specs
	for f := range NumFields {
		spec := specs[f]
		fi := FieldInfo{Name: spec.name, Type: spec.typ.String(), Sources: make([]SourceInfo, len(spec.sources))}
		for i, s := range spec.sources {
			fi.Sources[i] = SourceInfo{Key: s.key, Type: s.typ.String(), Condition: conditionNames[s.cond]}
		}
		out = append(out, fi)
	}
	return out
}
