package importer

import (
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

func TestReadTrajectoryFixtures(t *testing.T) {
	t.Parallel()
	cases := []fixtureCase{
		{
			file: "trajectory.jsonl", read: ReadTrajectory, traces: 1, records: 12,
			calls: 4, inferences: 5, agents: 3, errors: 2,
			// the iterations, and what agent_complete reports beyond them (log-analyzer's
			// 400+50, which no iteration carries; test-runner's 1200+110 repeats its
			// iteration's 800+60 and log-analyzer's); input includes the cached tokens:
			// (2100+0+1500) + (300+3600+0) + 800 + 400 + (250+5200+0)
			tokens:     artifact.Tokens{Input: 14150, Output: 525, CacheRead: 8800, CacheCreation: 1500},
			tools:      []string{"Read", "Bash", "summarize-log", "Edit"},
			errorSpans: []string{"execute_tool Bash: CalledProcessError", "invoke_agent test-runner: AssertionError"},
			tree: []string{
				"chat claude-opus-4-1 <- invoke_agent coditect",
				"chat claude-opus-4-1 <- invoke_agent coditect",
				"chat claude-opus-4-1 <- invoke_agent coditect",
				"chat claude-opus-4-1 <- invoke_agent log-analyzer",
				"chat claude-opus-4-1 <- invoke_agent test-runner",
				"execute_tool Bash <- invoke_agent test-runner",
				"execute_tool Edit <- invoke_agent coditect",
				"execute_tool Read <- invoke_agent coditect",
				"execute_tool summarize-log <- invoke_agent log-analyzer",
				"invoke_agent coditect <- ",
				"invoke_agent log-analyzer <- invoke_agent test-runner",
				"invoke_agent test-runner <- invoke_agent coditect",
			},
		},
		{
			file: "trajectory-edge.jsonl", read: ReadTrajectory, traces: 1, records: 8,
			calls: 4, inferences: 1, agents: 3, errors: 4,
			tools: []string{"Grep", "WebFetch", "Read", "Write"},
			errorSpans: []string{
				"execute_tool WebFetch: tool_error",
				"invoke_agent ClawBot: RateLimitError",
				"invoke_agent researcher: incomplete",
				"invoke_agent summarizer: incomplete",
			},
			tree: []string{
				"chat gpt-5 <- invoke_agent researcher",
				"execute_tool Grep <- invoke_agent ClawBot",
				"execute_tool Read <- invoke_agent researcher",
				"execute_tool WebFetch <- invoke_agent researcher",
				"execute_tool Write <- invoke_agent summarizer",
				"invoke_agent ClawBot <- ",
				"invoke_agent researcher <- invoke_agent ClawBot",
				"invoke_agent summarizer <- invoke_agent researcher",
			},
			unknown:  map[string]int64{"heartbeat": 1, "telemetry": 1},
			problems: []int{4},
		},
	}
	checkFixtures(t, cases)
}

func TestReadTrajectoryDetails(t *testing.T) {
	t.Parallel()
	recs, _ := importFixture(t, ReadTrajectory, "trajectory.jsonl")
	last := recs[len(recs)-1]
	root := last.Span
	assert.Equal(t, "invoke_agent coditect", root.Name(), "the root comes last")
	assert.Equal(t, "coditect", mapAttr(last.Resource.Attributes(), "service.name"))
	assert.Equal(t, "1.8.2", mapAttr(last.Resource.Attributes(), "service.version"))
	assert.Equal(t, "coditect", attr(root, semconv.AgentName))
	assert.Equal(t, "claude-opus-4-1", attr(root, semconv.RequestModel))
	assert.Equal(t, "traj_20260506_a1", attr(root, semconv.ConversationID))
	assert.Equal(t, ts("2026-05-06T14:00:00Z"), root.StartTimestamp())
	assert.Equal(t, ts("2026-05-06T14:00:18.200Z"), root.EndTimestamp())
	assert.Equal(t, ptrace.StatusCodeUnset, root.Status().Code())
	assert.Equal(t, "18200", attr(root, "agenttrace.final.total_duration_ms"))
	assert.Equal(t, "16655", attr(root, "agenttrace.final.total_tokens"))
	assert.Equal(t, "completed", attr(root, "agenttrace.final.final_status"))
	assert.Contains(t, attr(root, trajectoryAttrMetadata), `"project_root": "/work/repo"`)

	bash := byName(recs, "execute_tool Bash")[0]
	assert.Equal(t, ts("2026-05-06T14:00:08.100Z"), bash.StartTimestamp(), "timestamp - duration_ms")
	assert.Equal(t, ts("2026-05-06T14:00:12.300Z"), bash.EndTimestamp())
	assert.Equal(t, ptrace.StatusCodeError, bash.Status().Code())
	assert.Contains(t, bash.Status().Message(), "returned non-zero exit status 1")
	assert.Equal(t, "true", attr(bash, attrTruncated))
	assert.Equal(t, "5000", attr(bash, attrTruncatedAt))
	assert.Len(t, []rune(attr(bash, semconv.ToolCallResult)), 5000)
	assert.JSONEq(t, `{"command": "pytest tests/billing -q"}`, attr(bash, semconv.ToolCallArguments))
	assert.Equal(t, "A.1", attr(bash, trajectoryAttrTaskID))

	read := byName(recs, "execute_tool Read")[0]
	assert.Equal(t, "", attr(read, attrTruncated))
	assert.Equal(t, ptrace.StatusCodeUnset, read.Status().Code(), "error null is no error")

	skill := byName(recs, "execute_tool summarize-log")[0]
	assert.Equal(t, "skill", attr(skill, semconv.ToolType))
	assert.Equal(t, "2 failures in test_retry.py: backoff not applied", attr(skill, semconv.ToolCallResult))
	assert.Equal(t, ts("2026-05-06T14:00:12.500Z"), skill.StartTimestamp())

	runner := byName(recs, "invoke_agent test-runner")[0]
	assert.Equal(t, ts("2026-05-06T14:00:06.050Z"), runner.StartTimestamp(), "from the dispatch")
	assert.Equal(t, ts("2026-05-06T14:00:13.600Z"), runner.EndTimestamp(), "to the completion")
	assert.Equal(t, "test-runner", attr(runner, semconv.AgentName))
	assert.Equal(t, "1", attr(runner, trajectoryAttrDepth))
	assert.Equal(t, "2", attr(runner, trajectoryAttrChildCalls))
	assert.Equal(t, "1200", attr(runner, semconv.UsageInputTokens))
	assert.Equal(t, "110", attr(runner, semconv.UsageOutputTokens))
	assert.JSONEq(t, `[{"role":"user","parts":[{"type":"text","content":"Run the billing tests and report failures"}]}]`,
		attr(runner, semconv.InputMessages))
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"text","content":"Tests fail: backoff is not applied"}],"finish_reason":"stop"}]`,
		attr(runner, semconv.OutputMessages))
	require.Equal(t, 1, runner.Events().Len())
	ex := runner.Events().At(0)
	assert.Equal(t, "exception", ex.Name())
	assert.Equal(t, "AssertionError", mapAttr(ex.Attributes(), "exception.type"))
	assert.Contains(t, mapAttr(ex.Attributes(), "exception.message"), "expected 3 attempts")
	assert.Contains(t, mapAttr(ex.Attributes(), "exception.stacktrace"), "line 41, in test_retry_backoff")
	assert.Equal(t, ts("2026-05-06T14:00:13.500Z"), ex.Timestamp())

	chats := byName(recs, "chat claude-opus-4-1")
	require.Len(t, chats, 5)
	analyzer := chats[3]
	assert.Equal(t, trajectoryUsageOf, attr(analyzer, trajectoryAttrUsageOf), "log-analyzer's usage, reported by its agent_complete only")
	assert.Equal(t, "400", attr(analyzer, semconv.UsageInputTokens))
	first := chats[0]
	assert.Equal(t, ptrace.SpanKindClient, first.Kind())
	assert.Equal(t, ts("2026-05-06T14:00:00Z"), first.StartTimestamp(), "from the start of its agent")
	assert.Equal(t, ts("2026-05-06T14:00:03Z"), first.EndTimestamp())
	assert.Equal(t, "3600", attr(first, semconv.UsageInputTokens))
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"reasoning","content":"The job lives in services/billing/jobs; check how failures are handled."},{"type":"text","content":"I'll inspect the job first."}],"finish_reason":"tool_call"}]`,
		attr(first, semconv.OutputMessages))
	// The last iteration starts where its agent's last record (the Edit) ended.
	lastChat := chats[len(chats)-1]
	assert.Equal(t, ts("2026-05-06T14:00:15Z"), lastChat.StartTimestamp())
	assert.Contains(t, attr(lastChat, semconv.OutputMessages), `"finish_reason":"stop"`)
	// The subagent's iteration starts at its dispatch.
	sub := chats[2]
	assert.Equal(t, "A.1", attr(sub, trajectoryAttrTaskID))
	assert.Equal(t, ts("2026-05-06T14:00:06.050Z"), sub.StartTimestamp())
}

func TestReadTrajectoryEdgeDetails(t *testing.T) {
	t.Parallel()
	recs, st := importFixture(t, ReadTrajectory, "trajectory-edge.jsonl")
	require.Len(t, st.Problems, 1)
	assert.ErrorIs(t, st.Problems[0], artifact.ErrBadRecord)
	last := recs[len(recs)-1]
	root := last.Span
	assert.Equal(t, "claw", mapAttr(last.Resource.Attributes(), "service.name"), "from claw_version")
	assert.Equal(t, "ClawBot", attr(root, semconv.AgentName), "the agent key wins over the product")
	assert.Equal(t, ts("2026-05-07T09:00:00Z"), root.StartTimestamp(), "zone-less is UTC")
	assert.Equal(t, ts("2026-05-07T09:00:10Z"), root.EndTimestamp(), "no final: the last record")
	assert.Equal(t, ptrace.StatusCodeError, root.Status().Code())
	assert.Equal(t, "exception", root.Events().At(0).Name(), "an error of a task with no open agent is the root's")

	web := byName(recs, "execute_tool WebFetch")[0]
	assert.Equal(t, "connection reset by peer", web.Status().Message())
	read := byName(recs, "execute_tool Read")[0]
	assert.Equal(t, "true", attr(read, attrTruncated))
	assert.Equal(t, "12000", attr(read, attrFullLength))
	assert.Equal(t, "", attr(read, attrTruncatedAt))
	assert.Equal(t, "docs/big.md", attr(read, semconv.ToolCallArguments))
	write := byName(recs, "execute_tool Write")[0]
	assert.Equal(t, ts("2026-05-07T09:00:09Z"), write.EndTimestamp(), "+02:00 offset")
	summ := byName(recs, "invoke_agent summarizer")[0]
	assert.Equal(t, ts("2026-05-07T09:00:10Z"), summ.EndTimestamp(), "closed at the end")
	chat := byName(recs, "chat gpt-5")[0]
	assert.Equal(t, ts("2026-05-07T09:00:05Z"), chat.StartTimestamp())
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"reasoning","content":"The fetch failed; fall back to the local copy."}],"finish_reason":"stop"}]`,
		attr(chat, semconv.OutputMessages))
}

func TestReadTrajectorySmall(t *testing.T) {
	t.Parallel()
	runSmall(t, ReadTrajectory, []smallCase{
		{"empty", "", func(t *testing.T, recs []*artifact.Record, st Stats) { assert.Empty(t, recs) }},
		{"no metadata", `{"type":"tool_call","timestamp":"2026-01-01T00:00:01Z","task_id":"A","tool_name":"x","duration_ms":1000}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				require.Len(t, recs, 2)
				assert.Equal(t, "unknown_service", mapAttr(recs[0].Resource.Attributes(), "service.name"))
				assert.Equal(t, recs[0].Span.StartTimestamp(), recs[1].Span.StartTimestamp(), "the root covers its spans")
			}},
		{"complete without dispatch", `{"type":"metadata","session_id":"s","started_at":"2026-01-01T00:00:00Z"}` + "\n" +
			`{"type":"agent_complete","timestamp":"2026-01-01T00:00:05Z","task_id":"A.1","agent_type":"w","duration_ms":2000,"success":false}` + "\n" +
			`{"type":"final","timestamp":"2026-01-01T00:00:06Z","final_status":"failed"}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				require.Len(t, recs, 2)
				assert.Equal(t, "invoke_agent w", recs[0].Span.Name())
				assert.Equal(t, uint64(2e9), uint64(recs[0].Span.EndTimestamp()-recs[0].Span.StartTimestamp()))
				assert.Equal(t, "agent_error", attr(recs[0].Span, semconv.ErrorType))
				assert.Equal(t, "failed", attr(recs[1].Span, semconv.ErrorType))
			}},
		{"open at final", `{"type":"metadata","session_id":"s","started_at":"2026-01-01T00:00:00Z"}` + "\n" +
			`{"type":"agent_dispatch","timestamp":"2026-01-01T00:00:01Z","task_id":"A.1","agent_type":"w"}` + "\n" +
			`{"type":"agent_dispatch","timestamp":"2026-01-01T00:00:02Z","task_id":"A.1.1","agent_type":"v"}` + "\n" +
			`{"type":"final","timestamp":"2026-01-01T00:00:06Z","final_status":"success"}`,
			func(t *testing.T, recs []*artifact.Record, st Stats) {
				require.Len(t, recs, 3)
				assert.Equal(t, "invoke_agent v", recs[0].Span.Name(), "innermost first")
				assert.Equal(t, "incomplete", attr(recs[0].Span, semconv.ErrorType))
				assert.Equal(t, recs[1].Span.SpanID(), recs[0].Span.ParentSpanID(), "A.1.1 under A.1 by its id")
				assert.Equal(t, ptrace.StatusCodeUnset, recs[2].Span.Status().Code())
			}},
		{"no type", `{"timestamp":"2026-01-01T00:00:00Z"}`, func(t *testing.T, recs []*artifact.Record, st Stats) {
			assert.Empty(t, recs)
			require.Len(t, st.Problems, 1)
		}},
	})
}

func TestTrajectoryProduct(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		`{"type":"metadata","python_version":"3.12","coditect_version":"1.8.2"}`: {"coditect", "1.8.2"},
		`{"clawVersion":"0.4"}`:       {"claw", "0.4"},
		`{"version":"1"}`:             {"", ""},
		`{"schema_version":2}`:        {"", ""},
		`not json`:                    {"", ""},
		`{"a_version":{"x":1}}`:       {"", ""},
		`{"b_version":3,"c":"x"}`:     {"b", "3"},
		`{"x":[1,2],"y_version":"9"}`: {"y", "9"},
	} {
		p, v := trajectoryProduct([]byte(in))
		assert.Equal(t, want, [2]string{p, v}, in)
	}
}

func FuzzTrajectory(f *testing.F) {
	for _, name := range []string{"trajectory.jsonl", "trajectory-edge.jsonl", "trajectory-seed.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "shapes", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"tool_call","timestamp":1,"duration_ms":1e18}` + "\n" + `{"type":"iteration","task_id":"..","timestamp":0}`))
	f.Add([]byte(`{"type":"agent_dispatch","task_id":""}` + "\n" + `{"type":"agent_dispatch","task_id":""}` + "\n" + `{"type":"final","ended_at":"x"}`))
	f.Add([]byte(`{"type":"tool_call","output":"` + strings.Repeat("é", 5000) + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, ReadTrajectory, data)
	})
}

// TestReadTrajectorySeed: a trajectory as seed 004's logger writes it:
// iterations carry no usage, agent_complete does (a sub-agent's included in
// its parent's), final carries only total_tokens, and a top-level error is
// followed by a final that says the run completed.
func TestReadTrajectorySeed(t *testing.T) {
	t.Parallel()
	recs, st := importFixture(t, ReadTrajectory, "trajectory-seed.jsonl")
	assertImported(t, recs)
	assert.Empty(t, st.Problems)
	assert.Empty(t, st.Unknown)

	var tally artifact.Tally
	for _, r := range recs {
		tally.Add(r)
	}
	// log-analyzer 900+120; backend 3100+410 with 2048 cache read, less
	// log-analyzer's, counted once: input (3100-900)+2048, output 410-120.
	assert.Equal(t, artifact.Tokens{Input: 900 + 2200 + 2048, Output: 410, CacheRead: 2048,
		Total: 900 + 2200 + 2048 + 410}, tally.Summary(nil).Tokens, "agent-level usage counted once")

	leaves := map[string]ptrace.Span{}
	for _, r := range byOp(recs, semconv.OpChat) {
		if attr(r.Span, trajectoryAttrUsageOf) == trajectoryUsageOf {
			leaves[attr(r.Span, trajectoryAttrTaskID)] = r.Span
		}
	}
	require.Len(t, leaves, 2)
	assert.Equal(t, "900", attr(leaves["A.1.1"], semconv.UsageInputTokens))
	assert.Equal(t, "4248", attr(leaves["A.1"], semconv.UsageInputTokens))
	assert.Equal(t, "290", attr(leaves["A.1"], semconv.UsageOutputTokens))
	backend := byName(recs, "invoke_agent backend")[0]
	assert.Equal(t, backend.SpanID(), leaves["A.1"].ParentSpanID())
	assert.Equal(t, "5148", attr(backend, semconv.UsageInputTokens), "the agent keeps what it reported")

	root := recs[len(recs)-1].Span
	assert.Equal(t, ptrace.StatusCodeUnset, root.Status().Code(), "final says completed: the error was recovered from")
	assert.Equal(t, "", attr(root, semconv.ErrorType))
	require.Equal(t, 1, root.Events().Len())
	ev := root.Events().At(0)
	assert.Equal(t, trajectoryRecoveredError, ev.Name(), "kept, not as an exception that fails the run")
	assert.Equal(t, "TimeoutError", mapAttr(ev.Attributes(), "exception.type"))
	assert.Equal(t, "9800", attr(root, trajectoryFinalPrefix+"total_tokens"))
	for _, r := range recs {
		rd := new(semconv.Reading)
		r.Read(rd)
		if r.Span.SpanID() == root.SpanID() {
			assert.False(t, artifact.Failed(r.Span, rd))
		}
	}
}
