package redact

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Fake secrets, built by concatenation so that no secret-shaped literal sits
// in the repository for scanners to flag.
var (
	fakeOpenAI    = "sk-" + strings.Repeat("a1B2", 8)
	fakeOpenAIPrj = "sk-" + "proj-" + strings.Repeat("Xy9_", 10)
	fakeAnthropic = "sk-" + "ant-api03-" + strings.Repeat("q7R-", 10)
	fakeAWS       = "AK" + "IA" + strings.Repeat("Z7", 8)
	fakeAWSTemp   = "AS" + "IA" + strings.Repeat("Q3", 8)
	fakeGitHub    = "gh" + "p_" + strings.Repeat("a1B2c3", 6)
	fakeGitHubS   = "gh" + "s_" + strings.Repeat("Zz09", 10)
	fakeGitHubPAT = "github" + "_pat_" + strings.Repeat("11AB_cd", 4)
	fakeSlack     = "xo" + "xb-" + "1234567890-" + strings.Repeat("abCD", 4)
	fakeBearerTok = "eyJhbGciOi" + strings.Repeat("x9.Q", 6)
	fakeGoogle    = "AI" + "za" + "Sy" + strings.Repeat("D-f_", 8) + "a" // 35 after AIza
	fakePEM       = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + strings.Repeat("x", 40) +
		"\n" + strings.Repeat("y", 40) + "\n-----END RSA " + "PRIVATE KEY-----"
	fakePassword = "hunter2" + "hunter2"
)

// TestSecretPatterns: each pattern replaces only the secret and keeps the
// text around it.
func TestSecretPatterns(t *testing.T) {
	r := New(nil, true)
	tests := []struct {
		name, in, want string
	}{
		{"openai", "my key is " + fakeOpenAI + ", thanks", "my key is [REDACTED], thanks"},
		{"openai project", "OPENAI_API_KEY " + fakeOpenAIPrj, "OPENAI_API_KEY [REDACTED]"},
		{"anthropic", "x-api-key header was " + fakeAnthropic + ".", "x-api-key header was [REDACTED]."},
		{"aws access key", "aws id " + fakeAWS + " in us-east-1", "aws id [REDACTED] in us-east-1"},
		{"aws temporary key", "(" + fakeAWSTemp + ")", "([REDACTED])"},
		{"github token", "cloned with " + fakeGitHub, "cloned with [REDACTED]"},
		{"github server token", "GH " + fakeGitHubS + " ok", "GH [REDACTED] ok"},
		{"github fine-grained", "pat=" + fakeGitHubPAT + " end", "pat=[REDACTED] end"},
		{"slack", "slack bot " + fakeSlack + " posted", "slack bot [REDACTED] posted"},
		{"bearer", "Authorization: Bearer " + fakeBearerTok, "Authorization: Bearer [REDACTED]"},
		{"bearer lower case", "authorization: bearer\t" + fakeBearerTok + "== tail", "authorization: bearer\t[REDACTED] tail"},
		{"pem", "key:\n" + fakePEM + "\nrest", "key:\n[REDACTED]\nrest"},
		{"google", "maps key " + fakeGoogle + " here", "maps key [REDACTED] here"},
		{"generic password", "login with password=" + fakePassword + " please", "login with password=[REDACTED] please"},
		{"generic api_key quoted", `config api_key: "` + fakePassword + `" done`, `config api_key: "[REDACTED]" done`},
		{"generic upper case", "SECRET = '" + fakePassword + "';", "SECRET = '[REDACTED]';"},
		{"generic python dict", `{'client_secret': '` + fakePassword + `', 'id': 7`, `{'client_secret': '[REDACTED]', 'id': 7`},
		{"two secrets", fakeOpenAI + " and " + fakeAWS, "[REDACTED] and [REDACTED]"},
		{"in invalid JSON", `{"password": "` + fakePassword + `"`, `{"password": "[REDACTED]"`},
		{"already redacted", "password=[REDACTED] and Bearer [REDACTED]", "password=[REDACTED] and Bearer [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pcommon.NewMap()
			m.PutStr("text", tt.in)
			changed := r.Map(m)
			v, _ := m.Get("text")
			assert.Equal(t, tt.want, v.Str())
			assert.Equal(t, tt.in != tt.want, changed)
		})
	}
}

// TestNoFalsePositives: text that resembles a secret pattern is left alone.
func TestNoFalsePositives(t *testing.T) {
	r := New(nil, true)
	for _, s := range []string{
		"task-assignment-for-the-user-abc-123", // "sk-" inside a word
		"the right thought goes through the night",
		"bearer of bad news, twice over",
		"token: 42",
		"the password is something strong",
		"max_tokens=4096",
		"PRIVATE KEY handling is described in the manual",
		"see https://example.com/?a=b&c=d",
		"tokens: abcdefghijkl",
		"",
		"short",
		"[REDACTED]",
	} {
		m := pcommon.NewMap()
		m.PutStr("text", s)
		assert.False(t, r.Map(m), s)
		v, _ := m.Get("text")
		assert.Equal(t, s, v.Str())
	}
}

// TestNamedKeys covers rule 1 and the named fields inside JSON and inside
// map values.
func TestNamedKeys(t *testing.T) {
	r := New([]string{"Password", "api_key", "\u212Aelvin"}, false)
	tests := []struct {
		name string
		in   func(pcommon.Map)
		want map[string]any
	}{
		{
			name: "top level, any case, any type",
			in: func(m pcommon.Map) {
				m.PutStr("password", "x")
				m.PutInt("API_KEY", 42)
				m.PutEmptyMap("PassWord").PutStr("a", "b")
				m.PutStr("db.password", "not named")
				m.PutStr("kelvin", "folds like strings.EqualFold")
			},
			want: map[string]any{
				"password": Placeholder, "API_KEY": Placeholder, "PassWord": Placeholder,
				"db.password": "not named", "kelvin": Placeholder,
			},
		},
		{
			name: "three levels deep in tool arguments",
			in: func(m pcommon.Map) {
				m.PutStr("gen_ai.tool.call.arguments", `{"a": {"b": {"PASSWORD": "x", "keep": 1}}, "z": [1, 2.50, null]}`)
			},
			want: map[string]any{
				"gen_ai.tool.call.arguments": `{"a":{"b":{"PASSWORD":"[REDACTED]","keep":1}},"z":[1,2.50,null]}`,
			},
		},
		{
			name: "tool call arguments as a JSON string inside messages",
			in: func(m pcommon.Map) {
				m.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"login",`+
					`"arguments":"{\"user\":\"bob\",\"password\":\"x\"}"}]}]`)
			},
			want: map[string]any{
				"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"login",` +
					`"arguments":"{\"user\":\"bob\",\"password\":\"[REDACTED]\"}"}]}]`,
			},
		},
		{
			name: "named field with a structured value",
			in: func(m pcommon.Map) {
				m.PutStr("input.value", `{"api_key":{"id":1,"value":[1,2]},"q":"hi"}`)
			},
			want: map[string]any{"input.value": `{"api_key":"[REDACTED]","q":"hi"}`},
		},
		{
			name: "unchanged values keep their order and escapes",
			in: func(m pcommon.Map) {
				m.PutStr("ai.toolCall.args", `{"z":1,"a":{"y":"caf\u00e9\n","x":3},"password":"p","m":"<&>"}`)
			},
			want: map[string]any{
				"ai.toolCall.args": `{"z":1,"a":{"y":"caf\u00e9\n","x":3},"password":"[REDACTED]","m":"<&>"}`,
			},
		},
		{
			name: "escaped field name",
			in: func(m pcommon.Map) {
				m.PutStr("traceloop.entity.input", `{"pass\u0077ord":"x"}`)
			},
			want: map[string]any{"traceloop.entity.input": `{"pass\u0077ord":"[REDACTED]"}`},
		},
		{
			name: "inside structured map and slice values",
			in: func(m pcommon.Map) {
				outer := m.PutEmptyMap("args").PutEmptyMap("outer")
				outer.PutStr("Password", "x")
				outer.PutStr("keep", "y")
				l := outer.PutEmptySlice("list")
				l.AppendEmpty().SetEmptyMap().PutStr("API_Key", "z")
				l.AppendEmpty().SetStr(`{"password":"w"}`)
			},
			want: map[string]any{"args": map[string]any{"outer": map[string]any{
				"Password": Placeholder, "keep": "y",
				"list": []any{map[string]any{"API_Key": Placeholder}, `{"password":"[REDACTED]"}`},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pcommon.NewMap()
			tt.in(m)
			assert.True(t, r.Map(m))
			assert.Equal(t, tt.want, m.AsRaw())
			assert.False(t, r.Map(m), "redacting again changes nothing")
			assert.Equal(t, tt.want, m.AsRaw())
		})
	}
}

// TestJSONSecrets: secrets in JSON strings, in nested JSON strings and
// behind escapes, and credential-like pairs.
func TestJSONSecrets(t *testing.T) {
	r := New(nil, true)
	tests := []struct {
		name, in, want string
	}{
		{"string in messages", `[{"role":"user","content":"use ` + fakeOpenAI + ` now"}]`,
			`[{"role":"user","content":"use [REDACTED] now"}]`},
		{"escapes around", `{"m":"key:\n` + fakeAWS + `\t\u00e9"}`, `{"m":"key:\n[REDACTED]\té"}`},
		{"secret behind an escape", `{"m":"\u0073k-` + strings.Repeat("a1B2", 8) + `"}`, `{"m":"[REDACTED]"}`},
		{"pem in a string", `{"file":` + jsonString(fakePEM) + `}`, `{"file":"[REDACTED]"}`},
		{"nested tool arguments", `[{"type":"tool_call","arguments":"{\"auth\":\"Bearer ` + fakeBearerTok + `\"}"}]`,
			`[{"type":"tool_call","arguments":"{\"auth\":\"Bearer [REDACTED]\"}"}]`},
		{"credential pair", `{"client_secret":"` + fakePassword + `","n":1}`, `{"client_secret":"[REDACTED]","n":1}`},
		{"prose under a token name", `{"token":"the next token","x-api-key":"short"}`, `{"token":"the next token","x-api-key":"short"}`},
		{"JSON string literal", jsonString("Bearer " + fakeBearerTok), `"Bearer [REDACTED]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pcommon.NewMap()
			m.PutStr("gen_ai.input.messages", tt.in)
			assert.Equal(t, tt.in != tt.want, r.Map(m))
			v, _ := m.Get("gen_ai.input.messages")
			assert.Equal(t, tt.want, v.Str())
			assert.True(t, json.Valid([]byte(v.Str())))
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCredentialPairs: a credential-like value under a credential-like
// name is redacted when the secret scan is on, and only then.
func TestCredentialPairs(t *testing.T) {
	m := pcommon.NewMap()
	m.PutStr("db.password", fakePassword)
	m.PutStr("http.request.header.x-api-key", fakePassword)
	m.PutStr("next_token", "two words")
	m.PutInt("gen_ai.usage.input_tokens", 123456789)
	off := pcommon.NewMap()
	m.CopyTo(off)

	assert.True(t, New(nil, true).Map(m))
	assert.Equal(t, map[string]any{
		"db.password": Placeholder, "http.request.header.x-api-key": Placeholder,
		"next_token": "two words", "gen_ai.usage.input_tokens": int64(123456789),
	}, m.AsRaw())

	assert.False(t, New([]string{"other"}, false).Map(off))
}

func testSpan() ptrace.Span {
	sp := ptrace.NewSpan()
	sp.SetName("chat gpt-4o")
	sp.Attributes().PutStr("gen_ai.operation.name", "chat")
	sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")
	sp.Attributes().PutStr("gen_ai.input.messages", `[ {"role": "user", "parts": [{"type": "text", "content": "hi"}]} ]`)
	ev := sp.Events().AppendEmpty()
	ev.SetName("exception")
	ev.Attributes().PutStr("exception.message", "401: Incorrect API key provided: "+fakeOpenAIPrj)
	link := sp.Links().AppendEmpty()
	link.Attributes().PutStr("note", "slack "+fakeSlack)
	sp.Status().SetMessage("Incorrect API key provided: " + fakeOpenAIPrj)
	return sp
}

// TestSpan: attributes, event and link attributes and the status message.
func TestSpan(t *testing.T) {
	r := New([]string{"gen_ai.request.model"}, true)
	sp := testSpan()
	assert.True(t, r.Span(sp))

	model, _ := sp.Attributes().Get("gen_ai.request.model")
	assert.Equal(t, Placeholder, model.Str())
	msgs, _ := sp.Attributes().Get("gen_ai.input.messages")
	assert.Equal(t, `[ {"role": "user", "parts": [{"type": "text", "content": "hi"}]} ]`, msgs.Str(), "unchanged JSON keeps its bytes")
	msg, _ := sp.Events().At(0).Attributes().Get("exception.message")
	assert.Equal(t, "401: Incorrect API key provided: [REDACTED]", msg.Str())
	note, _ := sp.Links().At(0).Attributes().Get("note")
	assert.Equal(t, "slack [REDACTED]", note.Str())
	assert.Equal(t, "Incorrect API key provided: [REDACTED]", sp.Status().Message())
	assert.Equal(t, "chat gpt-4o", sp.Name())

	assert.False(t, r.Span(sp), "redacting twice changes nothing the second time")
}

// TestTraces: a batch is redacted in its resources, scopes and spans, and
// reports a change only when there was one.
func TestTraces(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("process.command_args", "agent --key "+secret)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().Attributes().PutStr("config", "token="+secret)
	testSpan().CopyTo(ss.Spans().AppendEmpty())

	r := New([]string{"gen_ai.request.model"}, true)
	require.True(t, r.Traces(td))
	args, _ := rs.Resource().Attributes().Get("process.command_args")
	assert.NotContains(t, args.Str(), secret)
	cfg, _ := ss.Scope().Attributes().Get("config")
	assert.NotContains(t, cfg.Str(), secret)
	model, _ := ss.Spans().At(0).Attributes().Get("gen_ai.request.model")
	assert.Equal(t, Placeholder, model.Str())
	assert.False(t, r.Traces(td), "nothing left to redact")
	assert.False(t, New(nil, false).Traces(td), "a Redactor that does nothing")
}

// TestLogs: a batch of log records is redacted in its resource, scope and
// record attributes and in its body, a string body and a map body alike.
func TestLogs(t *testing.T) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("process.command_args", "agent --key "+fakeOpenAI)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().Attributes().PutStr("config", "token="+fakeOpenAI)
	str := sl.LogRecords().AppendEmpty()
	str.Body().SetStr("my key is " + fakeAWS)
	str.Attributes().PutStr("password", "hunter")
	kv := sl.LogRecords().AppendEmpty()
	kv.Body().SetEmptyMap().PutStr("content", "use "+fakeGitHub)

	r := New([]string{"password"}, true)
	require.True(t, r.Logs(ld))
	for _, s := range []string{fakeOpenAI, fakeAWS, fakeGitHub, "hunter"} {
		b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
		require.NoError(t, err)
		assert.NotContains(t, string(b), s)
	}
	assert.Equal(t, "my key is "+Placeholder, str.Body().Str())
	assert.False(t, r.Logs(ld), "nothing left to redact")
	assert.False(t, New(nil, false).Logs(ld), "a Redactor that does nothing")
}

// TestUnchanged: a span with nothing to redact reports false and keeps
// every string as it was, byte for byte.
func TestUnchanged(t *testing.T) {
	in := map[string]string{
		"gen_ai.input.messages":      `[ {"role":"user", "parts":[{"type":"text","content":"caf\u00e9 \"quoted\" \n"}]}, {"b":2,"a":1} ]`,
		"gen_ai.tool.call.arguments": `{"z": 1.50e3, "a": [true, false, null], "": {}}`,
		"gen_ai.system_instructions": `[{"type":"text","content":"You are helpful."}]`,
		"invalid":                    `{"unterminated": [1, 2`,
		"plain":                      "just text with a colon: and an equals = sign",
	}
	for _, r := range []*Redactor{New([]string{"password"}, true), New(nil, true), New([]string{"password"}, false)} {
		sp := ptrace.NewSpan()
		for k, v := range in {
			sp.Attributes().PutStr(k, v)
		}
		assert.False(t, r.Span(sp))
		for k, v := range in {
			got, _ := sp.Attributes().Get(k)
			assert.Equal(t, v, got.Str(), k)
		}
	}
}

// TestSecretsOff: with the scan off, only named keys change.
func TestSecretsOff(t *testing.T) {
	r := New([]string{"password"}, false)
	m := pcommon.NewMap()
	m.PutStr("text", "key "+fakeOpenAI)
	m.PutStr("args", `{"password":"x","k":"`+fakeAWS+`"}`)
	assert.True(t, r.Map(m))
	assert.Equal(t, map[string]any{"text": "key " + fakeOpenAI, "args": `{"password":"[REDACTED]","k":"` + fakeAWS + `"}`}, m.AsRaw())
}

func TestEnabled(t *testing.T) {
	assert.False(t, New(nil, false).Enabled())
	assert.False(t, New([]string{""}, false).Enabled())
	assert.True(t, New(nil, true).Enabled())
	assert.True(t, New([]string{"password"}, false).Enabled())
	var nilR *Redactor
	assert.False(t, nilR.Enabled())

	// A disabled redactor changes nothing, even a secret.
	sp := testSpan()
	assert.False(t, New(nil, false).Span(sp))
	assert.False(t, nilR.Span(sp))
	assert.False(t, nilR.Map(sp.Attributes()))
	assert.Contains(t, sp.Status().Message(), fakeOpenAIPrj)
}

// TestConcurrent: one Redactor, many goroutines, different spans (run with
// -race).
func TestConcurrent(t *testing.T) {
	r := New([]string{"password"}, true)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				sp := testSpan()
				sp.Attributes().PutStr("gen_ai.tool.call.arguments", `{"password":"x","q":"`+fakeGitHub+`"}`)
				assert.True(t, r.Span(sp))
				args, _ := sp.Attributes().Get("gen_ai.tool.call.arguments")
				assert.Equal(t, `{"password":"[REDACTED]","q":"[REDACTED]"}`, args.Str())
			}
		})
	}
	wg.Wait()
}

// TestHostile: deep nesting and odd input neither panic nor change valid
// JSON into invalid JSON.
func TestHostile(t *testing.T) {
	r := New([]string{"password"}, true)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	deepOK := strings.Repeat(`{"a":`, 5000) + `{"password":1}` + strings.Repeat("}", 5000)
	nested := `"x"`
	for range 12 {
		nested = jsonString(`{"password":` + nested + `}`)
	}
	for _, s := range []string{deep, deepOK, nested, "{", "[", `"`, `"\`, `"\u12`, "\xff\xfe{", `{"a":"\ud800"}`} {
		m := pcommon.NewMap()
		m.PutStr("v", s)
		require.NotPanics(t, func() { r.Map(m) })
		v, _ := m.Get("v")
		if json.Valid([]byte(s)) {
			assert.True(t, json.Valid([]byte(v.Str())))
		}
	}
	m := pcommon.NewMap()
	m.PutStr("v", deepOK)
	assert.True(t, r.Map(m))
	v, _ := m.Get("v")
	assert.Contains(t, v.Str(), `{"password":"[REDACTED]"}`)
}
