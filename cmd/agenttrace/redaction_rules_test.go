package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/redact"
)

// minCore is the shortest core (longest alphanumeric run) of a secret the
// test looks for in an artifact: a shorter one could be there by chance
// (in an id, a hash, another word).
const minCore = 8

// noExample names the rules redact.RuleExamples has no example for, and
// why (it says so too): the generator, which reads a rule's expression,
// wrote a text without the rule's keyword where the expression's '.'
// stood for a keyword's dot (gitleaks runs no rule whose keyword is
// absent, nor does redact), or an example the rule's own check refuses.
var noExample = map[string]string{
	"agenttrace/basic-auth":           "its check (a base64 user:password) refuses the generated text",
	"airtable-personnal-access-token": "no keyword in the generated text",
	"facebook-access-token":           "no keyword in the generated text",
	"sidekiq-sensitive-url":           "no keyword in the generated text (gems.contribsys.com with its dots replaced)",
	"slack-config-access-token":       "no keyword in the generated text",
	"slack-webhook-url":               "no keyword in the generated text (hooks.slack.com with its dots replaced)",
	"sourcegraph-access-token":        "no keyword in the generated text",
}

// ruleExamples are redact's per-rule examples (generated from each rule's
// own expression; gitleaks' data carries none); the rules without one are
// exactly noExample.
func ruleExamples(t *testing.T) []redact.RuleExample {
	t.Helper()
	examples, missing := redact.RuleExamples()
	for id, why := range missing {
		t.Logf("rule %s: no example: %s", id, why)
	}
	ids := map[string]string{}
	for id := range missing {
		ids[id] = noExample[id]
	}
	assert.Equal(t, noExample, ids, "the rules without an example")
	require.Greater(t, len(examples), 200, "examples of the rules")
	return examples
}

// jsonText is s as it appears inside a JSON string, without the quotes.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// mustJSON is v as JSON text.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// otlpShapes writes one OTLP/JSON traces file holding each example in
// every place a span carries content: a plain string attribute,
// JSON in a string, a JSON object (map) attribute, OpenAI, Anthropic,
// Bedrock Converse and Gemini content blocks (as JSON strings, where the
// instrumentations put them), and a span event's attributes; and one
// OTLP/JSON logs file with each example in a string body, a map body
// with blocks, and an attribute. One span and two log records per example.
func otlpShapes(t *testing.T, dir string, examples []redact.RuleExample) (traces, logs string) {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "rule-examples")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	tid := [16]byte{0xee, 1}
	for i, ex := range examples {
		sp := spans.AppendEmpty()
		sp.SetTraceID(tid)
		sid := [8]byte{byte(i >> 8), byte(i), 1}
		sp.SetSpanID(sid)
		sp.SetName("chat example")
		sp.SetStartTimestamp(1_700_000_000_000_000_000)
		sp.SetEndTimestamp(1_700_000_001_000_000_000)
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "chat")
		a.PutStr("example.plain", ex.Text)
		a.PutStr("example.json_in_string", mustJSON(t, map[string]any{"content": ex.Text, "nested": map[string]any{"args": ex.Text}}))
		obj := a.PutEmptyMap("example.object")
		obj.PutStr("text", ex.Text)
		obj.PutEmptySlice("parts").AppendEmpty().SetEmptyMap().PutStr("content", ex.Text)
		a.PutStr("gen_ai.input.messages", mustJSON(t, []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": ex.Text}}},
			map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "lookup", "arguments": mustJSON(t, map[string]any{"q": ex.Text})}}}},
		}))
		a.PutStr("anthropic.content", mustJSON(t, []any{
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": map[string]any{"q": ex.Text}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": ex.Text}}},
		}))
		a.PutStr("bedrock.content", mustJSON(t, []any{
			map[string]any{"text": ex.Text},
			map[string]any{"toolUse": map[string]any{"toolUseId": "t1", "name": "lookup", "input": map[string]any{"q": ex.Text}}},
			map[string]any{"toolResult": map[string]any{"toolUseId": "t1", "content": []any{map[string]any{"text": ex.Text}}}},
		}))
		a.PutStr("gcp.vertex.agent.llm_request", mustJSON(t, map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{
			map[string]any{"text": ex.Text},
			map[string]any{"functionCall": map[string]any{"name": "lookup", "args": map[string]any{"q": ex.Text}}},
			map[string]any{"functionResponse": map[string]any{"name": "lookup", "response": map[string]any{"result": ex.Text}}},
		}}}}))
		ev := sp.Events().AppendEmpty()
		ev.SetName("gen_ai.user.message")
		ev.SetTimestamp(1_700_000_000_500_000_000)
		ev.Attributes().PutStr("content", ex.Text)

		str := lrs.AppendEmpty()
		str.SetTraceID(tid)
		str.SetSpanID(sid)
		str.Body().SetStr(ex.Text)
		kv := lrs.AppendEmpty()
		kv.SetTraceID(tid)
		kv.SetSpanID(sid)
		body := kv.Body().SetEmptyMap()
		body.PutStr("role", "user")
		body.PutStr("content", ex.Text)
		blocks := body.PutEmptySlice("message")
		blocks.AppendEmpty().SetEmptyMap().PutStr("text", ex.Text)
		kv.Attributes().PutStr("gen_ai.event.content", mustJSON(t, map[string]any{"content": ex.Text}))
	}
	tb, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	lb, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	require.NoError(t, err)
	traces, logs = filepath.Join(dir, "traces.json"), filepath.Join(dir, "logs.json")
	require.NoError(t, os.WriteFile(traces, tb, 0o600))
	require.NoError(t, os.WriteFile(logs, lb, 0o600))
	return traces, logs
}

// seedShape writes the planted-secrets fixture name (or another seed file)
// with its OpenAI key replaced by every example, one a line, as the text
// of the field that carried the key: the seed's own shape around them.
func seedShape(t *testing.T, dir, src, planted string, examples []redact.RuleExample) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	texts := make([]string, len(examples))
	for i, ex := range examples {
		texts[i] = ex.Text
	}
	blob := jsonText(strings.Join(texts, "\n"))
	require.Contains(t, string(raw), planted, src)
	out := filepath.Join(dir, "seed-"+filepath.Base(src))
	require.NoError(t, os.WriteFile(out, []byte(strings.ReplaceAll(string(raw), planted, blob)), 0o600))
	return out
}

// TestRedactionEveryRuleEveryShape is issue 21's point 8: the example of
// every secret rule, placed in every content shape agenttrace reads
// (string, JSON-in-string and object attributes, provider-native content
// blocks, span events, OTLP log bodies as strings and maps, and each
// imported seed shape: transcript, trajectory, events, agenteval,
// Jaeger), is in none of the artifacts `convert` writes. With --no-redact
// the artifacts keep them, which shows each shape carries them through.
func TestRedactionEveryRuleEveryShape(t *testing.T) {
	t.Parallel()
	examples := ruleExamples(t)
	p := loadPlanted(t)
	openai := p.Secrets["openai"]
	dir := t.TempDir()
	traces, logs := otlpShapes(t, dir, examples)
	shapes := map[string][]string{
		"otlp traces": {traces},
		"otlp logs":   {traces, logs},
		"transcript":  {seedShape(t, dir, filepath.Join(redactionDir, "transcript.jsonl"), openai, examples)},
		"trajectory":  {seedShape(t, dir, filepath.Join(redactionDir, "trajectory.jsonl"), openai, examples)},
		"events":      {seedShape(t, dir, filepath.Join(redactionDir, "events.jsonl"), openai, examples)},
		"jaeger":      {seedShape(t, dir, filepath.Join(redactionDir, "jaeger.json"), openai, examples)},
		"agenteval":   {seedShape(t, dir, "../../testdata/shapes/agenteval.json", `What's the weather in Oslo?`, examples)},
	}
	for name, inputs := range shapes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run.jsonl")
			r := agenttrace(t, "", append(append([]string{"convert"}, inputs...), "-o", out)...)
			require.Equal(t, 0, r.code, r.stderr)
			got := readString(t, out)

			kept := filepath.Join(t.TempDir(), "kept.jsonl")
			r = agenttrace(t, "", append(append([]string{"convert", "--no-redact"}, inputs...), "-o", kept)...)
			require.Equal(t, 0, r.code, r.stderr)
			raw := readString(t, kept)

			checked, short := 0, 0
			for _, ex := range examples {
				c := core(ex.Secret)
				if len(c) < minCore {
					short++
					continue
				}
				if !strings.Contains(raw, c) {
					continue // not carried by this shape even unredacted (a truncated preview)
				}
				checked++
				if strings.Contains(got, c) {
					t.Errorf("%s: rule %s: its example's secret %q survived convert (example %q)", name, ex.Rule, ex.Secret, ex.Text)
				}
			}
			t.Logf("%s: %d examples checked, %d with a secret too short to look for", name, checked, short)
			assert.Greater(t, checked, len(examples)/2, "%s: the shape carries most examples unredacted", name)
		})
	}
}
