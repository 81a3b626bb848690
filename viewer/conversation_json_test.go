package viewer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestConversationJSONAgreesWithEncodingJSON: on every payload captured
// from the real libraries, the conversations the page embeds, written by
// hand (appendJSON), are what encoding/json writes from semconv's field
// tags, value for value, with each link as its part's "tool_span"
// (semconv's FuzzAppendJSON holds the parts' values to encoding/json).
func TestConversationJSONAgreesWithEncodingJSON(t *testing.T) {
	traces, err := filepath.Glob(filepath.Join("..", "testdata", "real", "*", "payloads", "*.traces.pb"))
	require.NoError(t, err)
	require.NotEmpty(t, traces)
	decode := func(b []byte) any {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		require.NoError(t, d.Decode(&v), "%s", b)
		return v
	}
	type tagged struct {
		System []semconv.Part    `json:"system,omitempty"`
		Input  []semconv.Message `json:"input,omitempty"`
		Output []semconv.Message `json:"output,omitempty"`
	}
	seen, links := 0, 0
	for _, tp := range traces {
		recs := realRecords(t, tp)
		for i, c := range runConversations(converter.NewBatch(recs), recs) {
			if c == nil {
				continue
			}
			seen++
			b, err := json.Marshal(tagged(c.Conversation))
			require.NoError(t, err)
			want := decode(b).(map[string]any)
			for _, l := range c.links {
				list := "input"
				if l.output {
					list = "output"
				}
				part := want[list].([]any)[l.msg].(map[string]any)["parts"].([]any)[l.part].(map[string]any)
				part["tool_span"] = l.span.String()
				links++
			}
			got := c.appendJSON([]byte("x"))[1:]
			assert.Equal(t, want, decode(got), "%s: record %d (%s)", tp, i, recs[i].Span.Name())
		}
	}
	assert.Greater(t, seen, 100)
	assert.Positive(t, links)
}

// realRecords reads a captured payload's records, with the content of its
// log records, if it has any, as their spans' events.
func realRecords(t *testing.T, tracesPath string) []artifact.Record {
	read := func(path string) ([]byte, converter.Format) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return b, converter.Detect(b[:min(len(b), converter.DetectSize)])
	}
	b, f := read(tracesPath)
	td, err := converter.ReadOTLP(bytes.NewReader(b), f, tracesPath)
	require.NoError(t, err)
	recs := artifact.Records(td)
	lp := strings.TrimSuffix(tracesPath, ".traces.pb") + ".logs.pb"
	if _, err := os.Stat(lp); err == nil {
		b, f := read(lp)
		ld, err := converter.ReadOTLPLogs(bytes.NewReader(b), f, lp)
		require.NoError(t, err)
		recs = converter.LogsAsEvents(recs, artifact.LogRecords(ld))
	}
	return recs
}
