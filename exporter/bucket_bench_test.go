//go:build unix

package agenttraceexporter

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/internal/seaweedtest"
	"github.com/agenttrace/agenttrace/store"
)

// BenchmarkConsumeBucket (issue 23 point 1: a bucket at ≥ 0.8× the folder
// alone) is the exporter writing one artifact per trace to its directory
// alone, and the same with a bucket configured, side by side in one
// binary: file:// (fileblob in a temporary folder), mem:// (memblob) and a
// real S3 server on loopback (SeaweedFS, internal/seaweedtest; skipped
// without its binary), and S3 with the bucket's run catalog on
// (s3+catalog: each uploaded run's row made from its local file, as
// deploy/collector/agenttrace-bucket.yaml ships it). Three workloads:
//
//   - runs=50: agent runs of realistic size, 20 a batch: an agent, 7
//     steps, each 3 chats (0.7–3.3 KB of messages in, ~800 B out) and 3
//     tools; ~60 KB an artifact;
//   - runs=7: issue 11's batch, 100 agent runs of 7 spans (an agent, 3
//     chats with ~2 KB of messages, 3 tools): the captured libraries'
//     runs are 1 to 10 spans (testdata/real), internal/e2eload's 4;
//   - runs=1: the worst case, every span its own run (OpenLIT,
//     LlamaIndex.TS, OpenInference LangChain: each call its own trace),
//     100 a batch: one upload per span.
//
// finalize_after is 100 ms, so artifacts are finalized, taken and
// uploaded while batches still arrive, as in a collector; the timed
// region is the batches AND the shutdown that finalizes the rest and
// drains every upload (sustained: a backlog left for later does not
// count, and the directory must be empty afterwards). The exporter's
// spans/s is the spans consumed over that region. cpu-µs/span is this
// process's CPU (user + system) per span; server-cpu-µs/span the S3
// server's (its process's /proc/<pid>/stat), which runs on the same cores
// as this process and is no part of the exporter's own cost; load1 is
// the machine's load when the run began. An untimed run first pays what
// the process does once (tables read and compiled on first use), which
// would otherwise be charged to the first target; run the binary once per
// sample (-count 1) so that each target is measured fresh, beside the
// others.
func BenchmarkConsumeBucket(b *testing.B) {
	warmUp(b)
	var weed *seaweedtest.Server
	parent := b // the server lives as long as the whole benchmark
	for _, runLen := range []int{50, 7, 1} {
		for _, target := range []string{"folder", "file", "mem", "s3", "s3+catalog"} {
			b.Run(fmt.Sprintf("runs=%d/to=%s", runLen, target), func(b *testing.B) {
				cfg := benchBucketConfig(b)
				switch target {
				case "file":
					cfg.Bucket = "file://" + b.TempDir()
				case "mem":
					cfg.Bucket = fmt.Sprintf("mem://bench-%d", time.Now().UnixNano())
				case "s3", "s3+catalog":
					cfg.Catalog.Enabled = target == "s3+catalog"
					if weed == nil {
						seaweedtest.Binary(b) // skips without it
						weed = seaweedtest.Start(parent, "runs")
					}
					for _, kv := range seaweedtest.ClientEnv() {
						k, v, _ := strings.Cut(kv, "=")
						b.Setenv(k, v)
					}
					cfg.Bucket = weed.URL(fmt.Sprintf("bench-%d", time.Now().UnixNano()))
				}
				var server func() time.Duration
				if strings.HasPrefix(target, "s3") {
					server = func() time.Duration {
						d, err := weed.CPU()
						require.NoError(b, err)
						return d
					}
				}
				consumeAndDrain(b, cfg, benchRuns(runLen), server)
			})
		}
	}
}

// warmUp runs the exporter over a few batches of both workloads, untimed.
func warmUp(b *testing.B) {
	cfg := benchBucketConfig(b)
	exp, err := NewFactory().CreateTraces(context.Background(), exportertest.NewNopSettings(typ), cfg)
	require.NoError(b, err)
	require.NoError(b, exp.Start(context.Background(), componenttest.NewNopHost()))
	for _, runLen := range []int{50, 7, 1} {
		td := benchRuns(runLen)
		for n := range uint64(5) {
			setRunIDs(td, 1<<32+n)
			require.NoError(b, exp.ConsumeTraces(context.Background(), td))
		}
	}
	require.NoError(b, exp.Shutdown(context.Background()))
}

// benchBucketConfig is the exporter's config for BenchmarkConsumeBucket:
// one artifact per trace, no fsync, no queue, finalize_after 100 ms.
func benchBucketConfig(b *testing.B) *Config {
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.Directory, cfg.GroupBy, cfg.Fsync = b.TempDir(), GroupByTrace, FsyncNever
	cfg.FinalizeAfter = 100 * time.Millisecond
	cfg.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	return cfg
}

// consumeAndDrain times batches of td (fresh trace ids each, a run a
// root span) and the shutdown that finishes (and, with a bucket, uploads)
// what is left, and checks a bucket was given everything. server, when
// not nil, reads the CPU time of the bucket's server process.
func consumeAndDrain(b *testing.B, cfg *Config, td ptrace.Traces, server func() time.Duration) {
	f := NewFactory()
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(typ), cfg)
	require.NoError(b, err)
	require.NoError(b, exp.Start(context.Background(), componenttest.NewNopHost()))
	load := loadAvg(b)
	spans := uint64(td.SpanCount())
	b.ReportAllocs()
	cpu0 := benchcpu.Now()
	var srv0 time.Duration
	if server != nil {
		srv0 = server()
	}
	var n uint64
	for b.Loop() {
		n++
		setRunIDs(td, n)
		if err := exp.ConsumeTraces(context.Background(), td); err != nil {
			b.Fatal(err)
		}
	}
	b.StartTimer()
	require.NoError(b, exp.Shutdown(context.Background()))
	b.StopTimer()
	cpu := benchcpu.Now() - cpu0
	b.ReportMetric(float64(n*spans)/b.Elapsed().Seconds(), "spans/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n*spans), "cpu-µs/span")
	b.ReportMetric(load, "load1")
	if server != nil {
		b.ReportMetric(float64((server()-srv0).Microseconds())/float64(n*spans), "server-cpu-µs/span")
	}
	if cfg.Bucket != "" {
		left, err := filepath.Glob(filepath.Join(cfg.Directory, "*"+store.Ext))
		require.NoError(b, err)
		taken, err := filepath.Glob(filepath.Join(cfg.Directory, store.TakenDir, "*"))
		require.NoError(b, err)
		require.Empty(b, append(left, taken...), "every artifact uploaded and its local copy removed")
	}
}

// benchRuns is a batch of runs of runLen spans: 20 runs of an agent's 7
// steps (benchLongRuns) for 50; 100 of issue 11's agent runs (benchBatch)
// for 7; 100 of each one's chat span alone (a root of its own, as
// OpenLIT's calls are) for 1.
//
// The spans are moved to start now, as a collector's do: a run months old
// is one the publisher's ledger no longer holds the day before of, so it
// looks in the bucket.
func benchRuns(runLen int) ptrace.Traces {
	var td ptrace.Traces
	switch runLen {
	case 50:
		return toNow(benchLongRuns())
	case 7:
		return toNow(benchBatch())
	}
	td = toNow(benchBatch())
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.RemoveIf(func(sp ptrace.Span) bool { return sp.Name() != "chat gpt-4o" || sp.SpanID()[7] != 2 })
	for i := range spans.Len() {
		spans.At(i).SetParentSpanID(pcommon.SpanID{})
	}
	return td
}

// toNow moves td's spans so that the first starts now.
func toNow(td ptrace.Traces) ptrace.Traces {
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	shift := uint64(time.Now().UnixNano()) - uint64(spans.At(0).StartTimestamp())
	for i := range spans.Len() {
		sp := spans.At(i)
		sp.SetStartTimestamp(sp.StartTimestamp() + pcommon.Timestamp(shift))
		sp.SetEndTimestamp(sp.EndTimestamp() + pcommon.Timestamp(shift))
	}
	return td
}

// setRunIDs gives the batch's runs fresh trace ids, batch n's: spans of
// one run are adjacent, a run starts at a span without a parent.
func setRunIDs(td ptrace.Traces, n uint64) {
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	run := uint64(0)
	for i := range spans.Len() {
		if spans.At(i).ParentSpanID().IsEmpty() {
			run++
		}
		var id pcommon.TraceID
		binary.BigEndian.PutUint64(id[:8], n)
		binary.BigEndian.PutUint64(id[8:], run)
		spans.At(i).SetTraceID(id)
	}
}

// loadAvg is the machine's load over the last minute (/proc/loadavg), 0
// where there is none.
func loadAvg(b *testing.B) float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	require.NoError(b, err)
	return v
}

// benchLongRuns is a batch of 20 agent runs of 50 spans, the size of a
// real agent's task: the agent, 7 steps, and in each step 3 chats whose
// input is the conversation so far (0.7 KB growing to ~3.3 KB) and whose
// output is ~800 B, and 3 tool calls.
func benchLongRuns() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel-planner")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("github.com/example/agentkit")
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10)
	base := uint64(1_777_000_000_000_000_000)
	for t := range 20 {
		at := base + uint64(t)*1e11
		n := 0
		span := func(parent int, name, op string) (int, pcommon.Map) {
			i := n
			n++
			sp := ss.Spans().AppendEmpty()
			var id pcommon.SpanID
			binary.BigEndian.PutUint32(id[:4], uint32(t)+1)
			binary.BigEndian.PutUint32(id[4:], uint32(i)+1)
			sp.SetSpanID(id)
			if parent >= 0 {
				binary.BigEndian.PutUint32(id[4:], uint32(parent)+1)
				sp.SetParentSpanID(id)
			}
			sp.SetName(name)
			sp.SetStartTimestamp(pcommon.Timestamp(at + uint64(i)*1e8))
			sp.SetEndTimestamp(pcommon.Timestamp(at + uint64(i)*1e8 + 9e7))
			sp.Attributes().PutStr("gen_ai.operation.name", op)
			return i, sp.Attributes()
		}
		root, a := span(-1, "invoke_agent travel-planner", "invoke_agent")
		a.PutStr("gen_ai.agent.name", "travel-planner")
		for s := range 7 {
			step, _ := span(root, fmt.Sprintf("invoke_agent step-%d", s), "invoke_agent")
			for c := range 3 {
				_, a := span(step, "chat gpt-4o", "chat")
				a.PutStr("gen_ai.request.model", "gpt-4o")
				a.PutStr("gen_ai.response.id", fmt.Sprintf("chatcmpl-%d-%d-%d", t, s, c))
				a.PutInt("gen_ai.usage.input_tokens", int64(1400+300*s))
				a.PutInt("gen_ai.usage.output_tokens", 200)
				history := strings.Repeat(para[:100], 4*s+c)
				a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Plan a trip. `+para[:700]+history+`"}]}]`)
				a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+para[:800]+`"}],"finish_reason":"tool_call"}]`)
			}
			for range 3 {
				_, a := span(step, "execute_tool search_flights", "execute_tool")
				a.PutStr("gen_ai.tool.name", "search_flights")
				a.PutStr("gen_ai.tool.call.arguments", `{"origin":"BER","destination":"LIS","passengers":2}`)
				a.PutStr("gen_ai.tool.call.result", `{"offers":[{"carrier":"TP","price":247.8,"stops":0}]}`)
			}
		}
	}
	return td
}
