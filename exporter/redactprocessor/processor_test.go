package redactprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
)

// Synthetic secrets, made up for this test (they grant nothing), of
// families the exporter's redaction catches: an OpenAI key, a GitHub
// token, a Stripe key and an AWS access key id.
const (
	openaiKey = "sk-proj-Q7vR2mXk9LpT4wYz8NcB3dFh6JsA1eGu5KoI0qWtVbPnMx"
	githubPAT = "ghp_R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi"
	stripeKey = "sk_live_xEEsAoCaA2QTqpOoast0vQj8"
	awsKeyID  = "AKIAQYLPMN5HFIQR7XKM"
)

var planted = []string{openaiKey, githubPAT, stripeKey, awsKeyID}

// tracesWithSecrets plants a secret in every place of a span batch the
// processor must cover: a resource attribute, a scope attribute, a span
// attribute (plain and JSON in a string), the span's name and status
// message, an event's attributes, and a link's attributes.
func tracesWithSecrets() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("process.command_args", "agent --key "+openaiKey)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().Attributes().PutStr("token", githubPAT)
	sp := ss.Spans().AppendEmpty()
	sp.SetTraceID([16]byte{1})
	sp.SetSpanID([8]byte{2})
	sp.SetName("execute_tool charge " + stripeKey)
	sp.Status().SetMessage("401: key " + openaiKey + " rejected")
	sp.Attributes().PutStr("gen_ai.tool.call.arguments", `{"key":"`+stripeKey+`","user":"ada"}`)
	sp.Attributes().PutStr("note", "aws "+awsKeyID+" in use")
	ev := sp.Events().AppendEmpty()
	ev.SetName("gen_ai.user.message")
	ev.Attributes().PutStr("content", "my token is "+githubPAT)
	sp.Links().AppendEmpty().Attributes().PutStr("why", "retry with "+awsKeyID)
	return td
}

// logsWithSecrets plants secrets in a log record's string body, in a
// kvlist body, in its attributes and in its resource.
func logsWithSecrets() plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("env", "OPENAI_API_KEY="+openaiKey)
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr("pushing with " + githubPAT)
	kv := lrs.AppendEmpty()
	body := kv.Body().SetEmptyMap()
	body.PutStr("role", "tool")
	body.PutEmptyMap("message").PutStr("content", "charged with "+stripeKey)
	kv.Attributes().PutStr("gen_ai.event.content", `{"content":"`+awsKeyID+`"}`)
	return ld
}

func assertNoPlanted(t *testing.T, what string, dump []byte) {
	t.Helper()
	require.NotEmpty(t, dump)
	for _, s := range planted {
		assert.NotContains(t, string(dump), s, "%s kept a planted secret", what)
	}
	assert.Contains(t, string(dump), "[REDACTED]", "%s: nothing was replaced", what)
}

func TestProcessorRedactsTraces(t *testing.T) {
	sink := new(consumertest.TracesSink)
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(typ), NewFactory().CreateDefaultConfig(), sink)
	require.NoError(t, err)
	assert.True(t, p.Capabilities().MutatesData)

	require.NoError(t, p.ConsumeTraces(context.Background(), tracesWithSecrets()))
	require.Len(t, sink.AllTraces(), 1)
	got, err := (&ptrace.JSONMarshaler{}).MarshalTraces(sink.AllTraces()[0])
	require.NoError(t, err)
	assertNoPlanted(t, "traces", got)
	assert.Contains(t, string(got), `\"user\":\"ada\"`, "what is not a secret stays")
}

func TestProcessorRedactsLogs(t *testing.T) {
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(typ), NewFactory().CreateDefaultConfig(), sink)
	require.NoError(t, err)

	require.NoError(t, p.ConsumeLogs(context.Background(), logsWithSecrets()))
	require.Len(t, sink.AllLogs(), 1)
	got, err := (&plog.JSONMarshaler{}).MarshalLogs(sink.AllLogs()[0])
	require.NoError(t, err)
	assertNoPlanted(t, "logs", got)
}

// TestProcessorNamedKeys: keys are replaced whatever their value, as the
// exporter's redact.keys are, and with secrets: false nothing else is.
func TestProcessorNamedKeys(t *testing.T) {
	cfg := &Config{Keys: []string{"NOTE"}}
	require.NoError(t, cfg.Validate())
	sink := new(consumertest.TracesSink)
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(typ), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.ConsumeTraces(context.Background(), tracesWithSecrets()))
	attrs := sink.AllTraces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	note, ok := attrs.Get("note")
	require.True(t, ok)
	assert.Equal(t, "[REDACTED]", note.Str())
	args, ok := attrs.Get("gen_ai.tool.call.arguments")
	require.True(t, ok)
	assert.Contains(t, args.Str(), stripeKey, "the secret scan is off: only the named key goes")
}
