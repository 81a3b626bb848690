package semconv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// checkCanon: what canonMessages reads, it reads as messagesOf reads the
// decoded text (the reading it stands in for); it reports whether it
// read s.
func checkCanon(t *testing.T, s, role string) bool {
	got, ok := canonMessages(s, role)
	if !ok {
		assert.Nil(t, got)
		return false
	}
	assert.Equal(t, messagesOf(maybeJSON(s), role), got, "%q as %s", s, role)
	return true
}

var canonCases = []struct {
	doc  string
	read bool // canonMessages reads it (else it leaves it to messagesOf)
}{
	{`[{"role":"user","parts":[{"type":"text","content":"hi"},{"type":"reasoning","content":"hmm"}]}]`, true},
	{` [{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get","arguments":{"q":"x","n":1.50}}],"finish_reason":"tool_call"}] `, true},
	{`[{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"get","arguments":"{\"q\":1}"}],"finish_reason":"Tool-Calls"}]`, true},
	{`[{"role":"tool","parts":[{"type":"tool_call_response","id":"c","response":{"type":"json","value":"[1]"}}]}]`, true},
	{`[{"role":"tool","parts":[{"type":"text","content":"{\"a\":1}"}]}]`, true},
	{`[{"role":"tool","parts":[{"type":"tool_call_response","id":"c","content":"ok"}]}]`, true},
	{`[{"role":"Human","name":"ann","parts":[{"type":"text","content":""},{"type":"text","content":"x"}]}]`, true},
	{`[{"role":"","parts":[{"type":"reasoning"}]},{"parts":[{"type":"text","content":"b"}]}]`, true},
	{`[{"role":"user","role":"assistant","parts":[{"type":"text","content":"a","content":"b"}],"parts":[{"type":"text","content":"c"}]}]`, true},
	{`[{"r\u006fle":"user","parts":[{"type":"text","content":"\u00e9 \"q\""}]}]`, true},
	{`[{"role":"user","parts":[{"type":"text","content":"a","id":"x","name":"y"}]}]`, true},
	{`[{"role":"assistant","parts":[{"type":"tool_call","name":"n"}]}]`, true},
	// Left to messagesOf: other shapes, members, types, or nothing read.
	{`[]`, false}, {`{"role":"user","parts":[]}`, false}, {`hello`, false},
	{`[{"role":"user","parts":[]}]`, false},
	{`[{"role":"user","parts":[{"type":"text","content":""}]}]`, false},
	{`[{"role":"user","content":"hi"}]`, false},
	{`[{"role":"user","parts":[{"type":"text","text":"hi"}]}]`, false},
	{`[{"role":"user","parts":[{"type":"image","uri":"u"}]}]`, false},
	{`[{"role":"user","parts":[{"type":"text","content":1}]}]`, false},
	{`[{"role":1,"parts":[{"type":"text","content":"x"}]}]`, false},
	{`[{"role":"user","parts":["x"]}]`, false},
	{`[{"role":"user","parts":[{"type":"text","content":"x"}],"tool_calls":[]}]`, false},
	{`[{"role":"user","parts":[{"type":"text","content":"x"}]}] [1]`, false},
	{"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"\xff\"}]}]", false},
	{`["x"]`, false}, {`[null]`, false},
}

func TestCanonMessagesAgreesWithMessagesOf(t *testing.T) {
	for _, c := range canonCases {
		for _, role := range []string{RoleUser, RoleAssistant} {
			assert.Equal(t, c.read, checkCanon(t, c.doc, role), "%q", c.doc)
		}
	}
}

// TestCanonMessagesAgreesOnRealSpans holds canonMessages to messagesOf on
// every text attribute of the captured payloads, and checks that it reads
// the conventions' own message lists among them.
func TestCanonMessagesAgreesOnRealSpans(t *testing.T) {
	read := 0
	for _, sp := range realSpans(t) {
		for _, v := range sp.Attributes().All() {
			if v.Type() != pcommon.ValueTypeStr {
				continue
			}
			for _, role := range []string{RoleUser, RoleAssistant} {
				if checkCanon(t, v.Str(), role) {
					read++
				}
			}
		}
	}
	require.Positive(t, read, "the corpus holds message lists in the conventions' shape")
}

func FuzzCanonMessages(f *testing.F) {
	for _, c := range canonCases {
		f.Add(c.doc)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCanon(t, s, RoleUser)
		checkCanon(t, s, RoleTool)
	})
}
