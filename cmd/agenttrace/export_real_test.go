package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chatLineJSON is a chat-jsonl line as a fine-tuning tool reads it: a
// line with any other member fails to decode (DisallowUnknownFields).
type chatLineJSON struct {
	Messages []struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Evaluations []struct {
		Name        string   `json:"name"`
		Score       *float64 `json:"score"`
		Label       string   `json:"label"`
		Explanation string   `json:"explanation"`
		ResponseID  string   `json:"response_id"`
		ErrorType   string   `json:"error_type"`
		SpanID      string   `json:"span_id"`
	} `json:"evaluations"`
}

// parseChatJSONL decodes every line of out strictly and checks the chat
// shape: known roles, the assistant's answer last, tool calls of type
// function with a name and JSON arguments, each tool message answering a
// call made before it.
func parseChatJSONL(t *testing.T, out string) []chatLineJSON {
	t.Helper()
	return parseChatLines(t, out, true)
}

// parseChatLines is parseChatJSONL; linked false leaves out the check
// that each tool result answers an earlier call (see chatUnread).
func parseChatLines(t *testing.T, out string, linked bool) []chatLineJSON {
	t.Helper()
	var lines []chatLineJSON
	for n, raw := range lines0(out) {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields()
		var l chatLineJSON
		require.NoError(t, dec.Decode(&l), "line %d: %s", n+1, raw)
		require.NotEmpty(t, l.Messages, "line %d", n+1)
		assert.Equal(t, "assistant", l.Messages[len(l.Messages)-1].Role, "line %d: the answer is last", n+1)
		called := map[string]bool{}
		for i, m := range l.Messages {
			assert.Contains(t, []string{"system", "user", "assistant", "tool"}, m.Role, "line %d message %d", n+1, i)
			switch m.Role {
			case "assistant":
				assert.True(t, m.Content != nil || len(m.ToolCalls) > 0, "line %d message %d: an empty assistant message", n+1, i)
				for _, tc := range m.ToolCalls {
					assert.Equal(t, "function", tc.Type)
					assert.NotEmpty(t, tc.Function.Name, "line %d message %d: a tool call without a name", n+1, i)
					assert.True(t, json.Valid([]byte(tc.Function.Arguments)), "line %d: arguments %q are not JSON", n+1, tc.Function.Arguments)
					called[tc.ID] = true
				}
			case "tool":
				require.NotNil(t, m.Content, "line %d message %d: a tool message without content", n+1, i)
				if linked && m.ToolCallID != "" {
					assert.True(t, called[m.ToolCallID], "line %d message %d: a result for call %q no earlier message made", n+1, i, m.ToolCallID)
				}
			default:
				assert.NotNil(t, m.Content, "line %d message %d", n+1, i)
				assert.Empty(t, m.ToolCalls, "line %d message %d: tool calls on a %s message", n+1, i, m.Role)
			}
		}
		for _, tl := range l.Tools {
			assert.Equal(t, "function", tl.Type)
			assert.NotEmpty(t, tl.Function.Name)
		}
		lines = append(lines, l)
	}
	return lines
}

// lines0 splits out into its non-empty lines.
func lines0(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// TestExportChatReal is issue 25's check for datasets: every captured
// payload of testdata/real (its OTLP/JSON traces and logs, with a planted
// secret added to the user's prompt), converted to an artifact without
// redaction, exports as chat-jsonl lines that all parse, in the chat
// shape, carrying the prompt, the answer and the tool calls the scripted
// server saw (expected.json), and no planted secret; with --no-redact
// the secret is there, which shows the prompt reaches the lines.
func TestExportChatReal(t *testing.T) {
	libs := realLibraries(t)
	if len(libs) == 0 {
		t.Skip("no payloads under testdata/real")
	}
	secret := loadPlanted(t).Secrets["openai"]
	for dir, lib := range libs {
		for name, sc := range lib.Scenarios {
			signals := sc.Payloads["json"]
			if len(signals["traces"]) == 0 {
				continue
			}
			g := realGaps[lib.Library+"/"+name]
			u := realUnread[lib.Library+"/"+name+"/json"]
			t.Run(lib.Library+"/"+name, func(t *testing.T) {
				t.Parallel()
				tmp := t.TempDir()
				var ins []string
				planted := 0
				for _, f := range append(slices.Clone(signals["traces"]), signals["logs"]...) {
					raw, err := os.ReadFile(filepath.Join(dir, f))
					require.NoError(t, err)
					if sc.Prompt != nil && *sc.Prompt != "" {
						planted += bytes.Count(raw, []byte(*sc.Prompt))
						raw = bytes.ReplaceAll(raw, []byte(*sc.Prompt), []byte(*sc.Prompt+" my key is "+secret))
					}
					p := filepath.Join(tmp, filepath.Base(f))
					require.NoError(t, os.WriteFile(p, raw, 0o600))
					ins = append(ins, p)
				}
				art := filepath.Join(tmp, "run.jsonl")
				r := agenttrace(t, "", append([]string{"convert", "--no-redact", "-o", art}, ins...)...)
				require.Equal(t, 0, r.code, r.stderr)

				cu := chatUnread[lib.Library+"/"+name]
				r = agenttrace(t, "", "export", "--format", "chat-jsonl", art)
				require.Equal(t, 0, r.code, r.stderr)
				assert.NotContains(t, r.stdout, core(secret), "the planted secret survived")
				lines := parseChatLines(t, r.stdout, !cu.unlinked)
				perRun := agenttrace(t, "", "export", "--format", "chat-jsonl", "--per", "run", art)
				require.Equal(t, 0, perRun.code, perRun.stderr)
				assert.NotContains(t, perRun.stdout, core(secret), "the planted secret survived --per run")
				runLines := parseChatLines(t, perRun.stdout, !cu.unlinked)
				assert.LessOrEqual(t, len(runLines), 1, "--per run: one line per run")
				if g.noSpan || g.content {
					return
				}
				if sc.Answer == nil || g.noAnswer {
					// No answer (a failed call, or one the library does not
					// record): the call is left out, and counted.
					assert.Empty(t, lines, "a line without an answer")
					assert.Contains(t, r.stderr, "without an answer left out")
					return
				}
				checkChatContent(t, lines, sc, g, u, cu)
				if planted > 0 {
					raw := agenttrace(t, "", "export", "--no-redact", "--format", "chat-jsonl", art)
					require.Equal(t, 0, raw.code, raw.stderr)
					assert.Contains(t, raw.stdout, core(secret), "--no-redact: the prompt with the planted secret is not in the lines")
				}
			})
		}
	}
}

// checkChatContent checks the lines against the server's ground truth:
// the prompt is a user message, the answer an assistant message last in a
// line, the tool calls those the model made, with their ids.
func checkChatContent(t *testing.T, lines []chatLineJSON, sc realScenario, g gap, u unread, cu chatIDs) {
	t.Helper()
	var users, answers, calls, ids []string
	for _, l := range lines {
		for _, m := range l.Messages {
			if m.Role == "user" && m.Content != nil {
				users = append(users, *m.Content)
			}
			for _, tc := range m.ToolCalls {
				calls = append(calls, tc.Function.Name)
				ids = append(ids, tc.ID)
			}
		}
		if last := l.Messages[len(l.Messages)-1]; last.Content != nil {
			answers = append(answers, *last.Content)
		}
	}
	if sc.Prompt != nil {
		found := false
		for _, s := range users {
			found = found || strings.HasPrefix(s, *sc.Prompt)
		}
		assert.True(t, found, "the prompt %q is no user message: %q", *sc.Prompt, users)
	}
	assert.Contains(t, answers, *sc.Answer, "the answer is the last message of a line")
	if len(sc.Tools) == 0 || g.noToolCall || u.toolCall {
		return
	}
	want := make([]string, 0, len(sc.Tools))
	for name := range sc.Tools {
		want = append(want, name)
	}
	sort.Strings(want)
	assert.Equal(t, want, slices.Compact(slices.Sorted(slices.Values(calls))), "tool calls")
	for _, c := range sc.Calls {
		for _, tc := range c.ToolCalls {
			switch {
			case tc.ID == "": // the provider sends none (Gemini)
			case cu.reason != "":
				assert.NotContains(t, ids, tc.ID, "unread: %s", cu.reason)
			default:
				assert.Contains(t, ids, tc.ID, "the tool call id the server sent")
			}
		}
	}
}

// chatIDs is what the normalized conversation (semconv.Messages) gets
// wrong about tool call ids in a payload: kept open in issue 21, and
// checked to be still wrong, so a fix fails here until its entry goes.
type chatIDs struct {
	unlinked bool // a tool result names a call id no tool call has
	reason   string
}

// chatUnread, keyed "library/scenario".
var chatUnread = map[string]chatIDs{
	"openinference-langchain/tool-loop": {
		reason: "@arizeai/openinference-instrumentation-langchain 4.1.1 flattens the tool call without its id (llm.output_messages.0.message.tool_calls.0.tool_call.id is not written); the id is only in output.value, which the normalization does not read for it"},
}
