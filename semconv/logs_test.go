package semconv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// logRec is one log record as AppendLogEvent takes it.
type logRec struct {
	eventName string
	body      func(pcommon.Value)
	attrs     map[string]any
}

func TestAppendLogEvent(t *testing.T) {
	userBody := func(v pcommon.Value) { v.SetEmptyMap().PutStr("content", "What is the weather in Paris today?") }
	choiceBody := func(v pcommon.Value) {
		m := v.SetEmptyMap()
		m.PutStr("finish_reason", "stop")
		m.PutInt("index", 0)
		m.PutEmptyMap("message").PutStr("content", "Sunny.")
	}
	none := func(pcommon.Value) {}
	tests := []struct {
		name   string
		logs   []logRec
		kept   []bool
		input  []string // role: text of each input message
		output []string
		system []string
	}{
		{
			name: "per-message events named by the event.name attribute, body a kvlist",
			logs: []logRec{
				{"", func(v pcommon.Value) { v.SetEmptyMap().PutStr("content", "Be brief.") }, map[string]any{"event.name": "gen_ai.system.message", "gen_ai.system": "openai"}},
				{"", userBody, map[string]any{"event.name": "gen_ai.user.message"}},
				{"", choiceBody, map[string]any{"event.name": "gen_ai.choice"}},
			},
			kept:   []bool{true, true, true},
			system: []string{"Be brief."},
			input:  []string{"user: What is the weather in Paris today?"},
			output: []string{"assistant: Sunny."},
		},
		{
			name: "named by OTLP's event_name, content in attributes when the body is empty",
			logs: []logRec{
				{"gen_ai.user.message", none, map[string]any{"content": "Hello?"}},
			},
			kept:  []bool{true},
			input: []string{"user: Hello?"},
		},
		{
			name: "a string body is the event's content",
			logs: []logRec{
				{"gen_ai.user.message", func(v pcommon.Value) { v.SetStr(`{"content":"From JSON."}`) }, nil},
			},
			kept:  []bool{true},
			input: []string{"user: From JSON."},
		},
		{
			name: "operation details split over two records are merged",
			logs: []logRec{
				{semconv.EventInferenceDetails, none, map[string]any{
					"gen_ai.input.messages":      []any{map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": "Paris?"}}}},
					"gen_ai.system_instructions": "Be brief.",
				}},
				{semconv.EventInferenceDetails, none, map[string]any{
					"gen_ai.output.messages": []any{map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "content": "Sunny."}}, "finish_reason": "stop"}},
				}},
			},
			kept:   []bool{true, true},
			system: []string{"Be brief."},
			input:  []string{"user: Paris?"},
			output: []string{"assistant: Sunny."},
		},
		{
			name: "a log record of no GenAI event is left out",
			logs: []logRec{
				{"", func(v pcommon.Value) { v.SetStr("GET /v1/chat/completions 200") }, map[string]any{"http.status_code": 200}},
				{"app.started", none, nil},
			},
			kept: []bool{false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := ptrace.NewSpan()
			sp.SetName("chat gpt-4o-mini")
			sp.Attributes().PutStr("gen_ai.operation.name", "chat")
			for i, l := range tt.logs {
				body := pcommon.NewValueEmpty()
				l.body(body)
				attrs := pcommon.NewMap()
				require.NoError(t, attrs.FromRaw(l.attrs))
				assert.Equal(t, tt.kept[i], semconv.IsGenAILog(l.eventName, attrs), "IsGenAILog says what AppendLogEvent keeps")
				assert.Equal(t, tt.kept[i], semconv.AppendLogEvent(sp.Events(), l.eventName, body, attrs, pcommon.Timestamp(i)))
			}
			c := semconv.Messages(sp)
			texts := func(ms []semconv.Message) []string {
				var out []string
				for _, m := range ms {
					out = append(out, m.Role+": "+m.Text())
				}
				return out
			}
			assert.Equal(t, tt.input, texts(c.Input))
			assert.Equal(t, tt.output, texts(c.Output))
			var system []string
			for _, p := range c.System {
				system = append(system, p.Content)
			}
			assert.Equal(t, tt.system, system)
		})
	}
}
