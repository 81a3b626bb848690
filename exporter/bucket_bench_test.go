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
// without its binary), also with request_checksum_calculation=when_required
// (no checksum, an unsigned payload: the SDK hashes no body). Two
// workloads:
//
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
// count, and the directory must be empty afterwards). spans/s is over
// that region; cpu-µs/span is this process's CPU (user + system) per
// span (the S3 server's own is not in it); load1 is the machine's load
// when the run began. An untimed run first pays what the process does
// once (tables read and compiled on first use), which would otherwise be
// charged to the first target; run the binary once per sample (-count 1)
// so that each target is measured fresh, beside the others.
func BenchmarkConsumeBucket(b *testing.B) {
	warmUp(b)
	var weed *seaweedtest.Server
	parent := b // the server lives as long as the whole benchmark
	for _, runLen := range []int{7, 1} {
		for _, target := range []string{"folder", "file", "mem", "s3", "s3-when_required"} {
			b.Run(fmt.Sprintf("runs=%d/to=%s", runLen, target), func(b *testing.B) {
				cfg := benchBucketConfig(b)
				switch target {
				case "file":
					cfg.Bucket = "file://" + b.TempDir()
				case "mem":
					cfg.Bucket = fmt.Sprintf("mem://bench-%d", time.Now().UnixNano())
				case "s3", "s3-when_required":
					if weed == nil {
						seaweedtest.Binary(b) // skips without it
						weed = seaweedtest.Start(parent, "runs")
					}
					for _, kv := range seaweedtest.ClientEnv() {
						k, v, _ := strings.Cut(kv, "=")
						b.Setenv(k, v)
					}
					cfg.Bucket = weed.URL(fmt.Sprintf("bench-%d", time.Now().UnixNano()))
					if target == "s3-when_required" {
						// No CRC32 trailer, UNSIGNED-PAYLOAD: the SDK
						// hashes no body (gocloud's parameter).
						cfg.Bucket += "&request_checksum_calculation=when_required"
					}
				}
				consumeAndDrain(b, cfg, benchRuns(runLen))
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
	for _, runLen := range []int{7, 1} {
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
// what is left, and checks a bucket was given everything.
func consumeAndDrain(b *testing.B, cfg *Config, td ptrace.Traces) {
	f := NewFactory()
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(typ), cfg)
	require.NoError(b, err)
	require.NoError(b, exp.Start(context.Background(), componenttest.NewNopHost()))
	load := loadAvg(b)
	spans := uint64(td.SpanCount())
	b.ReportAllocs()
	cpu0 := benchcpu.Now()
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
	if cfg.Bucket != "" {
		left, err := filepath.Glob(filepath.Join(cfg.Directory, "*"+store.Ext))
		require.NoError(b, err)
		taken, err := filepath.Glob(filepath.Join(cfg.Directory, store.TakenDir, "*"))
		require.NoError(b, err)
		require.Empty(b, append(left, taken...), "every artifact uploaded and its local copy removed")
	}
}

// benchRuns is a batch of 100 runs of runLen spans: issue 11's agent runs
// (benchBatch) for 7, each one's chat span alone (a root of its own, as
// OpenLIT's calls are) for 1.
func benchRuns(runLen int) ptrace.Traces {
	td := benchBatch()
	if runLen == 7 {
		return td
	}
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.RemoveIf(func(sp ptrace.Span) bool { return sp.Name() != "chat gpt-4o" || sp.SpanID()[7] != 2 })
	for i := range spans.Len() {
		spans.At(i).SetParentSpanID(pcommon.SpanID{})
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
