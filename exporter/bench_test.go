package agenttraceexporter

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// benchBatch is issue 11's batch: 100 agent traces of 7 GenAI spans (an
// invoke_agent root, 3 chats with ~2 KB of messages, 3 tool calls),
// the shape bench/exporter compares with the contrib fileexporter.
func benchBatch() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel-planner")
	rs.Resource().Attributes().PutStr("service.version", "2.4.1")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("github.com/example/agentkit")
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10)
	base := uint64(1_777_000_000_000_000_000)
	for t := range 100 {
		sid := func(i int) pcommon.SpanID {
			var s pcommon.SpanID
			binary.BigEndian.PutUint32(s[:4], uint32(t)+1)
			binary.BigEndian.PutUint32(s[4:], uint32(i)+1)
			return s
		}
		at := base + uint64(t)*1e10
		span := func(i, parent int, name string) pcommon.Map {
			sp := ss.Spans().AppendEmpty()
			sp.SetSpanID(sid(i))
			if parent >= 0 {
				sp.SetParentSpanID(sid(parent))
			}
			sp.SetName(name)
			sp.SetStartTimestamp(pcommon.Timestamp(at + uint64(i)*1e8))
			sp.SetEndTimestamp(pcommon.Timestamp(at + uint64(i)*1e8 + 9e7))
			return sp.Attributes()
		}
		a := span(0, -1, "invoke_agent travel-planner")
		a.PutStr("gen_ai.operation.name", "invoke_agent")
		a.PutStr("gen_ai.agent.name", "travel-planner")
		for c := range 3 {
			a := span(1+c, 0, "chat gpt-4o")
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.request.model", "gpt-4o")
			a.PutStr("gen_ai.response.id", fmt.Sprintf("chatcmpl-%d-%d", t, c))
			a.PutInt("gen_ai.usage.input_tokens", 1400)
			a.PutInt("gen_ai.usage.output_tokens", 200)
			a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Plan a trip. `+para[:700]+`"}]}]`)
			a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+para+`"}],"finish_reason":"tool_call"}]`)
		}
		for c := range 3 {
			a := span(4+c, 0, "execute_tool search_flights")
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "search_flights")
			a.PutStr("gen_ai.tool.call.arguments", `{"origin":"BER","destination":"LIS","passengers":2}`)
			a.PutStr("gen_ai.tool.call.result", `{"offers":[{"carrier":"TP","price":247.8,"stops":0}]}`)
		}
	}
	return td
}

// BenchmarkConsume runs the exporter through its factory, without a
// queue, as bench/exporter does: one artifact for everything, and one
// per trace; shutdown (the trailers still to write) is timed.
func BenchmarkConsume(b *testing.B) {
	for _, bc := range []struct {
		groupBy string
		catalog bool
	}{{"resource:service.name", false}, {GroupByTrace, false}, {GroupByTrace, true}} {
		name := "group_by=" + bc.groupBy
		if bc.catalog {
			name += "/catalog" // the run catalog kept beside, read back at shutdown
		}
		b.Run(name, func(b *testing.B) {
			groupBy := bc.groupBy
			cfg := NewFactory().CreateDefaultConfig().(*Config)
			cfg.Directory, cfg.GroupBy, cfg.Fsync = b.TempDir(), groupBy, FsyncNever
			cfg.Catalog.Enabled = bc.catalog
			cfg.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
			consumeAndDrain(b, cfg, benchBatch(), nil)
		})
	}
}
