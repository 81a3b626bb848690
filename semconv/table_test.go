package semconv

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Table says what fieldSpecs says, field by field and key by key.
func TestTableMatchesFieldSpecs(t *testing.T) {
	table := Table()
	require.Len(t, table, int(NumFields))
	for f := range NumFields {
		fi := table[f]
		require.Equal(t, f.Name(), fi.Name, "fields keep Read's order")
		require.Equal(t, f.Type().String(), fi.Type)
		require.Equal(t, f.CanonicalKey(), fi.Sources[0].Key)
		byName, ok := FieldByName(fi.Name)
		require.True(t, ok)
		require.Equal(t, f, byName)
		for _, s := range fi.Sources {
			typ, ok := f.SourceType(s.Key)
			require.True(t, ok, "%s: %s", fi.Name, s.Key)
			require.Equal(t, typ.String(), s.Type, "%s: %s", fi.Name, s.Key)
		}
	}
}

// Every type and condition has a name other readers can switch on.
func TestTableNames(t *testing.T) {
	known := []string{"", CondOpenInferenceTool, CondTraceloopTool, CondTraceloopAgent, CondError, CondGenkitModel, CondGenkitTool, CondGenkitFlow}
	for _, fi := range Table() {
		require.Contains(t, []string{"string", "int", "double", "strings", "json"}, fi.Type, fi.Name)
		for _, s := range fi.Sources {
			require.NotEmpty(t, s.Type, "%s: %s", fi.Name, s.Key)
			require.Contains(t, known, s.Condition, "%s: %s", fi.Name, s.Key)
		}
	}
	require.Empty(t, ValueType(200).String())
}

// The conditions in Table are the ones Read applies: each conditional key
// is promoted exactly on the spans its condition names.
func TestTableConditions(t *testing.T) {
	conditional := map[string]string{} // key -> condition
	for _, fi := range Table() {
		for _, s := range fi.Sources {
			if s.Condition != "" {
				conditional[fi.Name+" "+s.Key] = s.Condition
			}
		}
	}
	require.Equal(t, map[string]string{
		"code error.type":                CondError,
		"tool traceloop.entity.name":     CondTraceloopTool,
		"args input.value":               CondOpenInferenceTool,
		"args traceloop.entity.input":    CondTraceloopTool,
		"result output.value":            CondOpenInferenceTool,
		"result traceloop.entity.output": CondTraceloopTool,
		"agent traceloop.entity.name":    CondTraceloopAgent,
		"model genkit:name":              CondGenkitModel,
		"tool genkit:name":               CondGenkitTool,
		"agent genkit:name":              CondGenkitFlow,
	}, conditional)

	tests := []struct {
		name   string
		kind   [2]string // the attribute that classifies the span
		key    string
		isErr  bool
		field  Field
		lifted bool
	}{
		{"OpenInference tool", [2]string{OISpanKind, "TOOL"}, OIInputValue, false, FieldArgs, true},
		{"OpenInference chain", [2]string{OISpanKind, "CHAIN"}, OIInputValue, false, FieldArgs, false},
		{"Traceloop tool", [2]string{TLSpanKind, "tool"}, TLEntityName, false, FieldTool, true},
		{"Traceloop agent", [2]string{TLSpanKind, "agent"}, TLEntityName, false, FieldAgent, true},
		{"Traceloop task", [2]string{TLSpanKind, "task"}, TLEntityName, false, FieldAgent, false},
		{"error status", [2]string{}, ErrorType, true, FieldCode, true},
		{"no error status", [2]string{}, ErrorType, false, FieldCode, false},
		{"Genkit model", [2]string{GenkitSubtype, "model"}, GenkitName, false, FieldModel, true},
		{"Genkit tool is no model", [2]string{GenkitSubtype, "tool"}, GenkitName, false, FieldModel, false},
		{"Genkit tool", [2]string{GenkitSubtype, "tool"}, GenkitName, false, FieldTool, true},
		{"Genkit flow", [2]string{GenkitSubtype, "flow"}, GenkitName, false, FieldAgent, true},
		{"Genkit util is nothing", [2]string{GenkitType, "util"}, GenkitName, false, FieldAgent, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs := pcommon.NewMap()
			if tt.kind[0] != "" {
				attrs.PutStr(tt.kind[0], tt.kind[1])
			}
			attrs.PutStr(tt.key, "v")
			var r Reading
			Read(&r, "span", attrs, tt.isErr)
			require.Equal(t, tt.lifted, r.Has(tt.field))
		})
	}
}

// Table hands out a copy: changing it changes nothing for the next caller.
func TestTableIsACopy(t *testing.T) {
	a := Table()
	a[0].Name = "changed"
	a[1].Sources[0].Key = "changed"
	b := Table()
	require.Equal(t, FieldOp.Name(), b[0].Name)
	require.Equal(t, FieldConversationID.CanonicalKey(), b[1].Sources[0].Key)
	require.False(t, slices.ContainsFunc(b, func(fi FieldInfo) bool { return fi.Name == "changed" }))
}
