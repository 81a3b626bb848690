package exporterbench

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/ptrace"

	agenttraceexporter "github.com/agenttrace/agenttrace/exporter"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
)

// BenchmarkExporter is issue 11's benchmark, all in one run so the ratios
// compare like with like on a noisy machine. Each sub-benchmark writes
// batches of 100 traces x 7 GenAI spans with fresh trace ids into its own
// empty folder of the same temporary directory (one file system; a fresh
// folder so no one pays for a folder the others filled):
//
//   - mode=one-artifact: agenttrace grouping every span into one artifact
//     (group_by resource:service.name, one service) against the contrib
//     fileexporter writing OTLP/JSON to one file. Target: agenttrace >= 2x
//     fileexporter's spans/s.
//   - mode=per-trace: agenttrace with one artifact per trace (group_by
//     trace) against the floor, plain code creating one file per trace and
//     appending the same bytes to it. Target: agenttrace >= 1/1.2 of the
//     floor's spans/s.
//   - mode=per-trace-parallel: the same from GOMAXPROCS goroutines at once,
//     each with its own traces. Writes to different artifacts should not
//     wait for each other: agenttrace should gain from parallelism as the
//     floor does.
//
// The exporters are created through their public factories with the
// collector's test settings, no sending queue, no batching, and called
// with ConsumeTraces. Shutdown is timed too: it writes what an exporter
// still holds (agenttrace's trailers, fileexporter's buffer).
func BenchmarkExporter(b *testing.B) {
	b.Run("mode=one-artifact/impl=agenttrace", func(b *testing.B) {
		serial(b, startAgenttrace(b, b.TempDir(), agenttraceexporter.GroupByResourcePrefix+"service.name"))
	})
	b.Run("mode=one-artifact/impl=fileexporter", func(b *testing.B) {
		serial(b, startFileexporter(b, b.TempDir()))
	})
	b.Run("mode=per-trace/impl=agenttrace", func(b *testing.B) {
		serial(b, startAgenttrace(b, b.TempDir(), agenttraceexporter.GroupByTrace))
	})
	data := floorData(b)
	b.Run("mode=per-trace/impl=floor", func(b *testing.B) {
		dir := b.TempDir()
		b.ReportAllocs()
		var batches uint64
		for b.Loop() {
			if err := writeFloor(dir, batchSeq.Add(1), data); err != nil {
				b.Fatal(err)
			}
			batches++
		}
		reportSpans(b, batches)
	})
	b.Run("mode=per-trace-parallel/impl=agenttrace", func(b *testing.B) {
		exp := startAgenttrace(b, b.TempDir(), agenttraceexporter.GroupByTrace)
		batches := make(chan ptrace.Traces, runtime.GOMAXPROCS(0))
		for range cap(batches) {
			batches <- newBatch(true)
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			td := <-batches
			for pb.Next() {
				setBatch(td, batchSeq.Add(1))
				if err := exp.ConsumeTraces(context.Background(), td); err != nil {
					b.Error(err)
					return
				}
			}
		})
		shutdown(b, exp)
		reportSpans(b, uint64(b.N))
	})
	b.Run("mode=per-trace-parallel/impl=floor", func(b *testing.B) {
		dir := b.TempDir()
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := writeFloor(dir, batchSeq.Add(1), data); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		reportSpans(b, uint64(b.N))
	})
}

// serial times ConsumeTraces of one batch after another, then Shutdown.
func serial(b *testing.B, exp exporter.Traces) {
	td := newBatch(true)
	ctx := context.Background()
	b.ReportAllocs()
	var batches uint64
	for b.Loop() {
		setBatch(td, batchSeq.Add(1))
		if err := exp.ConsumeTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
		batches++
	}
	shutdown(b, exp) // b.Loop stopped the timer; shutdown's time counts
	reportSpans(b, batches)
}

// shutdown shuts exp down with the timer running and stops the timer.
func shutdown(b *testing.B, exp exporter.Traces) {
	b.StartTimer()
	err := exp.Shutdown(context.Background())
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
}

// reportSpans reports the spans written per second of timed work.
func reportSpans(b *testing.B, batches uint64) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(batches*spansPerBatch)/s, "spans/s")
	}
}

// side is one implementation in BenchmarkInterleaved: prepare makes
// batch n (not timed), step writes it, finish writes what is still held.
type side struct {
	prepare func(n uint64)
	step    func() error
	finish  func() error
}

// exporterSide feeds exp the batch; with unique, every chat span's
// messages are new text in every batch (setMessages), so nothing can be
// remembered from one span to the next.
func exporterSide(exp exporter.Traces, unique bool) side {
	td := newBatch(true)
	return side{
		prepare: func(n uint64) {
			setBatch(td, n)
			if unique {
				setMessages(td, n)
			}
		},
		step:   func() error { return exp.ConsumeTraces(context.Background(), td) },
		finish: func() error { return exp.Shutdown(context.Background()) },
	}
}

func floorSide(dir string, data [][]byte) side {
	var batch uint64
	return side{
		prepare: func(n uint64) { batch = n },
		step:    func() error { return writeFloor(dir, batch, data) },
		finish:  func() error { return nil },
	}
}

// BenchmarkInterleaved gives the ratios of BenchmarkExporter measured
// batch by batch: agenttrace and the other side take turns (alternating
// who goes first), each timed on its own, so a machine whose load changes
// by the second (a shared 2-core VM) slows both alike. It reports each
// side's spans/s and their ratio, agenttrace's over the other's: the
// targets are >= 2 for one-artifact and >= 0.83 (1/1.2) for per-trace.
// Its B/op and allocs/op are both sides together; read those from
// BenchmarkExporter.
//
// The batches of issue 11 repeat their message texts from span to span
// and batch to batch, as an agent repeats its system prompt and tool
// definitions but not its conversation. The secret scan remembers long
// strings it found clean (redact's verdict table), so mode=one-artifact
// pays for each text once; mode=one-artifact-unique gives every chat
// span new messages in every batch (both sides alike, before the timer),
// which is the scan's worst case and the honest figure for conversations.
func BenchmarkInterleaved(b *testing.B) {
	oneArtifact := agenttraceexporter.GroupByResourcePrefix + "service.name"
	b.Run("mode=one-artifact", func(b *testing.B) {
		interleave(b, "fileexporter",
			exporterSide(startAgenttrace(b, b.TempDir(), oneArtifact), false),
			exporterSide(startFileexporter(b, b.TempDir()), false))
	})
	b.Run("mode=one-artifact-unique", func(b *testing.B) {
		interleave(b, "fileexporter",
			exporterSide(startAgenttrace(b, b.TempDir(), oneArtifact), true),
			exporterSide(startFileexporter(b, b.TempDir()), true))
	})
	data := floorData(b)
	b.Run("mode=per-trace", func(b *testing.B) {
		interleave(b, "floor",
			exporterSide(startAgenttrace(b, b.TempDir(), agenttraceexporter.GroupByTrace), false),
			floorSide(b.TempDir(), data))
	})
}

func interleave(b *testing.B, other string, at, o side) {
	var tAt, tO time.Duration
	var cAt, cO time.Duration // CPU time of the process, all threads
	timed := func(s side, d, c *time.Duration, f func(side) error) {
		c0 := benchcpu.Now()
		t0 := time.Now()
		if err := f(s); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(t0)
		*c += benchcpu.Now() - c0
	}
	step := func(s side) error { return s.step() }
	var batches uint64
	for b.Loop() {
		b.StopTimer()
		at.prepare(batchSeq.Add(1))
		o.prepare(batchSeq.Add(1))
		b.StartTimer()
		if batches%2 == 0 {
			timed(at, &tAt, &cAt, step)
			timed(o, &tO, &cO, step)
		} else {
			timed(o, &tO, &cO, step)
			timed(at, &tAt, &cAt, step)
		}
		batches++
	}
	finish := func(s side) error { return s.finish() }
	timed(at, &tAt, &cAt, finish)
	timed(o, &tO, &cO, finish)
	spans := float64(batches * spansPerBatch)
	rAt, rO := spans/tAt.Seconds(), spans/tO.Seconds()
	b.ReportMetric(rAt, "agenttrace-spans/s")
	b.ReportMetric(rO, other+"-spans/s")
	b.ReportMetric(rAt/rO, "ratio")
	// CPU time tells how much work each side does, whatever the machine's
	// load and however many cores a side keeps busy: the wall-clock ratio
	// is what the targets are about, this one why it is what it is.
	b.ReportMetric(float64(cAt.Nanoseconds())/spans, "agenttrace-cpu-ns/span")
	b.ReportMetric(float64(cO.Nanoseconds())/spans, other+"-cpu-ns/span")
}
