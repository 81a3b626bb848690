package exporterbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/goleak"

	agenttraceexporter "github.com/agenttrace/agenttrace/exporter"
)

// TestMain checks that every exporter the tests and benchmarks start
// stops all its goroutines on shutdown.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// perTraceKinds is one trace's artifact: header, the agent span, 3
// inferences, 3 tool calls (kind call), trailer.
var perTraceKinds = map[string]int{"meta": 1, "agent": 1, "inference": 3, "call": 3, "summary": 1}

// kinds counts an artifact's lines by kind and returns the last line's.
func kinds(t *testing.T, path string) (counts map[string]int, last string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	got := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct{ Kind string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "%s: %s", path, sc.Bytes())
		got[line.Kind]++
		last = line.Kind
	}
	require.NoError(t, sc.Err())
	return got, last
}

// TestConfigsAreTheBenchmarks: the configurations mean what the benchmark
// says: no sending queue for agenttrace, and for fileexporter what a user's
// YAML gets (no rotation, the 1 s buffered flush, JSON).
func TestConfigsAreTheBenchmarks(t *testing.T) {
	at := newConfig(t, agenttraceexporter.NewFactory(), agenttraceConf(t.TempDir(), agenttraceexporter.GroupByTrace)).(*agenttraceexporter.Config)
	assert.False(t, at.QueueConfig.HasValue(), "no sending queue")
	assert.Equal(t, agenttraceexporter.FsyncNever, at.Fsync)

	fe := newConfig(t, fileexporter.NewFactory(), fileexporterConf(t.TempDir())).(*fileexporter.Config)
	assert.Nil(t, fe.Rotation)
	assert.Equal(t, time.Second, fe.FlushInterval)
	assert.Equal(t, "json", fe.FormatType)
}

// TestBenchmarkWritesWhatItClaims runs each side of the benchmark on two
// batches and reads back what it wrote, so the benchmark times real work:
// agenttrace one artifact for everything and one per trace (header, every
// span, trailer), fileexporter one OTLP/JSON line per batch, and the floor
// the same bytes per trace as agenttrace.
func TestBenchmarkWritesWhatItClaims(t *testing.T) {
	ctx := context.Background()
	run := func(exp interface {
		ConsumeTraces(context.Context, ptrace.Traces) error
		Shutdown(context.Context) error
	}, batches ...uint64,
	) {
		td := newBatch(true)
		for _, n := range batches {
			setBatch(td, n)
			require.NoError(t, exp.ConsumeTraces(ctx, td))
		}
		require.NoError(t, exp.Shutdown(ctx))
	}

	t.Run("agenttrace one artifact", func(t *testing.T) {
		dir := t.TempDir()
		run(startAgenttrace(t, dir, agenttraceexporter.GroupByResourcePrefix+"service.name"), 101, 102)
		files, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, files, 1)
		got, last := kinds(t, filepath.Join(dir, files[0].Name()))
		assert.Equal(t, 1, got["meta"])
		// A trailer may follow each batch that ended traces (the format
		// allows several; the last counts); the file ends with one.
		assert.GreaterOrEqual(t, got["summary"], 1)
		assert.Equal(t, "summary", last)
		assert.Equal(t, 2*spansPerBatch, got["agent"]+got["inference"]+got["call"], "%v", got)
	})

	t.Run("agenttrace per trace", func(t *testing.T) {
		dir := t.TempDir()
		run(startAgenttrace(t, dir, agenttraceexporter.GroupByTrace), 201, 202)
		files, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, files, 2*tracesPerBatch)
		for _, n := range []uint64{201, 202} {
			for tr := range tracesPerBatch {
				got, last := kinds(t, filepath.Join(dir, traceID(n, tr).String()+".jsonl"))
				assert.Equal(t, perTraceKinds, got)
				assert.Equal(t, "summary", last)
			}
		}
	})

	t.Run("fileexporter", func(t *testing.T) {
		dir := t.TempDir()
		run(startFileexporter(t, dir), 301, 302)
		b, err := os.ReadFile(filepath.Join(dir, "traces.json"))
		require.NoError(t, err)
		lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
		require.Len(t, lines, 2)
		for _, l := range lines {
			td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(l)
			require.NoError(t, err)
			assert.Equal(t, spansPerBatch, td.SpanCount())
		}
	})

	t.Run("floor", func(t *testing.T) {
		data := floorData(t)
		dir := t.TempDir()
		require.NoError(t, writeFloor(dir, 401, data))
		for tr, want := range data {
			path := filepath.Join(dir, traceID(401, tr).String()+".jsonl")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			counts, last := kinds(t, path)
			assert.Equal(t, perTraceKinds, counts)
			assert.Equal(t, "summary", last)
		}
	})
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds)
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// TestTenThousandOpenTraces: 10,000 traces in flight through the public
// factory (6 spans each, ~2 KB messages; their roots never arrive, so none
// is finalized) keep at most max_open_files (default 128) files open and
// hold little memory per trace; shutdown closes every file.
func TestTenThousandOpenTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	const traces, maxOpen = 10_000, 128
	dir := t.TempDir()
	td := newBatch(false)
	fds0, heap0 := openFDs(t), heapInUse()
	exp := startAgenttrace(t, dir, agenttraceexporter.GroupByTrace)
	ctx := context.Background()
	for range traces / tracesPerBatch {
		setBatch(td, batchSeq.Add(1))
		require.NoError(t, exp.ConsumeTraces(ctx, td))
	}
	fds, heap := openFDs(t), heapInUse()
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, files, traces, "one artifact per trace")
	perTrace := (heap - heap0) / traces
	t.Logf("%d open traces: %d files open (+%d), heap in use +%.1f MiB, ~%d B per trace",
		traces, fds, fds-fds0, float64(heap-heap0)/(1<<20), perTrace)
	assert.LessOrEqual(t, fds-fds0, maxOpen, "open files stay under max_open_files")
	// What an open trace keeps between batches is its header, tally and
	// span-id set, not its records (~8.7 KB each with these spans at
	// a9fa1ca, the exporter before the store).
	assert.Less(t, perTrace, int64(16<<10), "an open trace holds little memory")

	require.NoError(t, exp.Shutdown(ctx))
	assert.Equal(t, fds0, openFDs(t), "shutdown closes every file")
}

// TestUniqueMessagesAreNewValidJSON holds mode=one-artifact-unique to what
// it claims: every chat span's messages stay valid JSON of the same
// length, and differ from span to span and from batch to batch.
func TestUniqueMessagesAreNewValidJSON(t *testing.T) {
	td := newBatch(true)
	seen := map[string]bool{}
	for _, n := range []uint64{1, 2} {
		setMessages(td, n)
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		orig := newBatch(true).ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		changed := 0
		for i := range spans.Len() {
			for _, k := range []string{"gen_ai.input.messages", "gen_ai.output.messages"} {
				v, ok := spans.At(i).Attributes().Get(k)
				if !ok {
					continue
				}
				o, _ := orig.At(i).Attributes().Get(k)
				require.True(t, json.Valid([]byte(v.Str())), "span %d %s", i, k)
				assert.Len(t, v.Str(), len(o.Str()), "span %d %s", i, k)
				assert.False(t, seen[v.Str()], "span %d %s repeats a text", i, k)
				seen[v.Str()] = true
				changed++
			}
		}
		assert.Equal(t, 2*3*tracesPerBatch, changed, "every chat span has both messages")
	}
}
