package store

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/semconv"
)

// benchRecords is a batch of traces x 7 spans: an invoke_agent root,
// three chats with ~2 KB of messages, three tool calls.
func benchRecords(traces int) []artifact.Record {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "travel-planner")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("agentkit")
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers. ", 16)
	for t := range traces {
		for i := range 7 {
			sp := ss.Spans().AppendEmpty()
			sp.SetSpanID(pcommon.SpanID{byte(t), byte(t >> 8), byte(i + 1)})
			if i > 0 {
				sp.SetParentSpanID(pcommon.SpanID{byte(t), byte(t >> 8), 1})
			}
			sp.SetStartTimestamp(pcommon.Timestamp(uint64(t)*1e10 + uint64(i)*1e8))
			sp.SetEndTimestamp(pcommon.Timestamp(uint64(t)*1e10 + uint64(i)*1e8 + 9e7))
			a := sp.Attributes()
			switch {
			case i == 0:
				sp.SetName("invoke_agent planner")
				a.PutStr(semconv.OperationName, "invoke_agent")
			case i < 4:
				sp.SetName("chat gpt-4o")
				a.PutStr(semconv.OperationName, "chat")
				a.PutStr(semconv.RequestModel, "gpt-4o")
				a.PutInt(semconv.UsageInputTokens, 1400)
				a.PutInt(semconv.UsageOutputTokens, 200)
				a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"`+para+`"}]}]`)
				a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+para+`"}]}]`)
			default:
				sp.SetName("execute_tool search")
				a.PutStr(semconv.OperationName, "execute_tool")
				a.PutStr(semconv.ToolName, "search")
				a.PutStr(semconv.ToolCallArguments, `{"q":"flights BER LIS"}`)
				a.PutStr(semconv.ToolCallResult, `{"offers":[{"price":247.8}]}`)
			}
		}
	}
	return artifact.Records(td)
}

// fresh gives recs' traces the ids of batch n.
func fresh(recs []artifact.Record, n uint64) {
	for i := range recs {
		var id pcommon.TraceID
		binary.BigEndian.PutUint64(id[:8], n)
		binary.BigEndian.PutUint64(id[8:], uint64(i/7))
		recs[i].Span.SetTraceID(id)
	}
}

// BenchmarkWrite writes batches of 100 traces x 7 spans with fresh trace
// ids: into one artifact (a single run file), and one artifact per trace;
// and, in parallel, from GOMAXPROCS goroutines with traces of their own,
// whose writes never wait for each other.
func BenchmarkWrite(b *testing.B) {
	run := func(b *testing.B, opts Options, parallel bool) {
		s, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		var seq atomic.Uint64
		cpu := benchcpu.Now()
		if parallel {
			b.RunParallel(func(pb *testing.PB) {
				recs := benchRecords(100)
				for pb.Next() {
					fresh(recs, seq.Add(1))
					if err := s.Write(recs); err != nil {
						b.Error(err)
						return
					}
				}
			})
		} else {
			recs := benchRecords(100)
			for b.Loop() {
				fresh(recs, seq.Add(1))
				if err := s.Write(recs); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer() // Close writes what is still held: it counts
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		// The process's CPU time: what decides throughput on a busy
		// machine, whatever wall time the load of the moment gives.
		benchcpu.Report(b, cpu)
		b.ReportMetric(float64(b.N*700)/b.Elapsed().Seconds(), "spans/s")
	}
	b.Run("artifacts=one", func(b *testing.B) {
		run(b, Options{Path: b.TempDir() + "/run.jsonl", Fsync: FsyncNever}, false)
	})
	b.Run("artifacts=per-trace", func(b *testing.B) {
		run(b, Options{Dir: b.TempDir(), Fsync: FsyncNever, FinalizeAfter: time.Hour}, false)
	})
	b.Run("artifacts=per-trace/parallel", func(b *testing.B) {
		run(b, Options{Dir: b.TempDir(), Fsync: FsyncNever, FinalizeAfter: time.Hour}, true)
	})
	// The store's own work, without the file system's: every file takes
	// what is written and keeps nothing. The system calls are most of the
	// CPU time of the others, and their cost swings with the machine.
	b.Run("artifacts=per-trace/files=null", func(b *testing.B) {
		orig := openFile
		b.Cleanup(func() { openFile = orig })
		openFile = func(string, bool) (file, error) { return nullFile{}, nil }
		run(b, Options{Dir: b.TempDir(), Fsync: FsyncNever, FinalizeAfter: time.Hour}, false)
	})
}

// nullFile is a file that takes every write and keeps nothing.
type nullFile struct{}

func (nullFile) Write(p []byte) (int, error) { return len(p), nil }
func (nullFile) Close() error                { return nil }
func (nullFile) Truncate(int64) error        { return nil }
func (nullFile) Sync() error                 { return nil }
