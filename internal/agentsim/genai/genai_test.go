package genai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/attribute"

	"github.com/agenttrace/agenttrace/semconv"
)

func TestUsageAttributes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []attribute.KeyValue{
		attribute.Int64(semconv.UsageInputTokens, 0),
		attribute.Int64(semconv.UsageOutputTokens, 0),
	}, UsageAttributes(semconv.Usage{}), "input and output always, the others not when zero")
	assert.Equal(t, []attribute.KeyValue{
		attribute.Int64(semconv.UsageInputTokens, 100),
		attribute.Int64(semconv.UsageOutputTokens, 20),
		attribute.Int64(semconv.UsageCacheReadInput, 64),
		attribute.Int64(semconv.UsageCacheCreationInput, 32),
		attribute.Int64(semconv.UsageReasoningOutput, 8),
	}, UsageAttributes(semconv.Usage{Input: 100, Output: 20, CacheRead: 64, CacheCreation: 32, Reasoning: 8}))
}

func TestMustJSON(t *testing.T) {
	t.Parallel()
	got := MustJSON([]Message{Assistant("tool_call", Text("<a & b>"), ToolCall("c1", "f", map[string]any{"z": 1, "a": 2}))})
	assert.Equal(t, `[{"role":"assistant","parts":[{"type":"text","content":"<a & b>"},`+
		`{"type":"tool_call","id":"c1","name":"f","arguments":{"a":2,"z":1}}],"finish_reason":"tool_call"}]`, got,
		"compact, no HTML escaping, map keys sorted, empty fields left out")
}

func TestFunction(t *testing.T) {
	t.Parallel()
	got := MustJSON(Function("f", "Does f.", map[string]any{
		"s": StringParam(""), "d": StringParam("described"), "t": DateParam(),
		"e": EnumParam("a", "b"), "n": NumberParam(), "i": IntegerParam(),
	}, "s", "t"))
	assert.Equal(t, `{"type":"function","name":"f","description":"Does f.","parameters":{"properties":{`+
		`"d":{"description":"described","type":"string"},"e":{"enum":["a","b"],"type":"string"},"i":{"type":"integer"},`+
		`"n":{"type":"number"},"s":{"type":"string"},"t":{"format":"date","type":"string"}},`+
		`"required":["s","t"],"type":"object"}}`, got, "a JSON Schema object of the properties, the required ones listed")
}
