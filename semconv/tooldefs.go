package semconv

import (
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Tool definition keys of the dialects that put the tools a model was
// offered somewhere else than gen_ai.tool.definitions.
const (
	OITools        = "llm.tools"             // OpenInference: llm.tools.<i>.tool.json_schema, a JSON string
	TLFunctions    = "llm.request.functions" // OpenLLMetry: llm.request.functions.<i>.name/description/parameters
	AIPromptTools  = "ai.prompt.tools"       // Vercel AI SDK: a list of JSON strings
	oiToolSchemaIn = "tool.json_schema"
)

// ToolDef is one tool a model call was offered, in the shape OpenAI's
// chat API takes a function tool: a name, a description and the JSON
// Schema of its parameters (nil when the span did not say).
type ToolDef struct {
	Name        string
	Description string
	Parameters  any
}

// ToolDefs returns the tools a model call was offered, read from
// wherever its dialect puts them: gen_ai.tool.definitions (a JSON string
// or a structured list), OpenInference's llm.tools.<i>.tool.json_schema,
// OpenLLMetry's llm.request.functions.<i>.*, the Vercel AI SDK's
// ai.prompt.tools. Each definition may be in the OpenAI chat shape
// ({type, function:{name, description, parameters}}), the flat one of
// the Responses API and the GenAI conventions ({type, name, description,
// parameters}), Anthropic's (input_schema), the Vercel AI SDK's
// (inputSchema), or a bare name. The first source that names a tool wins;
// the order is the span's.
func ToolDefs(attrs pcommon.Map) []ToolDef {
	var out []ToolDef
	seen := map[string]bool{}
	add := func(v any) {
		d, ok := toolDef(v)
		if ok && !seen[d.Name] {
			seen[d.Name] = true
			out = append(out, d)
		}
	}
	if v, ok := attrs.Get(ToolDefinitions); ok {
		for _, item := range listOf(valueAny(v)) {
			add(item)
		}
	}
	if v, ok := attrs.Get(AIPromptTools); ok {
		for _, item := range listOf(valueAny(v)) {
			if s, ok := item.(string); ok {
				item = maybeJSON(s)
			}
			add(item)
		}
	}
	for _, item := range indexedAttrs(attrs, OITools+".") {
		add(item[oiToolSchemaIn])
	}
	for _, item := range indexedAttrs(attrs, TLFunctions+".") {
		add(item)
	}
	return out
}

// listOf is v as a list: a single definition counts as a list of one.
func listOf(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case nil:
		return nil
	}
	return []any{v}
}

// toolDef reads one definition in any of the shapes ToolDefs
// names.
func toolDef(v any) (ToolDef, bool) {
	switch d := v.(type) {
	case string:
		if j := maybeJSON(d); !isString(j) {
			return toolDef(j)
		}
		if d = strings.TrimSpace(d); d != "" {
			return ToolDef{Name: d}, true
		}
	case map[string]any:
		if fn, ok := d["function"].(map[string]any); ok {
			d = fn
		}
		td := ToolDef{Name: strOf(d["name"]), Description: strOf(d["description"])}
		td.Parameters = firstOf(d, "parameters", "input_schema", "inputSchema", "json_schema")
		if s, ok := td.Parameters.(string); ok {
			td.Parameters = maybeJSON(s)
		}
		return td, td.Name != ""
	}
	return ToolDef{}, false
}

// indexedAttrs gathers the attributes prefix<i>.<field> into one map per
// index, in index order; a field's JSON string value is kept a string
// (toolDef decodes what it needs).
func indexedAttrs(attrs pcommon.Map, prefix string) []map[string]any {
	byIndex := map[int]map[string]any{}
	top := -1
	for k, v := range attrs.All() {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		idx, field, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i > 10_000 {
			continue
		}
		m := byIndex[i]
		if m == nil {
			m = map[string]any{}
			byIndex[i] = m
		}
		m[field] = v.AsRaw()
		top = max(top, i)
	}
	out := make([]map[string]any, 0, len(byIndex))
	for i := 0; i <= top; i++ {
		if m, ok := byIndex[i]; ok {
			out = append(out, m)
		}
	}
	return out
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
