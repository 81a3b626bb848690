package viewer_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer"
)

// synth builds a run of an agent that loops over model and tool calls:
// one invoke_agent root, then chat / execute_tool pairs until n records.
// Every text the viewer shows (names, tools, arguments, results, messages,
// attribute keys and values, error messages) is built from text, so the
// same builder makes the 5,000-record run and the hostile one. body is
// the bulk of each message and tool result.
func synth(name string, n int, text, body string) viewer.Run {
	recs := artifact.Records(synthTraces(n, 1, text, body))
	artifact.SortRecords(recs)
	return viewer.Run{Name: name, Records: recs}
}

// synthTraces is synth's run as spans, with agents invoke_agent spans:
// the root, and agents-1 sub-agents under it that share the model and
// tool calls out evenly (each call's parent is the agent started last).
// The big-run benchmarks (docs/benchmarks.md) use ~100 records per agent.
func synthTraces(n, agents int, text, body string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "synth "+text)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("viewer-test")
	var tid pcommon.TraceID
	copy(tid[:], "0123456789abcdef")
	sid := func(i int) pcommon.SpanID {
		var s pcommon.SpanID
		binary.BigEndian.PutUint64(s[:], uint64(i)+1)
		return s
	}
	start := time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC)
	at := func(ms int) pcommon.Timestamp {
		return pcommon.NewTimestampFromTime(start.Add(time.Duration(ms) * time.Millisecond))
	}

	root := ss.Spans().AppendEmpty()
	root.SetTraceID(tid)
	root.SetSpanID(sid(0))
	root.SetName("invoke_agent " + text)
	root.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
	root.Attributes().PutStr("gen_ai.agent.name", "agent "+text)
	root.SetStartTimestamp(at(0))
	root.SetEndTimestamp(at(10 * n))

	msg := func(role, content string) string {
		return fmt.Sprintf(`[{"role":%q,"parts":[{"type":"text","content":%q},{"type":"reasoning","content":%q}]}]`, role, content, "thinking about "+content)
	}
	per := max(n/max(agents, 1), 2)
	parent := sid(0)
	for i := 1; i < n; i++ {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid)
		sp.SetSpanID(sid(i))
		sp.SetParentSpanID(sid(0))
		sp.SetStartTimestamp(at(10 * i))
		sp.SetEndTimestamp(at(10*i + 9))
		a := sp.Attributes()
		if agents > 1 && i%per == 0 {
			k := i / per
			sp.SetName(fmt.Sprintf("invoke_agent %s %d", text, k))
			sp.SetEndTimestamp(at(10*min(i+per, n) - 1))
			a.PutStr("gen_ai.operation.name", "invoke_agent")
			a.PutStr("gen_ai.agent.name", fmt.Sprintf("agent %s %d", text, k))
			parent = sid(i)
			continue
		}
		sp.SetParentSpanID(parent)
		if i%2 == 1 {
			sp.SetName("chat " + text)
			sp.SetKind(ptrace.SpanKindClient)
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.provider.name", "openai")
			a.PutStr("gen_ai.response.model", "model "+text)
			a.PutInt("gen_ai.usage.input_tokens", int64(100+i))
			a.PutInt("gen_ai.usage.output_tokens", int64(10+i%7))
			a.PutStr("gen_ai.input.messages", msg("user", "question "+text+" "+body))
			a.PutStr("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"tool_call","id":"call_%d","name":%q,"arguments":{"q":%q}}],"finish_reason":"tool_call"}]`, i, "tool "+text, text))
		} else {
			sp.SetName("execute_tool " + text)
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "tool "+text)
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", i-1))
			a.PutStr("gen_ai.tool.call.arguments", fmt.Sprintf(`{"q":%q}`, text))
			a.PutStr("gen_ai.tool.call.result", "result "+text+" "+body)
			a.PutStr("attr "+text, "value "+text)
			if i%10 == 0 {
				sp.Status().SetCode(ptrace.StatusCodeError)
				sp.Status().SetMessage("failed: " + text)
				ev := sp.Events().AppendEmpty()
				ev.SetName("exception")
				ev.SetTimestamp(at(10*i + 9))
				ev.Attributes().PutStr("exception.message", text)
			}
		}
	}
	return td
}
