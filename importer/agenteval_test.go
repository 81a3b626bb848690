package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

func TestReadAgentEvalFixtures(t *testing.T) {
	t.Parallel()
	cases := []fixtureCase{
		{
			// The chat boundary alone (v1.1): three round-trips, one a timeout.
			file: "agenteval.json", read: ReadAgentEval, traces: 1, records: 5,
			calls: 1, inferences: 3, agents: 1, errors: 1,
			tokens:     artifact.Tokens{Input: 182 + 221, Output: 17 + 12},
			tools:      []string{"get_weather"},
			errorSpans: []string{"chat gpt-4o-mini: TaskCanceledException"},
			tree: []string{
				"chat gpt-4o-mini <- invoke_agent WeatherAgent",
				"chat gpt-4o-mini <- invoke_agent WeatherAgent",
				"chat gpt-4o-mini <- invoke_agent WeatherAgent",
				"execute_tool get_weather <- invoke_agent WeatherAgent",
				"invoke_agent WeatherAgent <- ",
			},
		},
		{
			// Both boundaries around the same invocation: the agent's call
			// wraps the round-trips and repeats their usage, counted once.
			file: "agenteval-double.json", read: ReadAgentEval, traces: 1, records: 5,
			calls: 1, inferences: 2, agents: 1, errors: 0,
			tokens: artifact.Tokens{Input: 403, Output: 29},
			tools:  []string{"get_weather"},
			tree: []string{
				"chat gpt-4o-mini <- chat gpt-4o-mini",
				"chat gpt-4o-mini <- chat gpt-4o-mini",
				"chat gpt-4o-mini <- invoke_agent WeatherAgent",
				"execute_tool get_weather <- chat gpt-4o-mini",
				"invoke_agent WeatherAgent <- ",
			},
		},
		{
			// v1.0, the agent boundary only, a bare entry list: the tool
			// calls the agent reports are the executions.
			file: "agenteval-v10.json", read: ReadAgentEval, traces: 1, records: 5,
			calls: 2, inferences: 2, agents: 1, errors: 1,
			tokens:     artifact.Tokens{Input: 640 + 712, Output: 58 + 6},
			tools:      []string{"find_restaurant", "book_table"},
			errorSpans: []string{"execute_tool book_table: tool_error"},
			tree: []string{
				"chat <- invoke_agent",
				"chat <- invoke_agent",
				"execute_tool book_table <- chat",
				"execute_tool find_restaurant <- chat",
				"invoke_agent <- ",
			},
		},
	}
	checkFixtures(t, cases)
}

func TestReadAgentEvalDetails(t *testing.T) {
	t.Parallel()
	recs, st := importFixture(t, ReadAgentEval, "agenteval.json")
	assert.Empty(t, st.Problems)
	assert.Empty(t, st.Unknown)
	root := recs[len(recs)-1].Span
	assert.Equal(t, "WeatherAgent", attr(root, semconv.AgentName))
	assert.Equal(t, "weather-agent-glassbox", attr(root, agentEvalPrefix+"traceName"))
	assert.Equal(t, ts("2026-05-31T09:00:00Z"), root.StartTimestamp(), "from capturedAt")
	assert.Contains(t, attr(root, agentEvalPrefix+"performance"), "callCount")

	chats := byOp(recs, semconv.OpChat)
	first := chats[0].Span
	assert.Equal(t, ptrace.SpanKindClient, first.Kind())
	assert.Equal(t, ts("2026-05-31T09:00:00.100Z"), first.StartTimestamp(), "from the request")
	assert.Equal(t, ts("2026-05-31T09:00:00.900Z"), first.EndTimestamp(), "to the response")
	assert.Equal(t, "inv-7c21", attr(first, agentEvalAttrCorrelation))
	assert.Equal(t, "0", attr(first, agentEvalAttrIndex))
	assert.Equal(t, "512", attr(first, semconv.RequestMaxTokens))
	assert.Equal(t, "0.2", attr(first, semconv.RequestTemperature))
	assert.JSONEq(t, `[{"type":"text","content":"You are a concise weather assistant."}]`, attr(first, semconv.SystemInstructions))
	assert.Contains(t, attr(first, semconv.ToolDefinitions), "get_weather")
	assert.JSONEq(t, `[{"role":"user","parts":[{"type":"text","content":"What's the weather in Oslo?"}]}]`, attr(first, semconv.InputMessages))
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"tool_call","name":"get_weather","arguments":{"city":"Oslo"}}],"finish_reason":"tool_call"}]`,
		attr(first, semconv.OutputMessages))
	assert.Contains(t, attr(first, agentEvalPrefix+"provider_metadata"), "fp_0ba0d124f1")

	tool := byOp(recs, semconv.OpExecuteTool)[0].Span
	assert.Equal(t, ts("2026-05-31T09:00:00.910Z"), tool.StartTimestamp(), "durationMs before its time")
	assert.Equal(t, `{"tempC":4,"sky":"overcast"}`, attr(tool, semconv.ToolCallResult))

	failed := chats[2].Span
	assert.Equal(t, "TaskCanceledException", attr(failed, semconv.ErrorType))
	assert.Equal(t, "exception", failed.Events().At(0).Name())

	recs, _ = importFixture(t, ReadAgentEval, "agenteval-v10.json")
	var book ptrace.Span
	for _, r := range byOp(recs, semconv.OpExecuteTool) {
		if attr(r.Span, semconv.ToolName) == "book_table" {
			book = r.Span
		}
	}
	assert.Equal(t, "slot taken, retried at 19:45", book.Status().Message())
	assert.Equal(t, ts("2026-04-02T14:10:01.800Z"), book.StartTimestamp(), "startedAt")
	streamed := byOp(recs, semconv.OpChat)[1].Span
	assert.Contains(t, attr(streamed, agentEvalPrefix+"streaming_chunks"), "welcome.")
}

func TestReadAgentEvalProblems(t *testing.T) {
	runSmall(t, ReadAgentEval, []smallCase{
		{"not a trace", `"hello"`, func(t *testing.T, recs []*artifact.Record, st Stats) {
			assert.Empty(t, recs)
			assert.Equal(t, []int{1}, problemLines(t, st, "small"))
		}},
		{"no entries", `{"traceName":"x"}`, func(t *testing.T, recs []*artifact.Record, st Stats) {
			assert.Empty(t, recs)
			assert.Equal(t, []int{1}, problemLines(t, st, "small"))
		}},
		{"a bad entry is reported with its line and skipped", "[\n7,\n{\"type\":\"Request\",\"index\":0,\"timestamp\":\"2026-05-31T09:00:00Z\",\"prompt\":\"p\"}\n]",
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Equal(t, []int{2}, problemLines(t, st, "small"))
				require.Len(t, recs, 2)
				assert.Equal(t, errIncomplete, attr(recs[0].Span, semconv.ErrorType), "a request without its response")
			}},
		{"unknown entry types are counted", `[{"type":"Heartbeat","index":0}]`, func(t *testing.T, recs []*artifact.Record, st Stats) {
			assert.Equal(t, map[string]int64{"entry type Heartbeat": 1}, st.Unknown)
			require.Len(t, recs, 1)
		}},
		{"numeric enums", `[{"type":"Request","scope":1,"index":0,"timestamp":1780000000000,"prompt":"p"},{"type":"Response","scope":1,"index":0,"timestamp":1780000001000,"text":"t"}]`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Empty(t, st.Problems)
				require.Len(t, recs, 2)
				assert.Equal(t, aeChat, attr(recs[0].Span, agentEvalAttrScope))
			}},
	})
}

func FuzzAgentEval(f *testing.F) {
	for _, name := range []string{"agenteval.json", "agenteval-double.json", "agenteval-v10.json"} {
		data, err := os.ReadFile(filepath.Join(shapesDir, name))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`[{"type":"ToolCall","index":0,"toolCalls":[{"startedAt":"2300-01-01T00:00:00Z","durationMs":1e300}]}]`))
	f.Add([]byte(`[{"type":"Response","index":0,"durationMs":-5,"timestamp":1}]`))
	f.Fuzz(func(t *testing.T, data []byte) { checkFuzz(t, ReadAgentEval, data) })
}

// pascal renames the members of a JSON value to PascalCase, as a
// serializer without a naming policy writes them.
func pascal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ToUpper(k[:1])+k[1:]] = pascal(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = pascal(x[i])
		}
	}
	return v
}

// TestReadAgentEvalPascalCase: member names are matched whatever their
// case: the same trace in PascalCase imports to the same spans.
func TestReadAgentEvalPascalCase(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(shapesDir, "agenteval.json"))
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(data, &doc))
	upper, err := json.Marshal(pascal(doc))
	require.NoError(t, err)
	assert.Equal(t, AgentEval, Detect(upper))
	want, _ := importBytes(t, ReadAgentEval, "a", data)
	got, st := importBytes(t, ReadAgentEval, "a", upper)
	assert.Empty(t, st.Problems)
	require.Len(t, got, len(want))
	for i := range want {
		w, g := want[i].Span, got[i].Span
		assert.Equal(t, w.Name(), g.Name())
		for _, k := range []string{semconv.InputMessages, semconv.OutputMessages, semconv.UsageInputTokens, semconv.UsageOutputTokens,
			semconv.SystemInstructions, semconv.RequestModel, agentEvalAttrCorrelation, semconv.ToolCallResult} {
			assert.Equal(t, attr(w, k), attr(g, k), "%s %s", w.Name(), k)
		}
	}
}
