package exporterbench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	agenttraceexporter "github.com/agenttrace/agenttrace/exporter"
)

// The batch of issue 11: 100 agent traces of 7 GenAI spans each.
const (
	tracesPerBatch = 100
	spansPerTrace  = 7
	spansPerBatch  = tracesPerBatch * spansPerTrace
)

// serviceName is every span's resource service.name; grouping by it puts
// every span in one artifact.
const serviceName = "travel-planner"

// batchSeq numbers batches process-wide, so every batch, on every
// goroutine, gets trace ids never used before.
var batchSeq atomic.Uint64

// traceID is the id of trace t of batch n.
func traceID(n uint64, t int) pcommon.TraceID {
	var id pcommon.TraceID
	binary.BigEndian.PutUint64(id[:8], n)
	binary.BigEndian.PutUint64(id[8:], uint64(t)+1)
	return id
}

// newBatch builds the batch: per trace an invoke_agent root, 3 chat spans
// (usage, ~2 KB of gen_ai.input.messages and gen_ai.output.messages as JSON
// strings, as GenAI SDKs record them) and 3 execute_tool spans with
// arguments and results; the same shape as converter/bench_test.go's
// benchBatch, with tools in place of its HTTP span. Without root, the
// invoke_agent span is left out (its children still name it as parent), so
// no trace ever ends. The trace ids are batch 0's: call setBatch.
func newBatch(root bool) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", serviceName)
	rs.Resource().Attributes().PutStr("service.version", "2.4.1")
	rs.Resource().Attributes().PutStr("telemetry.sdk.language", "go")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("github.com/example/agentkit")
	ss.Scope().SetVersion("0.9.3")
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10)
	base := uint64(1_777_000_000_000_000_000)
	for t := range tracesPerBatch {
		sid := func(i int) pcommon.SpanID {
			var s pcommon.SpanID
			binary.BigEndian.PutUint32(s[:4], uint32(t)+1)
			binary.BigEndian.PutUint32(s[4:], uint32(i)+1)
			return s
		}
		at := base + uint64(t)*1e10
		span := func(i int, parent int, name string, kind ptrace.SpanKind) ptrace.Span {
			sp := ss.Spans().AppendEmpty()
			sp.SetTraceID(traceID(0, t))
			sp.SetSpanID(sid(i))
			if parent >= 0 {
				sp.SetParentSpanID(sid(parent))
			}
			sp.SetName(name)
			sp.SetKind(kind)
			sp.SetStartTimestamp(pcommon.Timestamp(at + uint64(i)*1e8))
			sp.SetEndTimestamp(pcommon.Timestamp(at + uint64(i)*1e8 + 9e7))
			return sp
		}
		if root {
			a := span(0, -1, "invoke_agent travel-planner", ptrace.SpanKindInternal).Attributes()
			a.PutStr("gen_ai.operation.name", "invoke_agent")
			a.PutStr("gen_ai.agent.name", "travel-planner")
			a.PutStr("gen_ai.conversation.id", fmt.Sprintf("conv-%d", t))
			a.PutInt("gen_ai.usage.input_tokens", 4200)
			a.PutInt("gen_ai.usage.output_tokens", 600)
		}
		for c := range 3 {
			a := span(1+c, 0, "chat gpt-4o", ptrace.SpanKindClient).Attributes()
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.provider.name", "openai")
			a.PutStr("gen_ai.request.model", "gpt-4o")
			a.PutStr("gen_ai.response.model", "gpt-4o-2024-08-06")
			a.PutStr("gen_ai.response.id", fmt.Sprintf("chatcmpl-%d-%d", t, c))
			a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr("tool_calls")
			a.PutInt("gen_ai.usage.input_tokens", 1400)
			a.PutInt("gen_ai.usage.output_tokens", 200)
			a.PutInt("gen_ai.usage.cache_read.input_tokens", 512)
			a.PutDouble("gen_ai.request.temperature", 0.2)
			a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Plan a 5-day trip to Lisbon in March for two, budget 2000 EUR. `+para[:700]+`"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"search_flights","arguments":{"origin":"BER","destination":"LIS","depart_date":"2026-03-14"}}]}]`)
			a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+para+`"}],"finish_reason":"tool_call"}]`)
		}
		for c := range 3 {
			a := span(4+c, 0, "execute_tool search_flights", ptrace.SpanKindInternal).Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "search_flights")
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", c))
			a.PutStr("gen_ai.tool.call.arguments", `{"origin":"BER","destination":"LIS","depart_date":"2026-03-14","passengers":2}`)
			a.PutStr("gen_ai.tool.call.result", `{"offers":[{"carrier":"TP","price":247.8,"stops":0},{"carrier":"FR","price":168.4,"stops":0}]}`)
		}
	}
	return td
}

// setMessages makes the messages of every chat span in td new text for
// batch n: the same length and shape as newBatch's, with the batch and
// span numbers written into the user's question and the answer.
func setMessages(td ptrace.Traces, n uint64) {
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := range spans.Len() {
		a := spans.At(i).Attributes()
		for _, k := range [...]string{"gen_ai.input.messages", "gen_ai.output.messages"} {
			v, ok := a.Get(k)
			if !ok {
				continue
			}
			old := v.Str()
			at := strings.Index(old, `"content":"`) + len(`"content":"`)
			tag := fmt.Sprintf("[%016x/%04d] ", n, i)
			v.SetStr(old[:at] + tag + old[at+len(tag):])
		}
	}
}

// setBatch gives td the trace ids of batch n (td's spans are in trace
// order, the same number per trace).
func setBatch(td ptrace.Traces, n uint64) {
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	per := spans.Len() / tracesPerBatch
	for i := range spans.Len() {
		spans.At(i).SetTraceID(traceID(n, i/per))
	}
}

// agenttraceConf is the agenttrace exporter's configuration in the
// benchmark: defaults (secret scan on, finalize_after 30s,
// max_open_files 128) but no sending queue, and fsync never, because
// neither fileexporter nor the floor syncs.
func agenttraceConf(dir, groupBy string) map[string]any {
	return map[string]any{
		"directory":     dir,
		"group_by":      groupBy,
		"fsync":         agenttraceexporter.FsyncNever,
		"sending_queue": map[string]any{"enabled": false},
	}
}

// fileexporterConf is what a collector user writes for the contrib
// fileexporter: a path and the JSON format. Read from YAML this means no
// rotation and a 1 s flush interval behind a buffered writer.
func fileexporterConf(dir string) map[string]any {
	return map[string]any{
		"path":   filepath.Join(dir, "traces.json"),
		"format": "json",
	}
}

// newConfig unmarshals conf over the factory's defaults the way the
// collector reads a component's configuration, and validates it.
func newConfig(tb testing.TB, f exporter.Factory, conf map[string]any) any {
	tb.Helper()
	cfg := f.CreateDefaultConfig()
	cm := confmap.NewFromStringMap(conf)
	if u, ok := cfg.(confmap.Unmarshaler); ok {
		require.NoError(tb, u.Unmarshal(cm))
	} else {
		require.NoError(tb, cm.Unmarshal(cfg))
	}
	require.NoError(tb, confmap.Validate(cfg))
	return cfg
}

// start creates a traces exporter through f's public factory with the
// test settings and starts it; the caller shuts it down.
func start(tb testing.TB, f exporter.Factory, conf map[string]any) exporter.Traces {
	tb.Helper()
	cfg := newConfig(tb, f, conf)
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(f.Type()), cfg)
	require.NoError(tb, err)
	require.NoError(tb, exp.Start(context.Background(), componenttest.NewNopHost()))
	return exp
}

func startAgenttrace(tb testing.TB, dir, groupBy string) exporter.Traces {
	return start(tb, agenttraceexporter.NewFactory(), agenttraceConf(dir, groupBy))
}

func startFileexporter(tb testing.TB, dir string) exporter.Traces {
	return start(tb, fileexporter.NewFactory(), fileexporterConf(dir))
}

// floorData is what the floor writes per trace: the artifacts the
// agenttrace exporter writes for one batch (header, records, trailer),
// encoded once up front.
func floorData(tb testing.TB) [][]byte {
	tb.Helper()
	dir := tb.TempDir()
	exp := startAgenttrace(tb, dir, agenttraceexporter.GroupByTrace)
	td := newBatch(true)
	setBatch(td, 1)
	require.NoError(tb, exp.ConsumeTraces(context.Background(), td))
	require.NoError(tb, exp.Shutdown(context.Background()))
	data := make([][]byte, tracesPerBatch)
	for t := range data {
		b, err := os.ReadFile(filepath.Join(dir, traceID(1, t).String()+".jsonl"))
		require.NoError(tb, err)
		data[t] = b
	}
	return data
}

// writeFloor is the floor: what any exporter writing one file per trace
// must at least do, create the file, append its bytes in one write, close.
func writeFloor(dir string, n uint64, data [][]byte) error {
	for t, b := range data {
		path := filepath.Join(dir, traceID(n, t).String()+".jsonl")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("floor %s: %w", path, err)
		}
	}
	return nil
}
