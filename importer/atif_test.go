package importer

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// atifDir holds the ATIF fixtures (testdata/atif/README.md says where each
// comes from). Expected tokens are the fixtures' own final_metrics, or the
// sum of their steps' metrics where they state none.
const atifDir = "../atif"

func TestReadATIFFixtures(t *testing.T) {
	t.Parallel()
	checkFixtures(t, []fixtureCase{
		{
			// v1.0: a system prompt, no metrics at all.
			file: atifDir + "/atif-v1.0-no-metrics.json", read: ReadATIF, traces: 1, records: 6,
			calls: 2, inferences: 3, agents: 1,
			tools: []string{"bash", "bash"},
			tree: []string{
				"chat claude-3-5-sonnet-20241022 <- invoke_agent mini-swe-agent",
				"chat claude-3-5-sonnet-20241022 <- invoke_agent mini-swe-agent",
				"chat claude-3-5-sonnet-20241022 <- invoke_agent mini-swe-agent",
				"execute_tool bash <- invoke_agent mini-swe-agent",
				"execute_tool bash <- invoke_agent mini-swe-agent",
				"invoke_agent mini-swe-agent <- ",
			},
		},
		{
			// v1.2: a delegation to a subagent whose trajectory is another
			// file (not given here), and a system step's observation.
			file: atifDir + "/atif-v1.2-delegating.json", read: ReadATIF, traces: 1, records: 4,
			calls: 1, inferences: 2, agents: 1,
			tokens: artifact.Tokens{Input: 1200 + 1300, Output: 60 + 50, CacheRead: 2000},
			tools:  []string{"spawn_subagent"},
			tree: []string{
				"chat gpt-4o <- invoke_agent orchestrator",
				"chat gpt-4o <- invoke_agent orchestrator",
				"execute_tool spawn_subagent <- invoke_agent orchestrator",
				"invoke_agent orchestrator <- ",
			},
		},
		{
			// The RFC's own example (v1.4): final_metrics are the truth.
			file: atifDir + "/atif-v1.4-rfc-example.json", read: ReadATIF, traces: 1, records: 5,
			calls: 2, inferences: 2, agents: 1,
			tokens: artifact.Tokens{Input: 1120, Output: 124, CacheRead: 200, Reasoning: 12},
			tools:  []string{"financial_search", "financial_search"},
			tree: []string{
				"chat gemini-2.5-flash <- invoke_agent harbor-agent",
				"chat gemini-2.5-flash <- invoke_agent harbor-agent",
				"execute_tool financial_search <- invoke_agent harbor-agent",
				"execute_tool financial_search <- invoke_agent harbor-agent",
				"invoke_agent harbor-agent <- ",
			},
		},
		{
			// v1.5: the first two steps are copied context, no spans.
			file: atifDir + "/atif-v1.5-continued.json", read: ReadATIF, traces: 1, records: 4,
			calls: 1, inferences: 2, agents: 1,
			tokens: artifact.Tokens{Input: 16900, Output: 335, CacheRead: 14000, CacheCreation: 1800, Reasoning: 120},
			tools:  []string{"run_shell"},
			tree: []string{
				"chat anthropic/claude-sonnet-4-5 <- invoke_agent terminus-2",
				"chat anthropic/claude-sonnet-4-5 <- invoke_agent terminus-2",
				"execute_tool run_shell <- invoke_agent terminus-2",
				"invoke_agent terminus-2 <- ",
			},
		},
		{
			// v1.6: content parts with images.
			file: atifDir + "/atif-v1.6-multimodal.json", read: ReadATIF, traces: 1, records: 4,
			calls: 1, inferences: 2, agents: 1,
			tokens: artifact.Tokens{Input: 2600 + 4100, Output: 90 + 30},
			tools:  []string{"computer"},
			tree: []string{
				"chat claude-opus-4-1 <- invoke_agent computer-use-agent",
				"chat claude-opus-4-1 <- invoke_agent computer-use-agent",
				"execute_tool computer <- invoke_agent computer-use-agent",
				"invoke_agent computer-use-agent <- ",
			},
		},
		{
			// v1.7: two embedded subagents, each under the tool call that
			// delegated to it.
			file: atifDir + "/atif-v1.7-embedded.json", read: ReadATIF, traces: 1, records: 9,
			calls: 2, inferences: 4, agents: 3,
			tokens: artifact.Tokens{Input: 3600, Output: 230, CacheRead: 800},
			tools:  []string{"research", "research"},
			tree: []string{
				"chat gpt-5 <- invoke_agent lead",
				"chat gpt-5 <- invoke_agent lead",
				"chat gpt-5-mini <- invoke_agent researcher",
				"chat gpt-5-mini <- invoke_agent researcher",
				"execute_tool research <- invoke_agent lead",
				"execute_tool research <- invoke_agent lead",
				"invoke_agent lead <- ",
				"invoke_agent researcher <- execute_tool research",
				"invoke_agent researcher <- execute_tool research",
			},
		},
	})
}

// chatSpans returns the model-call records in order.
func chatSpans(recs []*artifact.Record) []*artifact.Record { return byOp(recs, semconv.OpChat) }

func TestReadATIFConversation(t *testing.T) {
	t.Parallel()
	recs, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.4-rfc-example.json")
	chats := chatSpans(recs)
	require.Len(t, chats, 2)
	// The second call was sent the question, the first answer with its
	// two tool calls, and both results (the RFC's steps 1 and 2).
	conv := semconv.Messages(chats[1].Span)
	require.Len(t, conv.Input, 4)
	assert.Equal(t, "user", conv.Input[0].Role)
	assert.Equal(t, "What is the current trading price of Alphabet (GOOGL)?", conv.Input[0].Text())
	assert.Equal(t, "assistant", conv.Input[1].Role)
	var calls []string
	for _, p := range conv.Input[1].Parts {
		if p.Type == semconv.PartToolCall {
			args, _ := json.Marshal(p.Arguments)
			calls = append(calls, p.ID+" "+p.Name+" "+string(args))
		}
	}
	assert.Equal(t, []string{
		`call_price_1 financial_search {"metric":"price","ticker":"GOOGL"}`,
		`call_volume_2 financial_search {"metric":"volume","ticker":"GOOGL"}`,
	}, calls)
	assert.Equal(t, "tool", conv.Input[2].Role)
	assert.Equal(t, "GOOGL is currently trading at $185.35 (Close: 10/11/2025)", conv.Input[2].Parts[0].Response)
	require.Len(t, conv.Output, 1)
	out := conv.Output[0].Parts
	require.Len(t, out, 2)
	assert.Equal(t, semconv.PartReasoning, out[0].Type)
	assert.Equal(t, "As of October 11, 2025, Alphabet (GOOGL) is trading at $185.35 with a volume of 1.5M shares traded.", out[1].Content)
	// The call's own reported cost, and the RFC's metrics kept.
	v, ok := chats[0].Span.Attributes().Get(semconv.UsageCost)
	require.True(t, ok)
	assert.InDelta(t, 0.00045, v.Double(), 1e-12)
	assert.Equal(t, "medium", attr(chats[0].Span, "agenttrace.atif.reasoning_effort"))
	assert.True(t, strings.HasPrefix(attr(chats[1].Span, "agenttrace.atif.metrics.completion_token_ids"), "[1722,310,"))

	// The tool spans carry arguments and results by source_call_id.
	tools := byOp(recs, semconv.OpExecuteTool)
	require.Len(t, tools, 2)
	assert.JSONEq(t, `{"ticker":"GOOGL","metric":"volume"}`, attr(tools[1].Span, semconv.ToolCallArguments))
	assert.Equal(t, "GOOGL volume: 1.5M shares traded.", attr(tools[1].Span, semconv.ToolCallResult))

	// The root keeps the stated totals.
	root := byOp(recs, semconv.OpInvokeAgent)[0]
	assert.Equal(t, "1244", attr(root.Span, "agenttrace.final.total_tokens"))
	assert.Equal(t, "025B810F-B3A2-4C67-93C0-FE7A142A947A", attr(root.Span, semconv.ConversationID))
}

func TestReadATIFVersions(t *testing.T) {
	t.Parallel()
	t.Run("v1.0 system prompt", func(t *testing.T) {
		recs, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.0-no-metrics.json")
		chats := chatSpans(recs)
		require.Len(t, chats, 3)
		conv := semconv.Messages(chats[0].Span)
		require.Len(t, conv.System, 1)
		assert.Equal(t, "You are a helpful assistant that can interact with a computer shell.", conv.System[0].Content)
		assert.False(t, hasAttr(chats[0].Span, semconv.UsageInputTokens), "no metrics, no usage")
	})
	t.Run("v1.2 system observation and file ref", func(t *testing.T) {
		recs, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.2-delegating.json")
		tool := byOp(recs, semconv.OpExecuteTool)[0]
		assert.JSONEq(t, `[{"session_id":"debugger-001","trajectory_path":"atif-v1.2-subagent.json","extra":{"exit_status":"success"}}]`,
			attr(tool.Span, "agenttrace.atif.subagent_refs"))
		root := byOp(recs, semconv.OpInvokeAgent)[0]
		var texts []string
		for i := 0; i < root.Span.Events().Len(); i++ {
			ev := root.Span.Events().At(i)
			if ev.Name() == "atif.observation" {
				texts = append(texts, mapAttr(ev.Attributes(), "agenttrace.atif.content"))
			}
		}
		assert.Equal(t, []string{"summary: parser bug located in parse_lines()"}, texts)
		assert.JSONEq(t, `{"benchmark":"terminal-bench","task":"fix-tests"}`, attr(root.Span, "agenttrace.atif.extra"))
	})
	t.Run("v1.5 copied context", func(t *testing.T) {
		recs, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.5-continued.json")
		conv := semconv.Messages(chatSpans(recs)[0].Span)
		require.Len(t, conv.Input, 4, "the copied steps are the call's history")
		assert.Equal(t, "Install the dependencies and run the build.", conv.Input[0].Text())
		root := byOp(recs, semconv.OpInvokeAgent)[0]
		assert.Contains(t, attr(root.Span, semconv.ToolDefinitions), `"run_shell"`)
		assert.Equal(t, "trajectory.cont-1.json", attr(root.Span, "agenttrace.atif.continued_trajectory_ref"))
	})
	t.Run("v1.6 images", func(t *testing.T) {
		recs, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.6-multimodal.json")
		conv := semconv.Messages(chatSpans(recs)[0].Span)
		require.Len(t, conv.Input, 1)
		require.Len(t, conv.Input[0].Parts, 2)
		assert.Equal(t, semconv.PartURI, conv.Input[0].Parts[1].Type)
		assert.Equal(t, "images/step1_screen.png", conv.Input[0].Parts[1].URI)
		tool := byOp(recs, semconv.OpExecuteTool)[0]
		assert.JSONEq(t, `[{"type":"text","text":"zoomed"},{"type":"image","source":{"media_type":"image/png","path":"images/step2_zoom.png"}}]`,
			attr(tool.Span, semconv.ToolCallResult))
	})
	t.Run("v1.7 subagents and extras", func(t *testing.T) {
		recs, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.7-embedded.json")
		tools := byOp(recs, semconv.OpExecuteTool)
		require.Len(t, tools, 2)
		assert.JSONEq(t, `{"timeout_s":300}`, attr(tools[0].Span, "agenttrace.atif.tool_call.extra"))
		assert.JSONEq(t, `{"confidence":0.92}`, attr(tools[0].Span, "agenttrace.atif.result.extra"))
		agents := byOp(recs, semconv.OpInvokeAgent)
		byTraj := map[string]string{}
		for _, a := range agents {
			byTraj[attr(a.Span, ATIFAttrTrajectoryID)] = a.Span.ParentSpanID().String()
		}
		assert.Equal(t, tools[0].Span.SpanID().String(), byTraj["traj_child_a"])
		assert.Equal(t, tools[1].Span.SpanID().String(), byTraj["traj_child_b"])
	})
}

func TestReadATIFBadInput(t *testing.T) {
	t.Parallel()
	runSmall(t, ReadATIF, []smallCase{
		{
			name: "a step that cannot be read is reported with its line, the others kept",
			in: "{\"schema_version\":\"ATIF-v1.7\",\"session_id\":\"s\",\"agent\":{\"name\":\"a\",\"version\":\"1\"},\n" +
				"\"steps\":[\n{\"step_id\":1,\"source\":\"user\",\"message\":\"hi\"},\n" +
				"{\"step_id\":2,\"source\":\"agent\",\"message\":5},\n" +
				"{\"step_id\":3,\"source\":\"agent\",\"message\":\"bye\",\"surprise\":true}],\n\"novel\":1}",
			check: func(t *testing.T, recs []*artifact.Record, st Stats) {
				assert.Equal(t, []int{4}, problemLines(t, st, "small"))
				assert.Len(t, chatSpans(recs), 1)
				assert.Equal(t, map[string]int64{"ATIF member novel": 1, "ATIF step member surprise": 1}, st.Unknown)
				assert.Equal(t, "true", attr(chatSpans(recs)[0].Span, "agenttrace.atif.unknown.surprise"))
			},
		},
	})
	// Producers that number steps with strings, or time them with epochs.
	recs, st := importBytes(t, ReadATIF, "lenient", []byte(`{"schema_version":"ATIF-v1.6","agent":{"name":"a","version":"1"},"steps":[`+
		`{"step_id":"1","source":"user","message":"hi","timestamp":1760000000},{"step_id":"s2","source":"agent","message":"yo","timestamp":"1760000005"}]}`))
	assert.Empty(t, st.Problems)
	require.Len(t, chatSpans(recs), 1)
	assert.Equal(t, "s2", attr(chatSpans(recs)[0].Span, "agenttrace.atif.unknown.step_id"))
	assert.Equal(t, ts("2025-10-09T08:53:25Z"), chatSpans(recs)[0].Span.EndTimestamp())
	for _, in := range []string{`[]`, `{"agent":{}}`, `{"steps":`, `"ATIF-v1.7"`} {
		recs, st := importBytes(t, ReadATIF, "bad", []byte(in))
		assert.Empty(t, recs, in)
		assert.Equal(t, []int{1}, problemLines(t, st, "bad"), in)
	}
}

func TestDetectATIF(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(shapesDir, atifDir, "atif-v1.?-*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Equal(t, ATIF, Detect(data[:min(len(data), converter.DetectSize)]), f)
	}
	// Version-less, and the version past the head.
	assert.Equal(t, ATIF, Detect([]byte(`{"session_id":"s","agent":{"name":"a"},"steps":[`)))
	// A trajectory log (the seed's) is not ATIF.
	assert.Equal(t, Trajectory, Detect([]byte(`{"type":"metadata","session_id":"s","steps":3}`)))
}

func FuzzATIF(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(shapesDir, atifDir, "atif-v1.?-*.json"))
	require.NoError(f, err)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"f","arguments":{}}],` +
		`"observation":{"results":[{"source_call_id":"a","subagent_trajectory_ref":[{"trajectory_id":"x"},{"trajectory_id":"x"}]}]}}],` +
		`"subagent_trajectories":[{"trajectory_id":"x","agent":{},"steps":[{"timestamp":"2300-01-01T00:00:00Z"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkFuzz(t, ReadATIF, data) })
}

func TestLinkATIF(t *testing.T) {
	t.Parallel()
	parent, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.2-delegating.json")
	child, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.2-subagent.json")
	recs := cloneRecords(append(parent, child...))
	require.Equal(t, 1, LinkATIF(recs))
	tool := recs[slices.IndexFunc(recs, func(r artifact.Record) bool { return attr(r.Span, semconv.ToolName) == "spawn_subagent" })].Span
	for _, r := range recs {
		assert.Equal(t, tool.TraceID(), r.Span.TraceID(), "one trace")
		if attr(r.Span, semconv.AgentName) == "debugger" {
			assert.Equal(t, tool.SpanID(), r.Span.ParentSpanID(), "the subagent under the tool call that delegated")
		}
	}
	// With every file given, the stated total is what the steps itemize
	// (the delegating file's final_metrics include the subagent's).
	var tally artifact.Tally
	for i := range recs {
		tally.Add(&recs[i])
	}
	assert.Equal(t, int64(5400+210), tally.Summary(nil).Tokens.Total)
	// A second pass nests nothing more; alone, a file links to nothing.
	assert.Zero(t, LinkATIF(recs))
	assert.Zero(t, LinkATIF(cloneRecords(parent)))
}

func TestAsOneRun(t *testing.T) {
	t.Parallel()
	parent, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.2-delegating.json")
	child, _ := importFixture(t, ReadATIF, atifDir+"/atif-v1.2-subagent.json")
	recs := cloneRecords(append(child, parent...)) // the subagent's file first
	AsOneRun(recs)
	trace := recs[0].Span.TraceID()
	for _, r := range recs {
		assert.Equal(t, trace, r.Span.TraceID(), "one trace")
	}
	assert.True(t, slices.IsSortedFunc(recs, func(a, b artifact.Record) int {
		return cmp.Compare(a.Span.EndTimestamp(), b.Span.EndTimestamp())
	}), "in the order the spans end")
}
