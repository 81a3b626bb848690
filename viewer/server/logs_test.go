package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
)

// realLogsDir is the official @opentelemetry/instrumentation-openai
// capture: its message content is in log records only.
const realLogsDir = "../../testdata/real/otel-instrumentation-openai"

// convertWithLogs writes the traces and logs payloads of one captured
// scenario as one artifact, each log line after its span's record, as
// agenttrace convert TRACES LOGS -o x.jsonl does.
func convertWithLogs(t *testing.T, traces, logs string) []byte {
	t.Helper()
	read := func(path string) ([]byte, converter.Format) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return b, converter.Detect(b[:min(len(b), converter.DetectSize)])
	}
	tb, tf := read(traces)
	require.False(t, tf.IsLogs(), "%s detected as logs", traces)
	td, err := converter.ReadOTLP(bytes.NewReader(tb), tf, traces)
	require.NoError(t, err)
	lb, lf := read(logs)
	require.True(t, lf.IsLogs(), "%s detected as %s", logs, lf)
	ld, err := converter.ReadOTLPLogs(bytes.NewReader(lb), lf, logs)
	require.NoError(t, err)

	recs := artifact.Records(td)
	artifact.SortRecords(recs)
	bySpan, orphans := converter.LogsBySpan(recs, artifact.LogRecords(ld))
	require.Empty(t, orphans)
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, nil)
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
		for j := range bySpan[i] {
			require.NoError(t, w.WriteLog(&bySpan[i][j]))
		}
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// expectedText is the prompt and answer of one scenario of a capture's
// expected.json: what the fake model server was asked and answered.
func expectedText(t *testing.T, dir, scenario string) (prompt, answer string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]struct {
			Prompt string `json:"prompt"`
			Answer string `json:"answer"`
		} `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(b, &exp))
	sc, ok := exp.Scenarios[scenario]
	require.True(t, ok, "%s: no scenario %q", dir, scenario)
	require.NotEmpty(t, sc.Prompt)
	require.NotEmpty(t, sc.Answer)
	return sc.Prompt, sc.Answer
}

// TestServeContentFromLogs: serve shows a conversation that lives only in
// log records (the official instrumentation's) like one in span
// attributes: /data carries the user prompt and the model's answer as
// user and assistant text parts, and the run page holds them too.
func TestServeContentFromLogs(t *testing.T) {
	for _, sc := range []string{"tool-loop", "responses-tool-loop"} {
		t.Run(sc, func(t *testing.T) {
			prompt, answer := expectedText(t, realLogsDir, sc)
			art := convertWithLogs(t,
				filepath.Join(realLogsDir, "payloads", sc+".traces.pb"),
				filepath.Join(realLogsDir, "payloads", sc+".logs.pb"))
			require.Contains(t, string(art), `"kind":"log"`)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "run.jsonl"), art, 0o644))
			ts := start(t, dir)

			resp, body := ts.get(t, "/data/run.jsonl")
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			var run struct {
				Records []struct {
					Kind         string `json:"kind"`
					Conversation *struct {
						Input  []message `json:"input"`
						Output []message `json:"output"`
					} `json:"conversation"`
				} `json:"records"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &run))
			var users, assistants []string
			for _, r := range run.Records {
				if r.Conversation == nil {
					continue
				}
				assert.Equal(t, "inference", r.Kind)
				users = append(users, texts(r.Conversation.Input, "user")...)
				assistants = append(assistants, texts(r.Conversation.Output, "assistant")...)
			}
			assert.Contains(t, users, prompt)
			assert.Contains(t, assistants, answer)

			resp, page := ts.get(t, "/run/run.jsonl")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			for _, s := range []string{prompt, answer} {
				js, err := json.Marshal(s)
				require.NoError(t, err)
				assert.True(t, strings.Contains(page, s) || strings.Contains(page, string(js[1:len(js)-1])), "run page lacks %q", s)
			}
		})
	}
}

type message struct {
	Role  string `json:"role"`
	Parts []struct {
		Type    string `json:"type"`
		Content any    `json:"content"`
	} `json:"parts"`
}

// texts is the text parts of the messages of role.
func texts(ms []message, role string) []string {
	var out []string
	for _, m := range ms {
		if m.Role != role {
			continue
		}
		for _, p := range m.Parts {
			if s, ok := p.Content.(string); ok && p.Type == "text" {
				out = append(out, s)
			}
		}
	}
	return out
}
