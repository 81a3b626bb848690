package viewer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

func dropSome(key []byte) bool {
	switch string(key) {
	case "input", "output", "system":
		return true
	}
	return false
}

// checkDrop holds dropFields to encoding/json on one line: the result is
// JSON, and holds exactly the line's members but the dropped ones, with
// the same values. A line the lexer refuses (the encoder writes none: not
// UTF-8, nested deeper than jsonlex.MaxDepth) comes back whole.
func checkDrop(t *testing.T, line []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	if json.Unmarshal(line, &want) != nil {
		return
	}
	if !jsonlex.Valid(line) {
		require.Equal(t, string(line), string(dropFields(nil, line, dropSome)))
		return
	}
	got := dropFields(nil, line, dropSome)
	var have map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(got, &have), "%s", got)
	for k := range want {
		if dropSome([]byte(k)) {
			delete(want, k)
		}
	}
	require.Len(t, have, len(want))
	for k, v := range want {
		require.JSONEq(t, string(v), string(have[k]), "member %q", k)
	}
}

func TestDropFields(t *testing.T) {
	for _, line := range []string{
		`{}`,
		`{"input":[1]}`,
		`{"kind":"inference","input":[{"role":"user","parts":[{"type":"text","content":"a \"quoted\" {input}"}]}],"output":"x","n":1.5e3,"ok":true,"z":null}`,
		`{"args":{"input":"nested stays","output":[{"input":1}]},"input":"top goes"}`,
		`{ "a" : 1 , "input" : { "x" : [ ] } , "b" : "\\" }`,
		`{"\u0069nput":1,"a\"b":2}`,
	} {
		checkDrop(t, []byte(line))
	}
	// Every line of the golden artifacts.
	for _, name := range []string{"agent-run", "conversation", "genai-v141", "openinference", "vercel-ai-v5-stream"} {
		b, err := os.ReadFile("../testdata/golden/" + name + ".jsonl")
		require.NoError(t, err)
		for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
			checkDrop(t, []byte(line))
		}
	}
	// Cut short, or refused by the lexer: returned whole, never a panic.
	for _, line := range []string{`{"input":[1,`, `{"a":"x`, `{"a"`, `{"a":`, `{x}`, `{"input":1`, "{\"input\":\"\xff\"}"} {
		require.Equal(t, line, string(dropFields(nil, []byte(line), dropSome)))
	}
}

// FuzzDropFields: for any JSON object, dropFields agrees with
// encoding/json; for anything else it returns without panicking.
func FuzzDropFields(f *testing.F) {
	f.Add([]byte(`{"kind":"call","input":[{"a":"}"}],"b":2}`))
	f.Add([]byte(`{"a":{"input":1},"input":"\"}"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		_ = dropFields(nil, line, dropSome)
		checkDrop(t, line)
	})
}
