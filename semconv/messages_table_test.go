package semconv

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Every key the embedded table maps to a message field (input, output,
// system: evidence of a model call) is also a place Messages reads: the
// two sections agree.
func TestContentCoversMessageFields(t *testing.T) {
	for _, f := range []string{"input", "output", "system"} {
		for _, k := range embedded.table.FieldSources(f) {
			assert.True(t, ContentKey(k), "field %s's key %s is in no content source", f, k)
		}
	}
	// Flattened families are named by their prefix.
	assert.True(t, ContentKey("llm.input_messages.3.message.content"))
	assert.True(t, ContentKey("gen_ai.completion.0.role"))
	assert.False(t, ContentKey("gen_ai.usage.input_tokens"))
	assert.False(t, ContentKey("mastra.model_step.input"), "a loose source names no key")
}

// A content section the reader cannot apply is refused with the file's
// name and the line at fault.
func TestContentErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"bad shape", "content:\n  input:\n    - {key: a, shape: blob}\n", "f.yaml:3: "},
		{"key missing", "content:\n  output:\n    - {shape: body}\n", "f.yaml:3: "},
		{"flat without prefix", "content:\n  input:\n    - {key: a, shape: flat}\n", "f.yaml:3: "},
		{"loose without suffix", "content:\n  input:\n    - {shape: loose}\n", "f.yaml:3: "},
		{"empty result", "content:\n  output:\n    - {shape: result}\n", "f.yaml:3: "},
		{"event without role or key", "content:\n  input:\n    - shape: events\n      events:\n        - {name: e}\n", "f.yaml:5: "},
		{"event with a bad role", "content:\n  input:\n    - shape: events\n      events:\n        - {name: e, role: bot}\n", "f.yaml:5: "},
		{"system from a flat family", "content:\n  system:\n    - {prefix: a., shape: flat}\n", "f.yaml:3: "},
		{"unknown member", "content:\n  input:\n    - {keys: a}\n", "f.yaml:3: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDialect("f.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrDialect), err.Error())
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
		})
	}
}

// A user's content sources: read after the embedded keys and before the
// loose fallback; a key a file maps to the input field is read as
// messages too; a file's event names are read from log records.
// Not parallel: UseDialects sets the process's table.
func TestUserContentSources(t *testing.T) {
	d, err := ParseDialect("acme.yaml", []byte(`fields:
  - name: input
    sources:
      - {key: acme.field_prompt, type: json}
content:
  input:
    - {key: acme.history}
    - shape: events
      events:
        - {name: acme.said, role: user}
  output:
    - {key: acme.reply, shape: body}
`))
	require.NoError(t, err)
	user := func(s string) string { return `[{"role":"user","parts":[{"type":"text","content":"` + s + `"}]}]` }
	cases := []struct {
		name   string
		span   ptrace.Span
		input  string
		output string
	}{
		{"the conventions' key first",
			spanWith([]any{InputMessages, `[{"role":"user","content":"from gen_ai"}]`, "acme.history", `[{"role":"user","content":"from acme"}]`}),
			user("from gen_ai"), `[]`},
		{"the file's key before the loose fallback",
			spanWith([]any{"x.step.input", `[{"role":"user","content":"loose"}]`, "acme.history", `[{"role":"user","content":"from acme"}]`}),
			user("from acme"), `[]`},
		{"a field source is read as messages",
			spanWith([]any{"acme.field_prompt", `[{"role":"user","content":"from the field"}]`}),
			user("from the field"), `[]`},
		{"a body shape",
			spanWith([]any{"acme.reply", `{"choices":[{"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`}),
			`[]`, `[{"role":"assistant","parts":[{"type":"text","content":"done"}],"finish_reason":"stop"}]`},
		{"the file's events",
			spanWith(nil, []any{"acme.said", "content", "from an event"}),
			user("from an event"), `[]`},
	}
	require.NoError(t, UseDialects(d))
	t.Cleanup(func() { require.NoError(t, UseDialects()) })
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Messages(tc.span)
			assert.JSONEq(t, tc.input, asJSONPart(t, c.Input))
			assert.JSONEq(t, tc.output, asJSONPart(t, c.Output))
		})
	}
	// A log record named as the file's event is content, read as that event.
	sp := ptrace.NewSpan()
	body := pcommon.NewValueMap()
	body.Map().PutStr("content", "logged")
	require.True(t, AppendLogEvent(sp.Events(), "acme.said", body, pcommon.NewMap(), 1))
	assert.JSONEq(t, user("logged"), asJSONPart(t, Messages(sp).Input))

	require.NoError(t, UseDialects())
	assert.JSONEq(t, user("loose"), asJSONPart(t, Messages(cases[1].span).Input), "without the file, the loose key")
	assert.False(t, AppendLogEvent(ptrace.NewSpan().Events(), "acme.said", body, pcommon.NewMap(), 1))
}

func asJSONPart(t *testing.T, ms []Message) string {
	t.Helper()
	b, err := json.Marshal(ms)
	require.NoError(t, err)
	return string(b)
}
