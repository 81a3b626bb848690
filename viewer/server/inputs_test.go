package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// inputsDir holds seed-shaped logs and a real OTLP payload, as a folder
// served with "agenttrace serve" may hold them (README.md there says where
// each comes from).
const inputsDir = "testdata/inputs"

// truth is what a test file says of itself, read from its own lines by
// the test (never by the importers): the conversation, the tool calls by
// name, and the tokens where the shape reports them.
type truth struct {
	conversation string
	agent        string // the agent the log names, when it does
	tools        map[string]int64
	tokens       *artifact.Tokens
}

// viewData is the part of a run's view model (/data) the tests read.
type viewData struct {
	Meta struct {
		ConversationID string `json:"conversation_id"`
	} `json:"meta"`
	Report struct {
		Tokens artifact.Tokens `json:"tokens"`
		ByTool []struct {
			Tool  string `json:"tool"`
			Calls int64  `json:"calls"`
		} `json:"by_tool"`
	} `json:"report"`
	Problems []struct {
		Line    int    `json:"line"`
		Message string `json:"message"`
	} `json:"problems"`
	Records []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"records"`
}

// data fetches the view model of rel.
func (ts *testServer) data(t *testing.T, rel string) viewData {
	t.Helper()
	resp, body := ts.get(t, "/data/"+rel)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	var v viewData
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	return v
}

// toolCalls counts v's tool calls by tool.
func (v viewData) toolCalls() map[string]int64 {
	out := map[string]int64{}
	for _, bt := range v.Report.ByTool {
		out[bt.Tool] += bt.Calls
	}
	return out
}

// sourceLines are the JSON objects of a log's lines, a server-sent
// event's "data:" taken off.
func sourceLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(bytes.TrimPrefix(sc.Bytes(), []byte("data:")))
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(line, &m), "%s", line)
		out = append(out, m)
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// transcriptTruth reads a transcript log (seed 001): its session, the
// tool_use blocks of its messages, and the usage of inference.responded,
// whose input excludes the cached tokens as Anthropic's does (OTel counts
// them in).
func transcriptTruth(t *testing.T, data []byte) truth {
	tr := truth{tools: map[string]int64{}, tokens: &artifact.Tokens{}}
	for _, l := range sourceLines(t, data) {
		if tr.conversation == "" {
			tr.conversation = str(l["sessionId"])
		}
		if sess, ok := l["session"].(map[string]any); ok && str(l["type"]) == "session.started" {
			tr.agent = str(sess["agent"])
		}
		if msg, ok := l["message"].(map[string]any); ok {
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				if b, ok := b.(map[string]any); ok && str(b["type"]) == "tool_use" {
					tr.tools[str(b["name"])]++
				}
			}
		}
		if str(l["type"]) != "inference.responded" {
			continue
		}
		u, _ := l["inference"].(map[string]any)["usage"].(map[string]any)
		tr.tokens.Input += num(u["input"]) + num(u["cache_read"]) + num(u["cache_create"])
		tr.tokens.Output += num(u["output"])
		tr.tokens.CacheRead += num(u["cache_read"])
		tr.tokens.CacheCreation += num(u["cache_create"])
	}
	tr.tokens.Total = tr.tokens.Input + tr.tokens.Output
	return tr
}

// trajectoryTruth reads a trajectory log (seed 004): its metadata's
// session and its tool_call and skill_invoke lines.
func trajectoryTruth(t *testing.T, data []byte) truth {
	tr := truth{tools: map[string]int64{}}
	for _, l := range sourceLines(t, data) {
		switch str(l["type"]) {
		case "metadata":
			tr.conversation = str(l["session_id"])
		case "tool_call":
			tr.tools[str(l["tool_name"])]++
		case "skill_invoke":
			tr.tools[str(l["skill_name"])]++
		}
	}
	return tr
}

// eventsTruth reads streaming trace events (seed 003): their tool_start
// events; the conversation when the file has one only.
func eventsTruth(t *testing.T, data []byte) truth {
	tr := truth{tools: map[string]int64{}}
	convs := map[string]bool{}
	for _, l := range sourceLines(t, data) {
		if c, ok := l["conversation_id"]; ok {
			convs[strings.TrimSuffix(strings.TrimSpace(jsonText(t, c)), "")] = true
		}
		if str(l["type"]) == "tool_start" {
			tr.tools[str(l["tool_name"])]++
		}
	}
	if len(convs) == 1 {
		tr.conversation = slices.Collect(maps.Keys(convs))[0]
	}
	return tr
}

// jsonText is a JSON value as text: a string's content, a number's digits.
func jsonText(t *testing.T, v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// otlpTruth reads what the capture of a real library's payload recorded
// (testdata/real/<lib>/expected.json): its tokens and tool calls.
func otlpTruth(t *testing.T, lib string, scenarios ...string) truth {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", lib, "expected.json"))
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]struct {
			Tools  map[string]int64 `json:"tools"`
			Tokens struct {
				Input         int64 `json:"input"`
				Output        int64 `json:"output"`
				CacheRead     int64 `json:"cache_read"`
				CacheCreation int64 `json:"cache_creation"`
				Reasoning     int64 `json:"reasoning"`
			} `json:"tokens"`
		} `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(raw, &exp))
	tr := truth{tools: map[string]int64{}, tokens: &artifact.Tokens{}}
	for _, name := range scenarios {
		sc, ok := exp.Scenarios[name]
		require.True(t, ok, name)
		for tool, n := range sc.Tools {
			tr.tools[tool] += n
		}
		tk := sc.Tokens
		tr.tokens.Input += tk.Input
		tr.tokens.Output += tk.Output
		tr.tokens.CacheRead += tk.CacheRead
		tr.tokens.CacheCreation += tk.CacheCreation
		tr.tokens.Reasoning += tk.Reasoning
	}
	tr.tokens.Total = tr.tokens.Input + tr.tokens.Output
	return tr
}

// inputCase is a file of inputsDir with what it says of itself; lines
// tells that it is one record per line, appended to as it grows.
type inputCase struct {
	file  string
	truth truth
	lines bool
}

// inputCases are the runs of inputsDir.
func inputCases(t *testing.T) []inputCase {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(inputsDir, name))
		require.NoError(t, err)
		return b
	}
	return []inputCase{
		{"session-transcript.jsonl", transcriptTruth(t, read("session-transcript.jsonl")), true},
		{"trajectory-b7e2c1d4.jsonl", trajectoryTruth(t, read("trajectory-b7e2c1d4.jsonl")), true},
		{"events.jsonl", eventsTruth(t, read("events.jsonl")), true},
		{"events-sse.jsonl", eventsTruth(t, read("events-sse.jsonl")), true},
		{"otlp-langfuse.jsonl", otlpTruth(t, "langfuse", "tool-loop", "stream"), true},
		{"otlp-langfuse-stream.json", otlpTruth(t, "langfuse", "stream"), false},
		{"otlp-langfuse-tool-loop.pb", otlpTruth(t, "langfuse", "tool-loop"), false},
	}
}

// notRun is a file of inputsDir named like a shape agenttrace reads
// (.json) that is none: neither listed nor served.
const notRun = "package.json"

// A folder of other shapes is served: each file is a run of the list,
// linked to its page, converted by its importer, with the numbers its own
// lines give, and no "bad lines".
func TestServeInputs(t *testing.T) {
	dir := t.TempDir()
	cases := inputCases(t)
	for _, c := range cases {
		copyFile(t, filepath.Join(inputsDir, c.file), dir, c.file)
	}
	copyFile(t, filepath.Join(inputsDir, notRun), dir, notRun)
	ts := start(t, dir)
	for _, route := range []string{"/run/", "/data/", "/raw/", "/events/"} {
		resp, _ := ts.get(t, route+notRun)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s%s: no run", route, notRun)
	}
	_, page := ts.get(t, "/")
	listed := map[string]row{}
	for _, r := range rows(t, page) {
		listed[r.path] = r
	}
	require.Len(t, listed, len(cases), "every run, and not %s", notRun)
	named := map[string]server.RunRow{}
	for _, r := range ts.Runs(nil).Rows {
		named[r.Run] = r
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r, ok := listed[c.file]
			require.True(t, ok, "listed")
			assert.Equal(t, "/run/"+c.file, r.href)
			assert.NotContains(t, r.cols["state"], "bad line")
			assert.NotEmpty(t, named[c.file].Name, "named for people, as an artifact's run is")
			if c.truth.agent != "" {
				assert.Contains(t, named[c.file].Name, c.truth.agent, "named for the agent the log names")
			}
			v := ts.data(t, c.file)
			assert.Empty(t, v.Problems)
			assert.Equal(t, c.truth.tools, v.toolCalls(), "tool calls by tool")
			if c.truth.conversation != "" {
				assert.Equal(t, c.truth.conversation, v.Meta.ConversationID)
			}
			if c.truth.tokens != nil {
				assert.Equal(t, *c.truth.tokens, v.Report.Tokens)
				assert.Equal(t, c.truth.tokens.Input, number(t, r.cols["in"]), "the list's input tokens")
				assert.Equal(t, c.truth.tokens.Output, number(t, r.cols["out"]), "the list's output tokens")
			}
			assert.Equal(t, int64(len(v.Records)), number(t, r.cols["records"]), "the list counts the page's records")
			for tool := range c.truth.tools {
				assert.Contains(t, r.cols["names"], tool, "the list names the tools")
			}
			resp, page := ts.get(t, "/run/"+c.file)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, page, "at-live", "the page follows the file")
			resp, raw := ts.get(t, "/raw/"+c.file)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, resp.Header.Get("Content-Disposition"), strings.TrimSuffix(c.file, filepath.Ext(c.file))+".jsonl", "downloaded as its artifact")
			assert.Contains(t, strings.SplitN(raw, "\n", 2)[0], `"kind":"meta"`, "the converted artifact, its header first")
		})
	}
}

// A log that grows is followed: the page's live stream sends an event for
// each line it gains (from the offset the page was given, a line written
// in two parts sent once, when whole), its view model and its list row
// grow with it to what the whole file gives, a line being written is
// waited for rather than reported, and a line that cannot be read is
// reported with its line number.
func TestServeInputsFollow(t *testing.T) {
	dir := t.TempDir()
	cases := inputCases(t)
	type grow struct {
		file  string
		lines []string
	}
	var all []grow
	for _, c := range cases {
		if !c.lines {
			continue // a document is written whole (TestImportWhileWritten)
		}
		data, err := os.ReadFile(filepath.Join(inputsDir, c.file))
		require.NoError(t, err)
		lines := strings.SplitAfter(string(data), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		all = append(all, grow{c.file, lines})
		// The first half now; the whole file beside it, to compare with.
		appendFile(t, filepath.Join(dir, c.file), strings.Join(lines[:len(lines)/2], ""))
		copyFile(t, filepath.Join(inputsDir, c.file), dir, "whole/"+c.file)
	}
	ts := start(t, dir, fast)
	for _, g := range all {
		t.Run(g.file, func(t *testing.T) {
			path := filepath.Join(dir, g.file)
			live, offset := ts.liveURL(t, g.file)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, fi.Size(), offset, "the page goes on from the end of the file")
			before := len(ts.data(t, g.file).Records)
			stream := ts.openEvents(t, live, "")

			// The rest, its last line in two writes: the first half of
			// it is waited for.
			rest := strings.Join(g.lines[len(g.lines)/2:], "")
			last := g.lines[len(g.lines)-1]
			cut := len(rest) - len(last)/2
			appendFile(t, path, rest[:cut])
			torn := ts.data(t, g.file)
			assert.Empty(t, torn.Problems, "a line being written is not a problem")
			appendFile(t, path, rest[cut:])
			// The last event ends the last line that is not blank.
			end := offset + int64(len(strings.TrimRight(rest, "\n"))) + 1
			for {
				ev := stream.next(t)
				require.Equal(t, "record", ev.name)
				if ev.id == fmt.Sprint(end) {
					break
				}
			}

			whole := ts.data(t, "whole/"+g.file)
			grown := ts.data(t, g.file)
			assert.Greater(t, len(grown.Records), before, "the run grew")
			assert.Equal(t, whole.Records, grown.Records, "as the whole file reads")
			assert.Equal(t, whole.Report.Tokens, grown.Report.Tokens)
			assert.Empty(t, grown.Problems)
			_, page := ts.get(t, "/")
			listed := map[string]row{}
			for _, r := range rows(t, page) {
				listed[r.path] = r
			}
			assert.Equal(t, listed["whole/"+g.file].cols["records"], listed[g.file].cols["records"], "the list follows")
			assert.Equal(t, listed["whole/"+g.file].cols["total"], listed[g.file].cols["total"])

			// A line no importer reads: reported with its number.
			appendFile(t, path, "this is not JSON\n")
			bad := ts.data(t, g.file)
			require.Len(t, bad.Problems, 1, "one bad line")
			assert.Equal(t, len(g.lines)+1, bad.Problems[0].Line)
			assert.NotEmpty(t, bad.Problems[0].Message)
			_, page = ts.get(t, "/")
			for _, r := range rows(t, page) {
				if r.path == g.file {
					assert.Contains(t, r.cols["state"], "1 bad line")
				}
			}
		})
	}
}

// A folder listed from its run catalog (more runs than the index holds)
// lists the logs of other shapes as the index does: each has a catalog
// row made from the artifact it converts to, with the same numbers,
// names and bad lines.
func TestServeInputsCatalog(t *testing.T) {
	dir := t.TempDir()
	cases := inputCases(t)
	for _, c := range cases {
		copyFile(t, filepath.Join(inputsDir, c.file), dir, c.file)
	}
	copyFile(t, filepath.Join(inputsDir, notRun), dir, notRun)
	appendFile(t, filepath.Join(dir, cases[0].file), "this is not JSON\n")
	realRuns(t, dir, 3)
	n := len(cases) + 3
	index := start(t, dir)
	fromCatalog := start(t, dir, server.WithIndexLimit(2))
	awaitCatalog(t, fromCatalog, n)
	want, got := index.Runs(nil), fromCatalog.Runs(nil)
	require.Len(t, want.Rows, n)
	require.Len(t, got.Rows, n)
	byRun := map[string]server.RunRow{}
	for _, r := range got.Rows {
		byRun[r.Run] = r
	}
	for _, w := range want.Rows {
		g, ok := byRun[w.Run]
		require.True(t, ok, "%s has a catalog row", w.Run)
		assert.Equal(t, w.Records, g.Records, "%s records", w.Run)
		assert.Equal(t, w.Errors, g.Errors, "%s errors", w.Run)
		assert.Equal(t, w.Tokens, g.Tokens, "%s tokens", w.Run)
		assert.Equal(t, w.CostUSD, g.CostUSD, "%s cost", w.Run)
		assert.Equal(t, w.Problems, g.Problems, "%s bad lines", w.Run)
		assert.Equal(t, w.Name, g.Name, "%s name", w.Run)
		assert.Equal(t, w.Prompt, g.Prompt, "%s prompt", w.Run)
		// The catalog keeps milliseconds (catalog.Row.Started).
		assert.True(t, w.Started.Truncate(time.Millisecond).Equal(g.Started), "%s started %v %v", w.Run, w.Started, g.Started)
	}
	assert.Equal(t, int64(1), byRun[cases[0].file].Problems, "the bad line is counted")
	for _, c := range cases {
		if c.truth.tokens != nil {
			assert.Equal(t, *c.truth.tokens, byRun[c.file].Tokens, "%s: the catalog's tokens are the log's", c.file)
		}
	}
}
