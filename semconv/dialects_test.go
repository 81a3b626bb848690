package semconv

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// attrMap builds a span's attributes from key, value pairs.
func attrMap(t testing.TB, kv ...any) pcommon.Map {
	m := pcommon.NewMap()
	for i := 0; i+1 < len(kv); i += 2 {
		require.NoError(t, m.PutEmpty(kv[i].(string)).FromRaw(kv[i+1]))
	}
	return m
}

// The embedded table lists the fields in Field's order, and every rule,
// operation and error entry compiles.
func TestEmbeddedTable(t *testing.T) {
	require.Len(t, embedded.table.Fields, int(NumFields))
	for f := range NumFields {
		require.Equal(t, fieldNames[f], embedded.table.Fields[f].Name)
		require.NotEmpty(t, embedded.table.Fields[f].Sources, fieldNames[f])
	}
	require.NotEmpty(t, embedded.rules)
	require.Len(t, embedded.errs, len(embedded.table.Errors))
	for op := range embedded.table.Operations {
		_, ok := embedded.ops[op]
		require.True(t, ok, op)
	}
	d, err := ParseDialect("embedded.yaml", EmbeddedDialects())
	require.NoError(t, err, "the embedded table is itself a valid dialect file")
	require.Equal(t, "embedded.yaml", d.Name())
}

// The general rules decide spans no dialect rule decides, and ReadKV
// decides them the same way.
func TestGeneralRules(t *testing.T) {
	body := `{"id":"chatcmpl-1","model":"gpt-4o","usage":{"prompt_tokens":10,"completion_tokens":2}}`
	cases := []struct {
		name, span string
		attrs      []any
		kind       Kind
		dialect    Dialect
		tool       string
	}{
		{"conventions' name, no attributes", "chat gpt-4o", nil, Inference, DialectName, ""},
		{"embeddings by name", "embeddings text-embedding-3-small", nil, Inference, DialectName, ""},
		{"tool by name", "execute_tool get_weather", nil, Call, DialectName, "get_weather"},
		{"agent by name", "invoke_agent planner", nil, Agent, DialectName, ""},
		{"a tool attribute outranks the name", "execute_tool x", []any{ToolName, "get_weather"}, Call, DialectGenAI, "get_weather"},
		{"model and usage", "llm", []any{RequestModel, "gpt-4o", UsageInputTokens, 3}, Inference, DialectEvidence, ""},
		{"model and total only", "llm", []any{OIModelName, "gpt-4o", TLUsageTotal, 3}, Inference, DialectEvidence, ""},
		{"model and messages", "llm", []any{AIModelID, "gpt-4o", InputMessages, "[]"}, Inference, DialectEvidence, ""},
		{"a model alone is no evidence", "llm", []any{RequestModel, "gpt-4o"}, Span, DialectNone, ""},
		{"usage alone is no evidence", "llm", []any{UsageInputTokens, 3}, Span, DialectNone, ""},
		{"a provider's own body", "POST /v1/chat/completions", []any{"http.response.body", body}, Inference, DialectEvidence, ""},
		{"a body under a dialect's plain span stays plain", "chain", []any{OISpanKind, "CHAIN", OIOutputValue, body}, Span, DialectOpenInference, ""},
		{"an unknown first word", "chatter box", nil, Span, DialectNone, ""},
		{"plain", "GET /", []any{"http.method", "GET"}, Span, DialectNone, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := attrMap(t, tc.attrs...)
			var r Reading
			Read(&r, tc.span, m, false)
			assert.Equal(t, tc.kind, r.Kind)
			assert.Equal(t, tc.dialect, r.Dialect)
			assert.Equal(t, tc.tool, r.ToolName(tc.span))
			assert.NotEmpty(t, r.Why(), "every kind says why")
			assert.Equal(t, tc.kind, ReadKV(tc.span, kvs(m)).Kind, "ReadKV")
		})
	}
}

// A dialect file makes spans of a library the embedded table does not
// know read right: kind, model, usage, conversation, tool, error level;
// ReadKV too. Restoring the embedded table forgets it.
func TestUseDialects(t *testing.T) {
	d, err := LoadDialect("testdata/mylib.dialect.yaml")
	require.NoError(t, err)
	llm := attrMap(t, "mylib.kind", "llm", "mylib.model", "m-1", "mylib.usage.in", 12, "mylib.usage.out", 5, "mylib.thread", "t-9", "mylib.level", "FATAL")
	tool := attrMap(t, "mylib.kind", "tool", "mylib.tool", "lookup")
	var r Reading
	Read(&r, "step", llm, false)
	require.Equal(t, Span, r.Kind, "unknown before the file")

	require.NoError(t, UseDialects(d))
	t.Cleanup(func() { require.NoError(t, UseDialects()) })
	Read(&r, "step", llm, false)
	assert.Equal(t, Inference, r.Kind)
	assert.Equal(t, "mylib", r.Dialect.String())
	assert.Equal(t, "m-1", r.Model())
	assert.Equal(t, Usage{Input: 12, Output: 5}, r.Usage())
	assert.Equal(t, "mylib.model", r.Source(FieldModel))
	assert.Equal(t, "t-9", r.Str(FieldConversationID))
	assert.True(t, r.ReportsError(), "the file's error level")
	assert.Contains(t, r.Why(), "mylib.kind")
	kv := ReadKV("step", kvs(llm))
	assert.Equal(t, Facts{Kind: Inference, Usage: Usage{Input: 12, Output: 5}, Conversation: "t-9"}, kv)
	Read(&r, "step", tool, false)
	assert.Equal(t, Call, r.Kind)
	assert.Equal(t, "lookup", r.ToolName("step"))
	Read(&r, "mylib_chat", pcommon.NewMap(), false)
	assert.Equal(t, Inference, r.Kind, "the file's operation name")
	assert.Zero(t, testing.AllocsPerRun(100, func() { Read(&r, "step", llm, false) }), "Read allocates nothing with a file laid over")
	assert.True(t, IsKnownKey("mylib.model"))

	require.NoError(t, UseDialects())
	assert.False(t, IsKnownKey("mylib.model"))
	Read(&r, "step", llm, false)
	assert.Equal(t, Span, r.Kind, "the embedded table again")
	assert.Equal(t, Span, ReadKV("step", kvs(llm)).Kind)
}

// A file the readers cannot apply is refused with its name and the line
// at fault.
func TestParseDialectErrors(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"bad type", "fields:\n  - name: model\n    sources:\n      - {key: x, type: text}\n", "f.yaml:4: "},
		{"unknown section", "fields: []\nfeilds: []\n", "f.yaml:2: "},
		{"unknown field", "fields:\n  - name: modle\n    sources:\n      - {key: x, type: string}\n", "f.yaml:2: "},
		{"field of another type", "fields:\n  - name: model\n    type: int\n", "f.yaml:2: "},
		{"bad kind", "kinds:\n  - {dialect: x, key: k, values: {a: llm}}\n", "f.yaml:2: "},
		{"rule without key", "kinds:\n  - {dialect: x, present: span}\n", "f.yaml:2: "},
		{"bad when", "fields:\n  - name: tool\n    sources:\n      - {key: x, type: string, when: sometimes}\n", "f.yaml:4: "},
		{"not yaml", "fields: [\n", "f.yaml:"},
		{"bad operation", "operations: {chat now: inference}\n", "f.yaml:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDialect("f.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrDialect), err.Error())
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
		})
	}
	_, err := LoadDialect("testdata/no-such.yaml")
	require.ErrorIs(t, err, os.ErrNotExist)
}

// FuzzParseDialect: any input is parsed or refused, never a panic, and a
// table that parses lays over the embedded one.
func FuzzParseDialect(f *testing.F) {
	seed, err := os.ReadFile("testdata/mylib.dialect.yaml")
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte("kinds:\n  - {dialect: x, key: k, values: {a: call}}\n"))
	f.Add([]byte("fields: [{name: model, sources: [{key: a, type: string}]}]"))
	f.Add([]byte("content:\n  input:\n    - {key: a}\n    - {prefix: b., inner: m., shape: flat}\n    - shape: events\n      events: [{name: e, role: user}, {name: f, key: k}]\n  output:\n    - {text: t, shape: result}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDialect("fuzz.yaml", data)
		if err != nil {
			require.ErrorIs(t, err, ErrDialect)
			return
		}
		_, err = compileOver(d)
		if err != nil {
			require.ErrorIs(t, err, ErrDialect)
		}
	})
}

// The walkthrough's file in docs/dialects.md parses and lays over the
// embedded table.
func TestDocExampleDialect(t *testing.T) {
	d, err := LoadDialect("../docs/examples/mastra.dialect.yaml")
	require.NoError(t, err)
	_, err = compileOver(d)
	require.NoError(t, err)
}
