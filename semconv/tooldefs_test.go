package semconv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// weatherSchema is the parameters' schema every capture of
// testdata/real declares for get_weather (harness/script.mjs).
var weatherSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"city": map[string]any{"type": "string"}},
	"required":   []any{"city"},
}

// TestToolDefs reads each shape the captures of testdata/real carry (the
// values below are copied from their payloads, library named).
func TestToolDefs(t *testing.T) {
	t.Parallel()
	weather := ToolDef{Name: "get_weather", Description: "Current weather for a city", Parameters: weatherSchema}
	cases := []struct {
		name  string
		attrs func(m pcommon.Map)
		want  []ToolDef
	}{
		{"openllmetry-openai: chat shape in a JSON string", func(m pcommon.Map) {
			m.PutStr(ToolDefinitions, `[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`)
		}, []ToolDef{weather}},
		{"openlit: flat shape", func(m pcommon.Map) {
			m.PutStr(ToolDefinitions, `[{"type":"function","name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`)
		}, []ToolDef{weather}},
		{"vercel-ai-v7: inputSchema", func(m pcommon.Map) {
			m.PutStr(ToolDefinitions, `[{"type":"function","name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"description":"Current weather for a city"}]`)
		}, []ToolDef{weather}},
		{"mastra: names only", func(m pcommon.Map) {
			m.PutStr(ToolDefinitions, `["get_weather"]`)
		}, []ToolDef{{Name: "get_weather"}}},
		{"openai-agents: no description", func(m pcommon.Map) {
			m.PutStr(ToolDefinitions, `[{"type":"function","name":"get_weather"}]`)
		}, []ToolDef{{Name: "get_weather"}}},
		{"vercel-ai-v5: ai.prompt.tools, a list of JSON strings", func(m pcommon.Map) {
			m.PutEmptySlice(AIPromptTools).AppendEmpty().SetStr(`{"type":"function","name":"get_weather","description":"Current weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`)
		}, []ToolDef{weather}},
		{"openinference-anthropic: llm.tools, Anthropic's input_schema", func(m pcommon.Map) {
			m.PutStr("llm.tools.0.tool.json_schema", `{"name":"get_weather","description":"Current weather for a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`)
		}, []ToolDef{weather}},
		{"openinference-openai: llm.tools, chat shape, in index order", func(m pcommon.Map) {
			m.PutStr("llm.tools.1.tool.json_schema", `{"type":"function","function":{"name":"second"}}`)
			m.PutStr("llm.tools.0.tool.json_schema", `{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`)
		}, []ToolDef{weather, {Name: "second"}}},
		{"openllmetry python: llm.request.functions", func(m pcommon.Map) {
			m.PutStr("llm.request.functions.0.name", "get_weather")
			m.PutStr("llm.request.functions.0.description", "Current weather for a city")
			m.PutStr("llm.request.functions.0.parameters", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
		}, []ToolDef{weather}},
		{"one tool named twice is listed once", func(m pcommon.Map) {
			m.PutStr(ToolDefinitions, `[{"type":"function","name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`)
			m.PutStr("llm.tools.0.tool.json_schema", `{"name":"get_weather"}`)
		}, []ToolDef{weather}},
		{"none", func(pcommon.Map) {}, nil},
		{"not a definition", func(m pcommon.Map) { m.PutStr(ToolDefinitions, `[{"type":"function"}, 3, ""]`) }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := pcommon.NewMap()
			tc.attrs(m)
			// The schemas hold no numbers, which would decode as
			// json.Number: they compare as written.
			assert.Equal(t, tc.want, ToolDefs(m))
		})
	}
}

// FuzzToolDefs: any value of the keys ToolDefs reads gives definitions
// with names, never a panic.
func FuzzToolDefs(f *testing.F) {
	f.Add(`[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]`, `{"name":"b","input_schema":"{}"}`)
	f.Add(`["x", {"name": 3}, null, [[]]]`, `{`)
	f.Add(`{"function": "nope"}`, `"json string"`)
	f.Fuzz(func(t *testing.T, defs, tool string) {
		m := pcommon.NewMap()
		m.PutStr(ToolDefinitions, defs)
		m.PutStr("llm.tools.0.tool.json_schema", tool)
		m.PutEmptySlice(AIPromptTools).AppendEmpty().SetStr(defs)
		m.PutStr("llm.request.functions.0.name", tool)
		for _, d := range ToolDefs(m) {
			if d.Name == "" {
				t.Fatalf("a definition without a name from %q, %q", defs, tool)
			}
		}
	})
}
